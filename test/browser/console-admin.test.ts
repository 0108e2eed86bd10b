/**
 * The admin's day in the web console, in Chromium against the local stack: find a subscriber
 * by address, change their lists, delete them; add a person as editor on the People page
 * (the temporary password shown once) and see, signed in as that editor, that the navigation
 * has no admin page and that the settings' address says they may not open it
 * ([console.admin-pages]). axe-core checks every page on the way ([console.pages]).
 */
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CampaignOperator, campaignOperator } from '../e2e/support/campaign-operator.ts';
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
let operator: CampaignOperator;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let admin: NewPerson;
let editorPassword = '';

const SUBSCRIBER = 'admin-day-member@example.net';
const EDITOR = 'admin-day-editor@example.org';

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  browser = await launchChromium();
  // The demo lists: 1 Weekly digest, 2 Product updates, 3 Beta testers, 4 Events.
  await operator.add('admin-day-other@example.net', [1]);
  await operator.add(SUBSCRIBER, [1, 2]);
  admin = await addPerson(service.stack, 'admin-day@example.org', 'admin');
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  await page.goto(service.stack.consoleUrl);
  await signIn(page, admin.email, admin.temporaryPassword, 'Admin-Password-2026!');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await operator?.close();
  await service?.stop();
});

describe('the admin’s day in the console ([console.pages])', () => {
  it('reaches a section with the keyboard alone, starting at the skip link', async () => {
    // Each page focuses its heading; back from there, the first stop is the skip link.
    const focused = () => page.evaluate<string>('document.activeElement.textContent');
    for (let tabs = 0; tabs < 12 && (await focused()) !== 'Skip to content'; tabs++) {
      await page.keyboard.press('Shift+Tab');
    }
    expect(await focused()).toBe('Skip to content');
    // Tab on through the navigation to Subscribers, and open it with Enter.
    for (let tabs = 0; tabs < 10 && (await focused()) !== 'Subscribers'; tabs++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Subscribers' }).waitFor();
    // Focus is on the new page's heading, not left on the link.
    expect(await page.evaluate<string>('document.activeElement.tagName')).toBe('H1');
  });

  it('finds a subscriber by address and changes their lists', async () => {
    await openSection(page, 'Subscribers');
    await page.getByLabel('Address starts with').fill('admin-day-mem');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/search=admin-day-mem/);
    const rows = page.getByRole('region', { name: 'Subscribers table' }).getByRole('row');
    await soon(() => rows.count()).toBe(2);
    await expectAccessible(page, 'the subscribers found');
    await page.getByRole('link', { name: SUBSCRIBER }).click();
    await page.getByRole('heading', { level: 1, name: SUBSCRIBER }).waitFor();
    await expectAccessible(page, 'one subscriber');

    await page.getByRole('checkbox', { name: 'Product updates' }).uncheck();
    await page.getByRole('checkbox', { name: 'Events' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();

    // The page shows the lists as saved, and so does the table.
    await soon(() => page.getByRole('checkbox', { name: 'Events' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Product updates' }).isChecked()).toBe(false);
    expect((await service.subscriber(SUBSCRIBER))?.lists).toEqual([1, 4]);
  });

  it('deletes them, after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete…' }).click();
    // Focus moves into the question.
    await soon(() =>
      page.evaluate<string>('document.activeElement.getAttribute("aria-label")'),
    ).toBe('Confirm the deletion');
    await expectAccessible(page, 'the deletion question');
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByText(`Deleted ${SUBSCRIBER}.`).waitFor();
    expect(await service.subscriber(SUBSCRIBER)).toBeUndefined();
    await expectAccessible(page, 'the subscribers after a deletion');
  });

  it('shows the settings and the SES account', async () => {
    await openSection(page, 'Settings');
    await page.getByText('Daily quota').waitFor();
    await page.getByLabel(/The settings as JSON/).waitFor();
    expect(await page.locator('[data-state]').count()).toBe(2);
    await expectAccessible(page, 'the settings page');
  });

  it('adds a person as editor, showing the temporary password once', async () => {
    await openSection(page, 'People');
    await expectAccessible(page, 'the people page');
    await page.getByLabel('Email address').fill(EDITOR);
    await page.getByLabel('Role').selectOption('editor');
    await page.getByRole('button', { name: 'Add person' }).click();
    const shown = page.locator('code[data-temporary-password]');
    await shown.waitFor();
    editorPassword = (await shown.textContent()) ?? '';
    expect(editorPassword.length).toBeGreaterThanOrEqual(8);
    await soon(() =>
      page
        .getByRole('region', { name: 'People table' })
        .getByRole('row', { name: new RegExp(EDITOR) })
        .count(),
    ).toBe(1);
    await expectAccessible(page, 'the people page with a person added');
  });

  it('exports the subscribers as one CSV file', async () => {
    await openSection(page, 'Subscribers');
    await page.getByRole('link', { name: 'Export as CSV' }).click();
    await page.getByRole('heading', { level: 1, name: 'Export subscribers' }).waitFor();
    await expectAccessible(page, 'the export page');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export as CSV' }).click(),
    ]);
    const lines = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    expect(lines[0]?.startsWith('id,email,')).toBe(true);
    expect(lines.some((line) => line.includes('admin-day-other@example.net'))).toBe(true);
    expect(lines.some((line) => line.includes(SUBSCRIBER))).toBe(false);
    await page.getByText(/Exported \d+ lines/).waitFor();
  });

  it('works at 375 px wide on the admin pages', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const name of ['Subscribers', 'Settings', 'People']) {
      await openSection(page, name);
      await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
      expect(await overflowsSideways(page), name).toBe(false);
      await expectAccessible(page, `${name} at 375 px`);
    }
    await openSection(page, 'Subscribers');
    await page.getByRole('link', { name: 'admin-day-other@example.net' }).click();
    await page.getByRole('heading', { level: 1, name: 'admin-day-other@example.net' }).waitFor();
    await page.getByText('Issues they got').waitFor();
    expect(await overflowsSideways(page)).toBe(false);
    await expectAccessible(page, 'a subscriber at 375 px');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('[console.admin-pages] lets the editor see no admin page, and says so at its address', async () => {
    // A typed address loads the console anew: the session was in memory, so it signs in again.
    await page.goto(new URL('/settings', service.stack.consoleUrl).href);
    await signIn(page, EDITOR, editorPassword, 'Editor-Password-2026!', 'Not allowed');
    await soon(() => page.getByRole('alert').textContent()).toMatch(
      /You may not open this page: it is for admins, and you are signed in as an editor/,
    );
    await expectAccessible(page, 'the page an editor may not open');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Issues', 'Lists']);
    // An editor reads the lists and changes none of them.
    await openSection(page, 'Lists');
    expect(await page.getByRole('button', { name: 'Create list' }).count()).toBe(0);
    await expectAccessible(page, 'the lists as an editor sees them');
  });

  it('signs out, and offers a reset of a forgotten password by a mailed code', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email address').fill(EDITOR);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByText('If the address has an account, a code is on its way to it.').waitFor();
    await page.getByLabel('Code from the mail').waitFor();
    await expectAccessible(page, 'the password reset');
  });
});
