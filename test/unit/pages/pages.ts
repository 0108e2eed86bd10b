import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { HtmlPage } from '../../../functions/http/pages/html-page.ts';

/** Asserts what every page must have: document basics, one main and h1, no external asset. */
export function expectWellFormedPage(page: HtmlPage, title: string): void {
  const { html } = page;
  expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
  expect(html).toContain('<meta charset="utf-8">');
  expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(html).toContain(`<title>${title}</title>`);
  expect(html.match(/<main>/g)).toHaveLength(1);
  expect(html.match(/<h1>/g)).toHaveLength(1);
  expect(html).toContain(`<main>\n<h1>${title}</h1>`);
  expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
  expect(html).not.toMatch(/(src|href|action)\s*=\s*["']?(https?:)?\/\//i);
  expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
  expect(page.headers['Cache-Control']).toBe('no-store');
  // The policy pins the one inline stylesheet by hash, so it must match the page's CSS.
  const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  const hash = createHash('sha256').update(css).digest('base64');
  expect(page.headers['Content-Security-Policy']).toContain(`style-src 'sha256-${hash}'`);
  expect(page.headers['Content-Security-Policy']).toContain("default-src 'none'");
}

/** The one form of a link page: method, hidden token (raw attribute text), button label. */
export function formOf(html: string): { method: string; token: string; button: string } {
  const form = /<form([^>]*)>([\s\S]*?)<\/form>/.exec(html);
  expect(form).not.toBeNull();
  const method = /method="([^"]*)"/.exec(form?.[1] ?? '')?.[1] ?? '';
  const token =
    /<input type="hidden" name="token" value="([^"]*)">/.exec(form?.[2] ?? '')?.[1] ?? '';
  const button = /<button type="submit">([^<]*)<\/button>/.exec(form?.[2] ?? '')?.[1] ?? '';
  return { method, token, button };
}
