/**
 * Opens and clicks in a real browser ([engagement.local]): a campaign mail the local SES
 * tracked is opened in the mail viewer in Chromium, which loads its images as a mail client
 * does (so SES's pixel reports an open), and a link in it is clicked (so SES's redirect reports
 * a click and sends the browser on). The link arrives at its real address, a page of the
 * test's own; the report counts 1 open and 1 click for that link. In `counts` (the default)
 * the console's page of that subscriber shows the issue, and not when they opened or clicked it.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CampaignOperator, campaignOperator } from '../e2e/support/campaign-operator.ts';
import { type LocalService, startLocalService } from '../e2e/support/local-service.ts';
import { launchChromium } from './support/chromium.ts';
import { addPerson, expectAccessible, openSection, signIn } from './support/console.ts';

let service: LocalService;
let operator: CampaignOperator;
let browser: Browser;
/** The links' real address: a site of the test's own, which records who arrived. */
let site: Server;
let siteRoot = '';
const arrivals: string[] = [];

const SUBJECT = 'Browser opens and clicks';
const READER = 'browser-engaged@example.net';
let id = 0;

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
  operator = await campaignOperator(service);
  browser = await launchChromium();
  await operator.add(READER, [4]);
  id = await operator.createIssue(SUBJECT, [4]);
  const file = join(tmpdir(), `engagement-browser-${process.pid}.html`);
  await writeFile(
    file,
    `<!DOCTYPE html><html><body><h1>Hello {name}</h1>
<p><a id="story" href="${siteRoot}/story?from=newsletter">Read the whole story</a></p>
<p><a href="${siteRoot}/other">Something else</a></p>
<p><a href="{unsubscription_url}">Unsubscribe</a></p></body></html>`,
  );
  await operator.cliOk('newsletters', 'edit', String(id), '--html', file);
  await operator.cliOk('newsletters', 'send', String(id));
  await service.stack.settled();
  expect(await operator.mailsOf(SUBJECT)).toHaveLength(1);
});

afterAll(async () => {
  await browser?.close();
  await operator?.close();
  await service?.stop();
  site?.close();
});

describe('[engagement.local] a campaign mail opened and clicked in the mail viewer', () => {
  it('counts 1 open and 1 click for the link, which arrives at its real address', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
    const page = await context.newPage();
    // Arrange: the viewer's list, as a person opens it.
    await page.goto(service.ses.viewerUrl);
    const article = page.locator('article', { hasText: SUBJECT });

    // Act: open the mail (its HTML part: images load, the pixel among them) ...
    const [pixel] = await Promise.all([
      page.waitForResponse((response) => response.url().includes('/track/open/')),
      article.getByRole('link', { name: 'HTML part' }).click(),
    ]);
    expect(pixel.status()).toBe(200);
    // ... and click the link in it.
    await Promise.all([
      page.waitForURL(`${siteRoot}/story?from=newsletter`),
      page.locator('#story').click(),
    ]);

    // Assert: the browser is at the real address, and the report counts the open and click.
    expect(await page.locator('h1').textContent()).toBe('The whole story');
    // Chromium asks the site for its favicon too.
    expect(arrivals.filter((path) => path !== '/favicon.ico')).toEqual(['/story?from=newsletter']);
    await service.stack.settled();
    const report = JSON.parse(await operator.cliOk('newsletters', 'report', String(id), '--json'));
    expect(report.engagement).toMatchObject({
      opened: 1,
      clicked: 1,
      clicks: 1,
      links: [{ url: `${siteRoot}/story?from=newsletter`, clicks: 1 }],
    });
    expect(service.stack.denials).toEqual([]);
    await context.close();
  });
});

describe('[engagement.modes] the console in counts', () => {
  it('shows the issue a subscriber got, and not when they opened or clicked it', async () => {
    const admin = await addPerson(service.stack, 'engagement-admin@example.org', 'admin');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(service.stack.consoleUrl);
    await signIn(page, admin.email, admin.temporaryPassword, 'Admin-Password-2026!');
    await openSection(page, 'Subscribers');
    await page.getByLabel('Address starts with').fill(READER);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: READER }).click();
    await page.getByRole('heading', { level: 1, name: READER }).waitFor();
    const got = page.getByRole('region', { name: 'Issues they got' });
    const issue = got.getByRole('listitem').filter({ hasText: SUBJECT });
    await issue.waitFor();
    // The reader opened and clicked it (above): counts keeps no one's opens or clicks.
    expect(await issue.textContent()).toMatch(/: sent, /);
    expect(await issue.textContent()).not.toMatch(/opened|clicked/);
    expect(await got.textContent()).toContain('shows only while tracking is individual');
    await expectAccessible(page, 'a subscriber in counts');
    await context.close();
  });
});
