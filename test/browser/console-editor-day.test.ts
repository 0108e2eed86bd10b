/**
 * The editor's day in the web console, in Chromium against the local stack `npm start` runs
 * (the console on the API's origin, cognito-local, every function with its own role): sign in
 * with a temporary password, create a list, import three subscribers, write an issue and
 * preview it at phone width, test it, send it and watch it reach `sent`, open one of its mails
 * in the mail viewer and click a link, see the open and the click in the report, download the
 * CSV. axe-core checks every page on the way ([console.pages]); the preview runs none of the
 * issue's scripts ([console.preview]).
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../e2e/support/local-service.ts';
import { launchChromium } from './support/chromium.ts';
import {
  addPerson,
  expectAccessible,
  type NewPerson,
  openSection,
  overflowsSideways,
  signIn,
  soon,
} from './support/console.ts';

let service: LocalService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let editor: NewPerson;
/** The links' real address: a site of the test's own, which records who arrived. */
let site: Server;
let siteRoot = '';
const arrivals: string[] = [];

const LIST = 'Console readers';
const SUBJECT = 'Console day issue';
const READERS = ['day-one@example.net', 'day-two@example.net', 'day-three@example.net'];
const TESTER = 'day-tester@example.net';

beforeAll(async () => {
  site = createServer((request, response) => {
    arrivals.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!DOCTYPE html><title>The story</title><h1>The whole story</h1>');
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  siteRoot = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  service = await startLocalService();
  browser = await launchChromium();
  // An admin does the whole day: lists and imports are admin work, issues anybody's.
  editor = await addPerson(service.stack, 'day-admin@example.org', 'admin');
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.stop();
  site?.close();
});

describe('[console.pages] the editor’s day in the console', () => {
  let listId = 0;
  let issuePath = '';

  it('signs in with the temporary password, choosing a new one', async () => {
    // On a phone: the sign-in pages fit 375 px too.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(service.stack.consoleUrl);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await overflowsSideways(page)).toBe(false);
    await signIn(page, editor.email, editor.temporaryPassword, 'Day-Password-2026!');
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page, 'the issues page');
  });

  it('creates a list', async () => {
    await openSection(page, 'Lists');
    await page.getByLabel("New list's name").fill(LIST);
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByText(`Created ${LIST}.`).waitFor();
    const row = page.getByRole('row', { name: new RegExp(LIST) });
    listId = Number(await row.getByRole('cell').first().textContent());
    expect(listId).toBeGreaterThan(0);
    await expectAccessible(page, 'the lists page');
  });

  it('imports three subscribers from a CSV, with progress', async () => {
    await openSection(page, 'Subscribers');
    await expectAccessible(page, 'the subscribers page');
    await page.getByRole('link', { name: 'Import a CSV' }).click();
    await page.getByRole('heading', { name: 'Import subscribers' }).waitFor();
    const csv = `email,name,lists,status\n${READERS.map((email, n) => `${email},Reader ${n + 1},${listId},C`).join('\n')}\n`;
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import' }).click();
    await page
      .getByText('Imported 3, already subscribed 0 (left as they were), rejected 0.')
      .waitFor();
    await expectAccessible(page, 'the import page');
  });

  // [console.preview]
  it('writes an issue and previews it at phone width', async () => {
    await openSection(page, 'Issues');
    await page.getByRole('link', { name: 'Write a new issue' }).click();
    await page.getByRole('heading', { name: 'New issue' }).waitFor();
    await page.getByLabel('Subject').fill(SUBJECT);
    await page.getByRole('checkbox', { name: LIST }).check();
    const html = page.getByLabel('HTML', { exact: true });
    // A tag the renderer does not know: the API refuses, and the page says so at the HTML.
    await html.fill('<p>Hello {nmae}</p>');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await soon(() => page.locator('#html-error').textContent()).toMatch(/\{nmae\} is not a tag/);
    expect(await html.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'the issue editor with a refusal');
    await html.fill(
      `<!DOCTYPE html><html><head><style>h1 { color: rgb(200, 30, 30) }</style></head><body><h1>Hello `,
    );
    // The tag buttons put a tag where the cursor is.
    await page.getByRole('button', { name: '{name}' }).click();
    await html.press('End');
    await html.pressSequentially(
      `</h1><p><a id="story" href="${siteRoot}/story?from=console">Read the whole story</a></p><script>document.body.dataset.ran = 'yes'</script></body></html>`,
    );
    const phone = page.getByRole('radio', { name: /Phone/ });
    // Scrolled to first: a click Playwright scrolls to itself here lands while the page moves.
    await phone.scrollIntoViewIfNeeded();
    await phone.check();

    const frame = page.frameLocator('iframe.preview-frame');
    await soon(() => frame.locator('h1').textContent()).toBe('Hello {name}');
    expect((await page.locator('iframe.preview-frame').boundingBox())?.width).toBe(375);
    // The issue's own style block applies inside the preview; its script does not run.
    const preview = page.frames().find((each) => each.url().endsWith('/preview.html'));
    expect(
      await preview?.evaluate<string>('getComputedStyle(document.querySelector("h1")).color'),
    ).toBe('rgb(200, 30, 30)');
    expect(await frame.locator('body').getAttribute('data-ran')).toBeNull();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await page.locator('#html-error').count()).toBe(0);
    await expectAccessible(page, 'the issue editor');
    await page.getByRole('link', { name: /Go to the issue/ }).click();
    await page.getByRole('heading', { level: 1, name: SUBJECT }).waitFor();
    issuePath = new URL(page.url()).pathname;
    expect(issuePath).toMatch(/^\/issues\/\d+$/);
    await expectAccessible(page, 'a draft issue');
  });

  it('tests it', async () => {
    await page.getByLabel(/Addresses/).fill(TESTER);
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText(`Test sent to ${TESTER}.`).waitFor();
    await soon(async () => (await service.mails(TESTER)).length, 20_000).toBe(1);
  });

  it('sends it after seeing the recipient count, and watches it reach sent', async () => {
    await page.getByRole('button', { name: 'Prepare to send' }).click();
    await page.getByText('This issue goes to 3 subscribers now.').waitFor();
    await expectAccessible(page, 'the send confirmation');
    await page.getByRole('button', { name: 'Send to 3 subscribers' }).click();
    await page.locator('[data-status="sent"]').waitFor({ timeout: 60_000 });
    await soon(() => page.locator('dd[data-count="sent"]').textContent()).toBe('3');
    await expectAccessible(page, 'a sent issue’s report');
  });

  it('counts the open and the click of a mail opened in the mail viewer', async () => {
    const viewer = await context.newPage();
    await viewer.goto(service.ses.viewerUrl);
    const article = viewer.locator('article', { hasText: SUBJECT }).filter({ hasText: READERS[0] });
    const [pixel] = await Promise.all([
      viewer.waitForResponse((response) => response.url().includes('/track/open/')),
      article.getByRole('link', { name: 'HTML part' }).click(),
    ]);
    expect(pixel.status()).toBe(200);
    await Promise.all([
      viewer.waitForURL(`${siteRoot}/story?from=console`),
      viewer.locator('#story').click(),
    ]);
    expect(arrivals).toContain('/story?from=console');
    await viewer.close();
    await service.stack.settled();

    await page.bringToFront();
    await soon(async () => {
      await page.getByRole('button', { name: 'Reload the report' }).click();
      return page.locator('dd[data-count="clicked"]').textContent();
    }, 20_000).toMatch(/^1 /);
    expect(await page.locator('dd[data-count="opened"]').textContent()).toMatch(/^1 /);
    const links = page.getByRole('region', { name: 'Top links' });
    expect(await links.getByRole('row').nth(1).textContent()).toBe(
      `${siteRoot}/story?from=console1`,
    );
    await soon(() =>
      page.getByRole('img', { name: /Opens and clicks per hour/ }).getAttribute('aria-label'),
    ).toMatch(/1 opens and 1 clicks/);
    await expectAccessible(page, 'the report with opens and clicks');
  });

  it('downloads the recipients as CSV', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the recipients as CSV' }).click(),
    ]);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('email,subscriber_id,outcome,at,message_id');
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[0])
        .sort(),
    ).toEqual([...READERS].sort());
    await page.getByText(/The CSV is downloaded/).waitFor();
    await expectAccessible(page, 'the report after the download');
  });

  it('works at 375 px wide on every page of the day', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [name, heading] of [
      ['Issues', 'Issues'],
      ['Lists', 'Lists'],
      ['Subscribers', 'Subscribers'],
    ] as const) {
      await openSection(page, name, heading);
      expect(await overflowsSideways(page), name).toBe(false);
      await expectAccessible(page, `${name} at 375 px`);
    }
    await openSection(page, 'Issues');
    await page.getByRole('link', { name: 'Write a new issue' }).click();
    await page.getByRole('heading', { level: 1, name: 'New issue' }).waitFor();
    expect(await overflowsSideways(page)).toBe(false);
    await expectAccessible(page, 'the issue editor at 375 px');
    await openSection(page, 'Issues');
    await page.getByRole('link', { name: SUBJECT }).click();
    await page.getByRole('heading', { level: 1, name: SUBJECT }).waitFor();
    expect(await overflowsSideways(page)).toBe(false);
    await expectAccessible(page, 'the report at 375 px');
    expect(service.stack.denials).toEqual([]);
  });
});
