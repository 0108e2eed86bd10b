/**
 * Driving the web console in Chromium: axe-core on every page a test opens, signing in
 * through the console's own pages, and the few reads a test makes of a page.
 */
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { LOCAL_REGION } from '../../../infra/local/cloud/intrinsics.ts';

/** What axe reports of one rule a page breaks. */
interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * Runs axe-core on the page as it is now and fails on any serious or critical violation. The
 * source is evaluated over the DevTools protocol, which the page's CSP does not govern, so the
 * console is checked under its real policy.
 */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  // In-page expressions are strings: this project compiles without the DOM library.
  const violations = (await page.evaluate(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((result) => result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    })))`)) as AxeViolation[];
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(grave, `axe on ${where}`).toEqual([]);
}

/** Whether the page is wider than its viewport (a page that works at 375 px does not scroll sideways). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate(
    'document.documentElement.scrollWidth > document.documentElement.clientWidth',
  )) as boolean;
}

/**
 * Signs in on the console's sign-in page; with `newPassword`, answers the first sign-in's
 * challenge (a temporary password) with it. Ends on the page of the address opened (the
 * issues for `/`), whose heading is `landing`.
 */
export async function signIn(
  page: Page,
  email: string,
  password: string,
  newPassword?: string,
  landing = 'Issues',
): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await expectAccessible(page, 'the sign-in page');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (newPassword !== undefined) {
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await expectAccessible(page, 'the new-password challenge');
    await page.getByLabel('New password').fill(newPassword);
    await page.getByLabel('The same again').fill(newPassword);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
  }
  await page.getByRole('heading', { level: 1, name: landing, exact: true }).waitFor();
}

/** Goes to a console page by its navigation link, and checks it with axe once it settled. */
export async function openSection(page: Page, name: string, heading = name): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
}

/** Someone an admin added: their address and the temporary password they were given. */
export interface NewPerson {
  readonly email: string;
  readonly temporaryPassword: string;
}

/**
 * Adds a person to the local stack's user pool with a temporary password, as an admin's
 * AdminCreateUser does (the first sign-in then asks for a password of their own).
 */
export async function addPerson(
  stack: {
    readonly cognito: { readonly endpoint: string };
    readonly people: { readonly userPoolId: string };
  },
  email: string,
  role: 'admin' | 'editor',
): Promise<NewPerson> {
  const client = new CognitoIdentityProviderClient({
    endpoint: stack.cognito.endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
  const temporaryPassword = `Temp-${Math.random().toString(36).slice(2, 10)}-9!`;
  try {
    await client.send(
      new AdminCreateUserCommand({
        UserPoolId: stack.people.userPoolId,
        Username: email,
        TemporaryPassword: temporaryPassword,
        MessageAction: 'SUPPRESS',
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
        ],
      }),
    );
    await client.send(
      new AdminAddUserToGroupCommand({
        UserPoolId: stack.people.userPoolId,
        Username: email,
        GroupName: role,
      }),
    );
  } finally {
    client.destroy();
  }
  return { email, temporaryPassword };
}

/** Polls until the page shows what is expected: pages load from the API, so not at once. */
export function soon<T>(read: () => Promise<T> | T, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 200 });
}
