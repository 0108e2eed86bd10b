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
import { expectAccessible } from './support/console.ts';

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

// What the console's editor saves: a fragment, which the web version puts in a page of ours.
const FRAGMENT_HTML =
  '<h1>Autumn news</h1><p>Hello {name}.</p><p><a href="{unsubscription_url}">Unsubscribe</a></p>';
const FRAGMENT_SUBJECT = 'Browser web version of a fragment';
let fragmentLink = '';

/** The "view in your browser" link of the campaign mail of `subject`. */
async function viewLinkOf(subject: string): Promise<string> {
  const [mail] = await operator.mailsOf(subject);
  const link = /View this newsletter in your browser: (\S+)/.exec(mail?.body.text ?? '')?.[1];
  if (!link) throw new Error(`no web version link in the campaign mail of ${subject}`);
  return link;
}

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
  const fragment = await operator.createIssue(FRAGMENT_SUBJECT, [4]);
  await writeFile(file, FRAGMENT_HTML);
  await operator.cliOk('newsletters', 'edit', String(fragment), '--html', file);
  await operator.cliOk('newsletters', 'send', String(fragment));
  await service.stack.settled();
  viewLink = await viewLinkOf(SUBJECT);
  fragmentLink = await viewLinkOf(FRAGMENT_SUBJECT);
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

  it('puts an issue written as a fragment in an accessible page: a language, a main landmark, every part in a region', async () => {
    const { page } = await openPage();

    const shown = await page.goto(fragmentLink);

    expect(shown?.status()).toBe(200);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('main h1').textContent()).toBe('Autumn news');
    // axe-core runs no check in the served page, whose sandbox policy allows no script: the
    // same document is checked in a page of its own.
    const copy = await (context as BrowserContext).newPage();
    await copy.setContent((await shown?.text()) ?? '');
    await expectAccessible(copy, 'the web version of a fragment');
    // The rules of lesser impact that expectAccessible lets pass, by name.
    const broken = (await copy.evaluate(`axe
      .run(document, { runOnly: ['html-has-lang', 'landmark-one-main', 'region'] })
      .then((result) => result.violations.map((v) => v.id))`)) as string[];
    expect(broken).toEqual([]);
  });

  it('finds a favicon where a browser asks for one, on the web version’s origin', async () => {
    const { page } = await openPage();
    await page.goto(fragmentLink);

    const icon = await page.request.get(new URL('/favicon.ico', fragmentLink).href);

    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/x-icon');
    // An ICO file's header: reserved 0, type 1 (icon).
    expect([...(await icon.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  });
});
