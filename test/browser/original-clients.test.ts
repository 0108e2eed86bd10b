/**
 * Clients of the original plugin in a real browser (docs/compatibility.md): a subscription form
 * the plugin embeds in a site, with only its `action` changed, and a script form that sends a
 * bearer header with its public call. The page comes from a local server on another origin.
 * The form below is written for this test in the shape of the plugin's generated form (its
 * field names and hidden fields), not copied from it.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BASELINE_SETTINGS,
  type LocalService,
  startLocalService,
} from '../e2e/support/local-service.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { launchChromium } from './support/chromium.ts';
import { type FormSite, startFormSite } from './support/form-site.ts';

let service: LocalService;
let browser: Browser;
let site: FormSite | undefined;
let siteRoot: string;
let page: Page;

/** The plugin's subscription form as a site embeds it; only `action` points at us. */
function originalFormPage(apiRoot: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Newsletter</title></head>
<body>
<div class="tnp tnp-subscription">
<form method="post" action="${apiRoot}/subscribe">
<input type="hidden" name="nlang" value="">
<input type="hidden" name="nr" value="page">
<div class="tnp-field tnp-field-firstname"><label for="tnp-name">First name</label>
<input class="tnp-name" id="tnp-name" type="text" name="nn" value=""></div>
<div class="tnp-field tnp-field-surname"><label for="tnp-surname">Last name</label>
<input class="tnp-surname" id="tnp-surname" type="text" name="ns" value=""></div>
<div class="tnp-field tnp-field-email"><label for="tnp-email">Email</label>
<input class="tnp-email" id="tnp-email" type="email" name="ne" value="" required></div>
<div class="tnp-field tnp-field-gender"><label for="tnp-gender">I'm</label>
<select name="nx" class="tnp-gender" id="tnp-gender">
<option value="n">Not specified</option><option value="f">Woman</option><option value="m">Man</option>
</select></div>
<div class="tnp-field tnp-field-checkbox tnp-field-list"><label for="nl1">
<input type="checkbox" id="nl1" name="nl[]" value="1">&nbsp;Weekly digest</label></div>
<div class="tnp-field tnp-field-checkbox tnp-field-list"><label for="nl4">
<input type="checkbox" id="nl4" name="nl[]" value="4">&nbsp;Events</label></div>
<div class="tnp-field tnp-field-profile"><label for="tnp-profile_1">City</label>
<input class="tnp-profile tnp-profile-1" id="tnp-profile_1" type="text" name="np1"></div>
<div class="tnp-field tnp-privacy-field"><label>
<input type="checkbox" name="ny" required class="tnp-privacy">&nbsp;I accept the privacy policy</label></div>
<div class="tnp-field tnp-field-button"><input class="tnp-submit" type="submit" value="Subscribe"></div>
</form>
</div>
</body>
</html>`;
}

/** A script form (React-style) that sends a bearer header with its public call. */
function bearerFormPage(apiRoot: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Join (bearer)</title></head>
<body>
<form id="join">
  <p><label for="email">E-mail</label> <input id="email" type="text" name="email"></p>
  <button type="submit">Subscribe</button>
</form>
<button id="keyed" type="button">List subscribers</button>
<p id="result"></p>
<script>
const show = (text) => { document.getElementById('result').textContent = text; };
document.getElementById('join').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const response = await fetch('${apiRoot}/subscribe', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer site-token-123' },
      body: JSON.stringify({ email: document.getElementById('email').value }),
    });
    const body = await response.json();
    show(response.status + ' ' + body.status);
  } catch (error) {
    show('failed ' + error.name);
  }
});
document.getElementById('keyed').addEventListener('click', async () => {
  try {
    const response = await fetch('${apiRoot}/subscribers', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: 'a key that must not live in a page' }),
    });
    show('read ' + response.status);
  } catch (error) {
    show('failed ' + error.name);
  }
});
</script>
</body>
</html>`;
}

beforeAll(async () => {
  service = await startLocalService();
  browser = await launchChromium();
  site = await startFormSite((path) =>
    path === '/bearer' ? bearerFormPage(service.apiRoot) : originalFormPage(service.apiRoot),
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

describe('[params.original-form-fields] an embedded form of the original', () => {
  it('with only its action changed, subscribes a person: fields, lists, profile field and privacy box', async () => {
    service.setSettings({
      profile_fields: [...(BASELINE_SETTINGS.profile_fields ?? []), { id: '1', name: 'City' }],
      required_public_fields: ['privacy'],
    });
    const email = address('original');
    await openSite('/');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel("I'm").selectOption('f');
    await page.getByLabel('Weekly digest').check();
    await page.getByLabel('Events').check();
    await page.getByLabel('City').fill('London');
    await page.getByLabel('I accept the privacy policy').check();
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.url() === `${service.apiRoot}/subscribe`),
      page.getByRole('button', { name: 'Subscribe' }).click(),
    ]);
    expect(response.request().postData()).toContain('ne=');
    expect(response.status()).toBe(200);
    await page.waitForLoadState();
    expect(await page.title()).toBe('Check your inbox');

    expect(await service.subscriber(email)).toMatchObject({
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      lists: [1, 2, 4],
      profile: { '1': 'London' },
      status: 'S',
    });
    const [mail] = await service.mails(email);
    expect(mail).toBeDefined();
  });
});

describe('[http.cors-authorization] a script form sending a bearer header', () => {
  it('passes the preflight for authorization, content-type and subscribes; a keyed route stays unreadable', async () => {
    const email = address('bearer');
    await openSite('/bearer');
    const sent: Request[] = [];
    page.on('request', (request) => {
      if (request.url() === `${service.apiRoot}/subscribe` && request.method() === 'POST') {
        sent.push(request);
      }
    });
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.locator('#result', { hasText: /\S/ }).waitFor();
    // Without Authorization in the preflight's answer the browser blocks the call, and the page
    // shows "failed TypeError" (axios: "Network Error").
    expect(await page.textContent('#result')).toBe('200 pending');
    expect(sent).toHaveLength(1);
    expect(await sent[0]?.headerValue('authorization')).toBe('Bearer site-token-123');
    expect((await service.subscriber(email))?.status).toBe('S');

    // What a browser caller of a keyed route sees: no CORS, so fetch rejects ("Failed to fetch").
    await page.getByRole('button', { name: 'List subscribers' }).click();
    await page.locator('#result', { hasText: 'failed' }).waitFor();
    expect(await page.textContent('#result')).toBe('failed TypeError');
  });
});
