/**
 * The web version of an issue in a real browser: the "view in your browser" link of a campaign
 * mail the local SES stored is opened in Chromium. The page shows the issue with its own styles
 * and images, nobody's data, runs no script the content carries (the sandbox policy), and its
 * unsubscribe link leads to a page that explains itself rather than unsubscribing anyone.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CampaignOperator, campaignOperator } from '../e2e/support/campaign-operator.ts';
import { type LocalService, startLocalService } from '../e2e/support/local-service.ts';
import { launchChromium } from './support/chromium.ts';

let service: LocalService;
let operator: CampaignOperator;
let browser: Browser;
let context: BrowserContext | undefined;
// In-page expressions are strings: this project compiles without the DOM library.

// The content carries a script and an inline handler: the page must run neither.
const ISSUE_HTML = `<!DOCTYPE html>
<html lang="en"><head><title>Spring news</title>
<style>h1 { color: rgb(200, 30, 30) }</style></head>
<body><h1>Hello {name}</h1><p id="who">This went to {email}.</p>
<img id="pixel" alt="dot" src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==">
<script>document.title = 'scripted'</script>
<p><a id="leave" href="{unsubscription_url}">Unsubscribe</a></p></body></html>`;

const SUBJECT = 'Browser web version';
const READER = 'browser-reader@example.net';
let viewLink = '';

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  browser = await launchChromium();
  await operator.add(READER, [4]);
  const id = await operator.createIssue(SUBJECT, [4]);
  const file = join(tmpdir(), `web-version-${process.pid}.html`);
  await writeFile(file, ISSUE_HTML);
  await operator.cliOk('newsletters', 'edit', String(id), '--html', file);
  await operator.cliOk('newsletters', 'send', String(id));
  await service.stack.settled();
  const [mail] = await operator.mailsOf(SUBJECT);
  viewLink = /View this newsletter in your browser: (\S+)/.exec(mail?.body.text ?? '')?.[1] ?? '';
  if (!viewLink) throw new Error('no web version link in the campaign mail');
});

afterAll(async () => {
  await browser?.close();
  await operator?.close();
  await service?.stop();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

describe('[campaign.web-version] the web version in Chromium', () => {
  it('shows the issue from the mail’s link with its styles and images, and nobody’s data', async () => {
    const { page } = await openPage();

    const shown = await page.goto(viewLink);

    expect(shown?.status()).toBe(200);
    expect(shown?.headers()['cache-control']).toBe('public, max-age=300');
    expect(await page.locator('h1').textContent()).toBe('Hello ');
    expect(await page.locator('#who').textContent()).toBe('This went to .');
    expect(
      await page.evaluate<string>('getComputedStyle(document.querySelector("h1")).color'),
    ).toBe('rgb(200, 30, 30)');
    expect(await page.evaluate<number>('document.querySelector("#pixel").naturalWidth')).toBe(1);
    expect(await page.content()).not.toContain(READER);
  });

  it('runs no script the content carries (the sandbox policy)', async () => {
    const { page } = await openPage();

    await page.goto(viewLink);

    expect(await page.title()).toBe('Spring news');
    // A sandboxed document has an opaque origin: no cookies or storage of the API's origin.
    expect(await page.evaluate<string>('String(self.origin)')).toBe('null');
  });

  it('leads its unsubscribe link to a page that unsubscribes nobody', async () => {
    const { page } = await openPage();
    await page.goto(viewLink);

    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.url().includes('/subscription/unsubscribe')),
      page.locator('#leave').click(),
    ]);
    await page.waitForLoadState('load');

    expect(response.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('This link no longer works');
    expect((await service.subscriber(READER))?.status).toBe('C');
  });
});
