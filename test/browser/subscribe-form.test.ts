/**
 * Signup forms on another site, in a real browser (decisions part 1; interface 4.1 rule 4):
 * the page comes from a tiny local server on another origin, with the two kinds of form site
 * owners build. A plain HTML form (urlencoded or multipart, `lists[]` checkboxes) must end on
 * a page, never on JSON. A form that calls `fetch()` with a JSON body must be able to read both
 * the success and the error body (CORS). Both subscriptions arrive in the mail viewer, and the
 * activation link confirms.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, linksIn, startLocalService } from '../e2e/support/local-service.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { launchChromium } from './support/chromium.ts';
import { type FormSite, startFormSite } from './support/form-site.ts';

let service: LocalService;
let browser: Browser;
let site: FormSite | undefined;
let siteRoot: string;
let page: Page;

/** A plain form as a site owner would paste it; `enctype` absent means urlencoded. */
function plainFormPage(apiRoot: string, enctype: string | undefined): string {
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

/** A form that sends JSON with fetch() and shows what the API answered. */
function fetchFormPage(apiRoot: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Join (fetch)</title></head>
<body>
<form id="join">
  <p><label for="email">E-mail</label> <input id="email" type="text" name="email"></p>
  <button type="submit">Subscribe</button>
</form>
<p id="result"></p>
<script>
document.getElementById('join').addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = document.getElementById('email').value;
  const response = await fetch('${apiRoot}/subscribe', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, lists: [4] }),
  });
  const body = await response.json();
  document.getElementById('result').textContent =
    response.status + ' ' + (response.ok ? body.status : body.code + ': ' + body.message);
});
</script>
</body>
</html>`;
}

beforeAll(async () => {
  service = await startLocalService();
  browser = await launchChromium();
  site = await startFormSite((path) =>
    path === '/fetch'
      ? fetchFormPage(service.apiRoot)
      : plainFormPage(service.apiRoot, path === '/multipart' ? 'multipart/form-data' : undefined),
  );
  siteRoot = site.root;
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await service?.stop();
});

afterEach(async () => {
  await page?.context().close();
  service.resetSettings();
});

/** A fresh address per call, so tests never see each other's subscribers. */
const address = freshAddresses();

async function openSite(path: string): Promise<Page> {
  page = await (await browser.newContext()).newPage();
  await page.goto(`${siteRoot}${path}`);
  return page;
}

/** Opens the activation mail's link and presses the button, as the person would. */
async function confirmByMail(email: string): Promise<void> {
  const [mail] = await service.mails(email);
  const link = mail ? linksIn(mail).confirm : undefined;
  if (!link) throw new Error(`no activation link for ${email}`);
  await page.goto(link);
  await page.getByRole('button', { name: /confirm/i }).click();
  await page.waitForLoadState();
  expect(await page.title()).toBe('Subscription confirmed');
}

describe('[http.form-page] a plain HTML form on another site', () => {
  it.each([
    ['/urlencoded', /^application\/x-www-form-urlencoded/, 'lists%5B%5D=1&lists%5B%5D=4'],
    ['/multipart', /^multipart\/form-data; boundary=/, 'name="lists[]"'],
  ])(
    '%s: lands on a page, stores the ticked lists, and the mailed link confirms',
    async (path, type, marker) => {
      const email = address(`form${path.slice(1)}`);
      await openSite(path);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Name').fill('Zoë Ünal');
      await page.getByLabel('Weekly digest').check();
      await page.getByLabel('Events').check();
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.url() === `${service.apiRoot}/subscribe`),
        page.getByRole('button', { name: 'Subscribe' }).click(),
      ]);
      // Chromium encoded the form itself, the way the page asked for.
      expect(await response.request().headerValue('content-type')).toMatch(type);
      expect(response.request().postData()).toContain(marker);
      // A page, never JSON.
      expect(response.status()).toBe(200);
      expect(await response.headerValue('content-type')).toMatch(/^text\/html/);
      await page.waitForLoadState();
      expect(await page.title()).toBe('Check your inbox');
      expect(await page.locator('main').textContent()).toMatch(/sent you an e-mail/);

      const stored = await service.subscriber(email);
      expect(stored).toMatchObject({ email, name: 'Zoë Ünal', status: 'S' });
      // Ticked 1 and 4; 2 is pre-assigned by the settings; 3 (private) was not on the form.
      expect(stored?.lists).toEqual([1, 2, 4]);
      await confirmByMail(email);
      expect((await service.subscriber(email))?.status).toBe('C');
    },
  );

  it('an invalid address typed past the browser check ends on an error page with a way back', async () => {
    await openSite('/urlencoded');
    // Skip the browser's own validation, as an old browser or a script would.
    // A string: this project compiles without the DOM library.
    await page.evaluate("document.querySelector('form').noValidate = true");
    await page.getByLabel('E-mail').fill('not an address');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.waitForLoadState();
    expect(await page.title()).toBe('Your subscription did not go through');
    expect(await page.locator('main').textContent()).toMatch(/valid e-mail address/);
    await page.getByRole('link', { name: 'Back to the form' }).click();
    await page.waitForLoadState();
    // Browsers send only the origin as Referer across sites (strict-origin-when-cross-origin),
    // so the way back leads to the site that held the form.
    expect(page.url()).toBe(`${siteRoot}/`);
  });

  it("with the operator's URLs set, lands on them (303), the error code in the query", async () => {
    service.setSettings({
      form_success_url: `${siteRoot}/thanks`,
      form_error_url: `${siteRoot}/sorry`,
    });
    await openSite('/urlencoded');
    await page.getByLabel('E-mail').fill(address('redirect'));
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.waitForURL(`${siteRoot}/thanks`);
    await openSite('/urlencoded');
    await page.evaluate("document.querySelector('form').noValidate = true");
    await page.getByLabel('E-mail').fill('nope');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.waitForURL(`${siteRoot}/sorry?error=invalid_email`);
  });
});

describe('[http.cors] a fetch() form on another site', () => {
  it('reads the success body and the error body, and the mailed link confirms', async () => {
    const email = address('fetch');
    await openSite('/fetch');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.locator('#result', { hasText: '200' }).waitFor();
    expect(await page.textContent('#result')).toBe('200 pending');

    await page.getByLabel('E-mail').fill('not an address');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.locator('#result', { hasText: '400' }).waitFor();
    expect(await page.textContent('#result')).toMatch(/^400 invalid_email: /);

    expect((await service.subscriber(email))?.lists).toEqual([2, 4]);
    await confirmByMail(email);
    expect((await service.subscriber(email))?.status).toBe('C');
  });
});
