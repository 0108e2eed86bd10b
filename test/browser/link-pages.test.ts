/**
 * The pages behind the links in mails, in a real browser: the activation link from the mail
 * the local SES stored is opened in Chromium, the button is pressed, and the subscriber is
 * confirmed; the same on a phone-sized screen, and the unsubscribe page (decisions part 4).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, linksIn, startLocalService } from '../e2e/support/local-service.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { launchChromium } from './support/chromium.ts';

let service: LocalService;
let browser: Browser;
let context: BrowserContext | undefined;
let screenshots: string;
/** Console errors (a CSP violation among them) of the current page. */
let consoleErrors: string[];
// In-page expressions are strings: this project compiles without the DOM library.

beforeAll(async () => {
  service = await startLocalService();
  browser = await launchChromium();
  screenshots = await mkdtemp(join(tmpdir(), 'newsletter-browser-'));
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (screenshots) await rm(screenshots, { recursive: true, force: true });
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  service.resetSettings();
});

/** A fresh address per call, so tests never see each other's subscribers. */
const address = freshAddresses();

async function openPage(options: BrowserContextOptions = {}): Promise<Page> {
  context = await browser.newContext(options);
  const page = await context.newPage();
  consoleErrors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  return page;
}

/** Subscribes `email` through the API and returns the confirm link of its activation mail. */
async function confirmLinkFor(email: string): Promise<string> {
  const answer = await service.post('/subscribe', { email, name: 'Grace' });
  expect(answer.status).toBe(200);
  const [mail] = await service.mails(email);
  const link = mail && linksIn(mail).confirm;
  if (!link) throw new Error(`no confirm link mailed to ${email}`);
  return link;
}

/** Presses a page's button and waits for the page its form POST answers with. */
async function press(page: Page, name: RegExp, how: 'click' | 'tap' = 'click'): Promise<number> {
  const button = page.getByRole('button', { name });
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    how === 'tap' ? button.tap() : button.click(),
  ]);
  await page.waitForLoadState('load');
  return response.status();
}

describe('the activation link in Chromium', () => {
  it('shows an accessible page, confirms on the button, and looks like a page (screenshot)', async () => {
    const email = address('browser');
    const link = await confirmLinkFor(email);
    const page = await openPage({ viewport: { width: 1024, height: 768 } });

    const shown = await page.goto(link);
    expect(shown?.status()).toBe(200);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.title()).toBe('Confirm your subscription');
    expect(await page.locator('h1').textContent()).toBe('Confirm your subscription');
    const button = page.getByRole('button', { name: /confirm/i });
    expect(await button.count()).toBe(1);
    expect(await button.isVisible()).toBe(true);
    // The page's own stylesheet applied: the CSP pins it by hash, a mismatch would drop it.
    expect(
      await page.evaluate<string>(
        'getComputedStyle(document.querySelector("button")).backgroundColor',
      ),
    ).toBe('rgb(29, 78, 216)');
    // Opening the page confirmed nothing.
    expect((await service.subscriber(email))?.status).toBe('S');

    // The screenshot shows the page as laid out: decoded by the browser itself, the pixel at
    // the button's centre is the button's blue, the page around it is not, and the heading
    // left dark text on the light page.
    const file = join(screenshots, 'confirm-page.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = await readFile(file);
    const buttonBox = await button.boundingBox();
    const headingBox = await page.locator('h1').boundingBox();
    if (!buttonBox || !headingBox) throw new Error('button or heading not laid out');
    const probe = await context?.newPage();
    if (!probe) throw new Error('no browser context');
    const pixels = await probe.evaluate<{
      width: number;
      button: number[];
      corner: number[];
      darkInHeading: number;
    }>(`(async () => {
      const image = new Image();
      image.src = 'data:image/png;base64,${png.toString('base64')}';
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const g = canvas.getContext('2d');
      g.drawImage(image, 0, 0);
      const at = (x, y) => Array.from(g.getImageData(Math.round(x), Math.round(y), 1, 1).data).slice(0, 3);
      const row = g.getImageData(${Math.round(headingBox.x)}, ${Math.round(headingBox.y + headingBox.height / 2)}, ${Math.round(headingBox.width)}, 1).data;
      let dark = 0;
      for (let i = 0; i < row.length; i += 4) if (row[i] + row[i + 1] + row[i + 2] < 300) dark += 1;
      return {
        width: image.width,
        button: at(${buttonBox.x + 4}, ${buttonBox.y + buttonBox.height / 2}),
        corner: at(2, 2),
        darkInHeading: dark,
      };
    })()`);
    expect(pixels.width).toBe(1024);
    expect(pixels.button).toEqual([29, 78, 216]);
    expect(pixels.corner).not.toEqual(pixels.button);
    expect(
      (pixels.corner[0] ?? 0) + (pixels.corner[1] ?? 0) + (pixels.corner[2] ?? 0),
    ).toBeGreaterThan(600);
    expect(pixels.darkInHeading).toBeGreaterThan(20);
    await probe.close();

    expect(await press(page, /confirm/i)).toBe(200);
    expect(await page.title()).toBe('Subscription confirmed');
    expect(await page.locator('main').textContent()).toMatch(/subscription is confirmed/i);
    expect(page.url()).toBe(link);
    expect((await service.subscriber(email))?.status).toBe('C');
    expect(consoleErrors).toEqual([]);
  });

  it('fits a phone (375x667): a tall enough button within the width, no sideways scrolling', async () => {
    const email = address('phone');
    const link = await confirmLinkFor(email);
    const page = await openPage({
      viewport: { width: 375, height: 667 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await page.goto(link);
    const box = await page.getByRole('button', { name: /confirm/i }).boundingBox();
    if (!box) throw new Error('the button is not laid out');
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    // Wide enough to hit with a thumb.
    expect(box.width).toBeGreaterThanOrEqual(200);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      375,
    );
    const fontSize = await page.evaluate<string>('getComputedStyle(document.body).fontSize');
    expect(Number.parseFloat(fontSize)).toBeGreaterThanOrEqual(16);

    expect(await press(page, /confirm/i, 'tap')).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Subscription confirmed');
    expect((await service.subscriber(email))?.status).toBe('C');
    expect(consoleErrors).toEqual([]);
  });

  it('a dead link shows a proper 404 page without a button', async () => {
    const email = address('dead');
    const link = await confirmLinkFor(email);
    expect(
      (await service.post('/subscribers/delete', { email, api_key: service.apiKey })).status,
    ).toBe(200);
    const page = await openPage();
    const shown = await page.goto(link);
    expect(shown?.status()).toBe(404);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.title()).toBe('This link no longer works');
    expect(await page.getByRole('button').count()).toBe(0);
  });
});

describe('the unsubscribe link in Chromium', () => {
  it('shows a button and unsubscribes when it is pressed', async () => {
    service.setSettings({ opt_in: 'single' });
    const email = address('leaving');
    expect((await service.post('/subscribe', { email })).status).toBe(200);
    const [welcome] = await service.mails(email);
    const link = welcome && linksIn(welcome).unsubscribe;
    if (!link) throw new Error('no unsubscribe link in the welcome mail');

    const page = await openPage();
    expect((await page.goto(link))?.status()).toBe(200);
    expect(await page.title()).toBe('Unsubscribe');
    expect((await service.subscriber(email))?.status).toBe('C');
    expect(await press(page, /unsubscribe/i)).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('You are unsubscribed');
    expect((await service.subscriber(email))?.status).toBe('U');
    expect(consoleErrors).toEqual([]);
  });
});
