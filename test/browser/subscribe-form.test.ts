/**
 * A plain HTML subscription form on another site, filled in and submitted by a real browser
 * (interface 4.1 rule 4: `lists[]` in HTML forms; decisions part 1: urlencoded and multipart).
 * The form page comes from a tiny local server, so the POST is a genuine cross-site form
 * submission, encoded by Chromium itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../e2e/support/local-service.ts';
import { launchChromium } from './support/chromium.ts';

let service: LocalService;
let browser: Browser;
let site: Server;
let siteRoot: string;
let page: Page;

/** The form as a site owner would paste it; `enctype` absent means urlencoded. */
function formPage(apiRoot: string, enctype: string | undefined): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Join our newsletter</title></head>
<body>
<form method="post" action="${apiRoot}/subscribe"${enctype ? ` enctype="${enctype}"` : ''}>
  <p><label for="email">E-mail</label> <input id="email" type="email" name="email" required></p>
  <p><label for="name">Name</label> <input id="name" type="text" name="name"></p>
  <fieldset>
    <legend>Lists</legend>
    <label><input type="checkbox" name="lists[]" value="1"> Weekly digest</label>
    <label><input type="checkbox" name="lists[]" value="4"> Events</label>
  </fieldset>
  <input type="text" name="nl_website" value="" hidden tabindex="-1" autocomplete="off">
  <button type="submit" name="submit" value="subscribe">Subscribe</button>
</form>
</body>
</html>`;
}

beforeAll(async () => {
  service = await startLocalService();
  browser = await launchChromium();
  site = createServer((request, response) => {
    const enctype = request.url === '/multipart' ? 'multipart/form-data' : undefined;
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(formPage(service.apiRoot, enctype));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteRoot = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  await service?.stop();
});

afterEach(async () => {
  await page?.context().close();
});

let counter = 0;
function address(tag: string): string {
  counter += 1;
  return `${tag}-${counter}@example.com`;
}

/** Fills the form like a person and submits it by clicking; returns the API's answer. */
async function fillAndSubmit(formPath: string, email: string, name: string) {
  page = await (await browser.newContext()).newPage();
  await page.goto(`${siteRoot}${formPath}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Weekly digest').check();
  await page.getByLabel('Events').check();
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url() === `${service.apiRoot}/subscribe`),
    page.getByRole('button', { name: 'Subscribe' }).click(),
  ]);
  return response;
}

describe('an HTML form posting to {api_root}/subscribe', () => {
  it.each([
    ['/urlencoded', /^application\/x-www-form-urlencoded/, 'lists%5B%5D=1&lists%5B%5D=4'],
    ['/multipart', /^multipart\/form-data; boundary=/, 'name="lists[]"'],
  ])(
    '%s: the ticked lists[] and the pre-assigned list are stored',
    async (formPath, type, marker) => {
      const email = address(`form${formPath.slice(1)}`);
      const response = await fillAndSubmit(formPath, email, 'Zoë Ünal');

      // Chromium encoded the form itself, the way the page asked for.
      const request = response.request();
      expect(request.method()).toBe('POST');
      expect(await request.headerValue('content-type')).toMatch(type);
      expect(request.postData()).toContain(marker);

      expect(response.status()).toBe(200);
      expect(await response.json()).toEqual({ email, status: 'pending' });
      expect(await page.textContent('body')).toContain('"status":"pending"');

      const stored = await service.subscriber(email);
      expect(stored).toMatchObject({ email, name: 'Zoë Ünal', status: 'S' });
      // Ticked 1 and 4; 2 is pre-assigned by the settings; 3 (private) was not on the form.
      expect(stored?.lists).toEqual([1, 2, 4]);
      expect(await service.mails(email)).toHaveLength(1);
    },
  );

  it('an invalid address typed past the browser check gets a JSON 400 the page can show', async () => {
    page = await (await browser.newContext()).newPage();
    await page.goto(`${siteRoot}/urlencoded`);
    // Skip the browser's own validation, as an old browser or a script would.
    // A string: this project compiles without the DOM library.
    await page.evaluate("document.querySelector('form').noValidate = true");
    await page.getByLabel('E-mail').fill('not an address');
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.url() === `${service.apiRoot}/subscribe`),
      page.getByRole('button', { name: 'Subscribe' }).click(),
    ]);
    expect(response.status()).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_email', data: { status: 400 } });
  });
});
