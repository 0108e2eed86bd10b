/**
 * An issue's controls in the web console, in Chromium against the local stack with a slow,
 * small SES account (1 mail a second, 15 a day): schedule a draft for a date, time and zone
 * and take it back; copy it; send it past the quota warning; watch the live view (sent, rate,
 * time left); pause, resume and cancel it ([console.pages]). An admin imports the readers; an
 * editor does the rest, as the roles mean it.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../e2e/support/local-service.ts';
import { launchChromium } from './support/chromium.ts';
import { addPerson, expectAccessible, openSection, signIn, soon } from './support/console.ts';

let service: LocalService;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const SUBJECT = 'Console controls issue';
/** More readers than the day's quota, so the send shows the warning and lasts 20 s. */
const READERS = Array.from({ length: 20 }, (_, n) => `controls-${n + 1}@example.net`);

beforeAll(async () => {
  service = await startLocalService({ sesMaxSendRate: 1, sesMax24HourSend: 15 });
  browser = await launchChromium();
  const admin = await addPerson(service.stack, 'controls-admin@example.org', 'admin');
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  page = await context.newPage();
  await page.goto(service.stack.consoleUrl);
  await signIn(page, admin.email, admin.temporaryPassword, 'Controls-Password-2026!');
  // The readers, on the demo list Events (4), through the import page.
  await openSection(page, 'Subscribers');
  await page.getByRole('link', { name: 'Import a CSV' }).click();
  const csv = `email,lists,status\n${READERS.map((email) => `${email},4,C`).join('\n')}\n`;
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByText(/^Imported 20,/).waitFor();
  // An editor does the rest: issues are an editor's work.
  const editor = await addPerson(service.stack, 'controls-editor@example.org', 'editor');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, editor.email, editor.temporaryPassword, 'Controls-Editor-2026!');
  // The draft.
  await openSection(page, 'Issues');
  await page.getByRole('link', { name: 'Write a new issue' }).click();
  await page.getByLabel('Subject').fill(SUBJECT);
  await page.getByRole('checkbox', { name: 'Events' }).check();
  await page.getByLabel('HTML', { exact: true }).fill('<p>Hello {name}</p>');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.getByRole('link', { name: /Go to the issue/ }).click();
  await page.getByRole('heading', { level: 1, name: SUBJECT }).waitFor();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.stop();
});

const status = () => page.locator('[data-status]').first().getAttribute('data-status');

describe('an issue’s controls in the console ([console.pages])', () => {
  it('schedules the draft for a date, time and zone, and takes it back', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Date', { exact: true }).fill(tomorrow);
    await page.getByLabel('Time', { exact: true }).fill('09:00');
    await page.getByLabel('Time zone').selectOption('Europe/Amsterdam');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await soon(status).toBe('scheduled');
    // 09:00 in Amsterdam is 08:00 UTC in winter, 07:00 in summer (the browser runs in UTC).
    expect(await page.getByText(/starts /).textContent()).toMatch(/starts .*\b[78]:00:00\sAM/);
    await expectAccessible(page, 'a scheduled issue');

    await page.getByRole('button', { name: /Unschedule/ }).click();
    await soon(status).toBe('draft');
  });

  it('copies it into a new draft', async () => {
    const original = page.url();
    await page.getByRole('button', { name: 'Copy into a new draft' }).click();
    await page.getByRole('heading', { level: 1, name: /^Edit issue \d+$/ }).waitFor();
    expect(page.url()).not.toBe(original);
    await soon(() => page.getByLabel('Subject').inputValue()).toContain(SUBJECT);
    await page.goto(original);
    await signIn(page, 'controls-editor@example.org', 'Controls-Editor-2026!', undefined, SUBJECT);
  });

  it('sends past the quota warning, shows the live view, pauses, resumes and cancels', async () => {
    await page.getByRole('button', { name: 'Prepare to send' }).click();
    await page.getByText('This issue goes to 20 subscribers now.').waitFor();
    expect(await page.locator('.warning').textContent()).toMatch(/quota/i);
    await expectAccessible(page, 'the send confirmation over the quota');
    await page.getByRole('button', { name: 'Send anyway, over the quota' }).click();

    await soon(status).toBe('sending');
    await page.getByRole('heading', { name: 'Sending' }).waitFor();
    await soon(
      async () => Number(await page.locator('dd[data-live="sent"]').textContent()),
      30_000,
    ).toBeGreaterThan(1);
    await soon(() => page.getByText(/per second/).count(), 20_000).toBe(1);
    await expectAccessible(page, 'the live view');

    await page.getByRole('button', { name: 'Pause' }).click();
    await soon(status).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await soon(status).toBe('sending');
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    await soon(status).toBe('cancelled');
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    const sent = Number(await page.locator('dd[data-count="sent"]').textContent());
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(20);
    await expectAccessible(page, 'a cancelled issue');
  }, 90_000);
});
