/**
 * The subscription process as a person lives it, against the local service and the mails the
 * local SES stored: subscribe, activation mail, confirm page, confirmation, welcome mail with
 * RFC 8058 one-click unsubscribe, and the detours (confirming twice, dead links, resubscribing,
 * no mail, single opt-in, SES down, hostile names). Decisions parts 4 and 8.
 */
import { randomBytes } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredMail } from '../../infra/local/stand-ins/ses-local.ts';
import { rawHeader } from '../../infra/local/stand-ins/ses-local.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { freshAddresses } from '../support/fixtures.ts';
import { documentClient } from '../support/local-dynamo.ts';
import {
  type ApiResponse,
  type ErrorBody,
  type LocalService,
  linksIn,
  listUnsubscribeUrl,
  rawHeaderBlock,
  startLocalService,
  tokenOf,
} from './support/local-service.ts';

// A journey's first request starts each function's execution environment (cold starts): about
// 7 s on an idle 2-core machine, five times that beside another test run.
vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(async () => {
  await service?.stop();
});

afterEach(async () => {
  service.resetSettings();
  // A failed test must not leave the next one without mail.
  if (!(await sesAnswers())) await service.restartSes();
});

async function sesAnswers(): Promise<boolean> {
  try {
    await service.ses.messages();
    return true;
  } catch {
    return false;
  }
}

/** A fresh address per call, so tests never see each other's subscribers. */
const address = freshAddresses();

const ADMIN = 'admin@example.com';

/** What a mail is, judged by its subject (the demo settings use the default texts). */
function kindOf(mail: StoredMail): 'activation' | 'welcome' | 'admin' | 'other' {
  if (mail.subject === 'Please confirm your subscription') return 'activation';
  if (mail.subject === 'Welcome to our newsletter') return 'welcome';
  if (mail.subject === 'New confirmed subscriber') return 'admin';
  return 'other';
}

async function mailsOfKind(to: string, kind: ReturnType<typeof kindOf>): Promise<StoredMail[]> {
  return (await service.mails(to)).filter((mail) => kindOf(mail) === kind);
}

/** Admin notifications that name `email`. */
async function adminMailsAbout(email: string): Promise<StoredMail[]> {
  return (await mailsOfKind(ADMIN, 'admin')).filter((mail) => mail.body.text?.includes(email));
}

async function status(email: string): Promise<Subscriber['status'] | undefined> {
  return (await service.subscriber(email))?.status;
}

/** The one activation mail to `email` and its confirm link. */
async function activationLink(email: string): Promise<string> {
  const mails = await mailsOfKind(email, 'activation');
  expect(mails).toHaveLength(1);
  const link = mails[0] && linksIn(mails[0]).confirm;
  if (!link) throw new Error(`no confirm link in the mail to ${email}`);
  return link;
}

function expectHtml(response: ApiResponse, status: number, heading: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(response.text).toContain(`<h1>${heading}</h1>`);
}

const confirm = (link: string) => service.post(link, { token: tokenOf(link) }, { type: 'form' });

describe('double opt-in, start to finish', () => {
  it('[http.link-pages] subscribe, activation mail, confirm page, confirm, welcome and admin mails, one-click unsubscribe', async () => {
    const email = address('ada');

    // 1. The public form.
    const subscribed = await service.post('/subscribe', { email, name: 'Ada', lists: [1] });
    expect(subscribed.status).toBe(200);
    expect(subscribed.json).toEqual({ email, status: 'pending' });
    expect(await status(email)).toBe('S');

    // 2. The activation mail: a confirm link to this API, no unsubscribe headers.
    const [activation, ...others] = await service.mails(email);
    expect(others).toHaveLength(0);
    if (!activation) throw new Error('no activation mail');
    expect(kindOf(activation)).toBe('activation');
    expect(activation.from).toContain('news@example.com');
    // [mail.caller-text] A keyless sign-up's name is nobody's word until the link is confirmed.
    expect(activation.body.text).toContain('Hello there,');
    expect(activation.body.text).not.toContain('Ada');
    const link = linksIn(activation).confirm ?? '';
    expect(link.startsWith(`${service.apiRoot}/subscription/confirm?token=`)).toBe(true);
    expect(tokenOf(link)).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(activation.body.html).toContain(`href="${link}"`);
    expect(activation.raw).toBeDefined();
    expect(rawHeader(activation, 'List-Unsubscribe')).toEqual([]);
    expect(rawHeader(activation, 'List-Unsubscribe-Post')).toEqual([]);
    expect(linksIn(activation).unsubscribe).toBeUndefined();

    // 3. Opening the link shows a page with a button and changes nothing (mail scanners).
    const page = await service.get(link);
    expectHtml(page, 200, 'Confirm your subscription');
    expect(page.text).toMatch(/<form method="post"/);
    expect(page.text).toMatch(/<button type="submit">[^<]+<\/button>/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await status(email)).toBe('S');
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(0);

    // 4. Pressing the button: the form posts the token to the same URL.
    expectHtml(await confirm(link), 200, 'Subscription confirmed');
    const confirmed = await service.subscriber(email);
    expect(confirmed).toMatchObject({ status: 'C', name: 'Ada', lists: [1, 2] });

    // 5. The welcome mail carries the unsubscribe link and both RFC 8058 headers.
    const [welcome] = await mailsOfKind(email, 'welcome');
    if (!welcome) throw new Error('no welcome mail');
    // Confirmed by the owner of the address: the name they gave is theirs now.
    expect(welcome.body.text).toContain('Hello Ada,');
    const [listUnsubscribe] = rawHeader(welcome, 'List-Unsubscribe');
    expect(listUnsubscribe).toMatch(
      /^<https?:\/\/[^>\s]+\/subscription\/unsubscribe\?token=[\w-]+>$/,
    );
    expect(rawHeader(welcome, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
    const unsubscribeUrl = listUnsubscribeUrl(welcome) ?? '';
    expect(linksIn(welcome).unsubscribe).toBe(unsubscribeUrl);
    expect(unsubscribeUrl.startsWith(`${service.apiRoot}/subscription/unsubscribe?token=`)).toBe(
      true,
    );

    // 6. The administrator hears of the confirmed subscriber.
    const [admin, ...moreAdmin] = await adminMailsAbout(email);
    expect(moreAdmin).toHaveLength(0);
    expect(admin?.destination.to.join()).toContain(ADMIN);
    expect(admin?.body.text).toContain('Ada');
    // [mail.admin-no-list-unsubscribe] It is no mail to a subscriber: no unsubscribe link.
    expect(rawHeader(admin as StoredMail, 'List-Unsubscribe')).toEqual([]);
    expect(linksIn(admin as StoredMail).unsubscribe).toBeUndefined();

    // 7. The mail client's one-click unsubscribe (RFC 8058): a form POST to the header URL.
    const oneClick = await service.request('POST', unsubscribeUrl, {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectHtml(oneClick, 200, 'You are unsubscribed');
    expect(await status(email)).toBe('U');
    // Unsubscribing sends nothing further.
    expect(await service.mails(email)).toHaveLength(2);
  });

  it('the mail viewer shows the welcome mail as sent, and its one-click button unsubscribes', async () => {
    const email = address('viewer');
    await service.post('/subscribe', { email });
    const [activation] = await service.mails(email);
    await confirm(linksIn(activation as StoredMail).confirm ?? '');
    const [welcome] = await mailsOfKind(email, 'welcome');
    if (!welcome) throw new Error('no welcome mail');
    // The raw message over HTTP is the one captured as sent, headers included.
    const raw = await fetch(
      `${service.ses.endpoint}/messages/${encodeURIComponent(welcome.messageId)}.eml`,
    );
    const text = await raw.text();
    expect(text).toBe(welcome.raw);
    expect(text).toMatch(/^Message-ID: <.+>$/im);
    // The viewer page offers what a mail client's unsubscribe does: POST One-Click to the URL.
    const viewer = await (await fetch(service.ses.viewerUrl)).text();
    const action = listUnsubscribeUrl(welcome) ?? '';
    expect(viewer).toContain(`<form method="post" action="${action.replaceAll('&', '&amp;')}"`);
    const pressed = await service.request('POST', action, {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectHtml(pressed, 200, 'You are unsubscribed');
    expect(await status(email)).toBe('U');
  });

  it('the unsubscribe page shows a button on GET and unsubscribes on its POST', async () => {
    service.setSettings({ opt_in: 'single' });
    const email = address('button');
    await service.post('/subscribe', { email });
    const [welcome] = await mailsOfKind(email, 'welcome');
    const link = welcome ? linksIn(welcome).unsubscribe : undefined;
    if (!link) throw new Error('no unsubscribe link');
    const page = await service.get(link);
    expectHtml(page, 200, 'Unsubscribe');
    expect(await status(email)).toBe('C');
    expectHtml(
      await service.post(link, { token: tokenOf(link) }, { type: 'form' }),
      200,
      'You are unsubscribed',
    );
    expect(await status(email)).toBe('U');
  });

  it('confirming twice shows success both times and sends one welcome mail', async () => {
    const email = address('twice');
    await service.post('/subscribe', { email });
    const link = await activationLink(email);
    expectHtml(await confirm(link), 200, 'Subscription confirmed');
    const second = await confirm(link);
    expectHtml(second, 200, 'Subscription confirmed');
    expect(second.text).toContain('already confirmed');
    expect(await status(email)).toBe('C');
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(1);
    expect(await adminMailsAbout(email)).toHaveLength(1);
  });

  it('racing confirmations confirm once and mail once', async () => {
    const email = address('race');
    await service.post('/subscribe', { email });
    const link = await activationLink(email);
    const answers = await Promise.all([confirm(link), confirm(link), confirm(link)]);
    for (const answer of answers) expectHtml(answer, 200, 'Subscription confirmed');
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(1);
    expect(await adminMailsAbout(email)).toHaveLength(1);
  });
});

describe('dead links', () => {
  it('an expired activation link is a friendly 404 page on GET and POST, and confirms nobody', async () => {
    const email = address('expired');
    await service.post('/subscribe', { email });
    const link = await activationLink(email);
    await service.expireToken(tokenOf(link));
    const page = await service.get(link);
    expectHtml(page, 404, 'This link no longer works');
    expect(page.text).not.toContain('<form');
    expect(page.text).not.toContain(tokenOf(link));
    expectHtml(await confirm(link), 404, 'This link no longer works');
    expect(await status(email)).toBe('S');
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(0);
  });

  it('an activation lifetime from the settings is honoured (1 hour is still live)', async () => {
    service.setSettings({ activation_lifetime_hours: 1 });
    const email = address('lifetime');
    await service.post('/subscribe', { email });
    const link = await activationLink(email);
    expectHtml(await service.get(link), 200, 'Confirm your subscription');
  });

  it.each([
    ['an unknown well-formed token', randomBytes(32).toString('base64url')],
    ['a malformed token', 'abc'],
    ['a token with markup', '<script>alert(1)</script>'],
    ['an empty token', ''],
  ])('%s is a 404 page on both pages, GET and POST', async (_label, token) => {
    for (const page of ['/subscription/confirm', '/subscription/unsubscribe']) {
      const shown = await service.get(page, { token });
      expectHtml(shown, 404, 'This link no longer works');
      expect(shown.text).not.toContain('<script>');
      expectHtml(
        await service.post(page, { token }, { type: 'form' }),
        404,
        'This link no longer works',
      );
    }
  });

  it('[http.link-pages] a token sent only in the form body works, and GET changes nothing', async () => {
    const email = address('formtoken');
    await service.post('/subscribe', { email });
    const [activation] = await service.mails(email);
    const token = tokenOf(linksIn(activation as StoredMail).confirm ?? '');
    // The page's GET, even many times (mail scanners), confirms nobody.
    for (let i = 0; i < 3; i += 1) await service.get('/subscription/confirm', { token });
    expect(await status(email)).toBe('S');
    // A POST to the bare path with the token in the body only.
    expectHtml(
      await service.post('/subscription/confirm', { token }, { type: 'form' }),
      200,
      'Subscription confirmed',
    );
    expect(await status(email)).toBe('C');
  });

  it('a link page without any token is a 404 page', async () => {
    expectHtml(await service.get('/subscription/confirm'), 404, 'This link no longer works');
    expectHtml(
      await service.request('POST', '/subscription/unsubscribe', {
        body: 'List-Unsubscribe=One-Click',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      404,
      'This link no longer works',
    );
  });

  it('an activation token does not unsubscribe and an unsubscribe token does not confirm', async () => {
    const email = address('purpose');
    await service.post('/subscribe', { email });
    const confirmToken = tokenOf(await activationLink(email));
    expectHtml(
      await service.post('/subscription/unsubscribe', { token: confirmToken }, { type: 'form' }),
      404,
      'This link no longer works',
    );
    expect(await status(email)).toBe('S');
  });
});

describe('subscribing again', () => {
  it('[subscribe.newest-link] within the cooldown sends no second activation mail; after it, a new one whose link alone works', async () => {
    const email = address('again');
    await service.post('/subscribe', { email, name: 'First' });
    const firstLink = await activationLink(email);

    const again = await service.post('/subscribe', { email, name: 'Second' });
    expect(again.json).toEqual({ email, status: 'pending' });
    expect(await mailsOfKind(email, 'activation')).toHaveLength(1);
    // [subscribe.keyless-no-rewrite] A keyless call changes nothing stored before confirmation.
    expect(await service.subscriber(email)).toMatchObject({ status: 'S', name: 'First' });

    await service.ageActivations(email);
    expect((await service.post('/subscribe', { email, name: 'Third' })).status).toBe(200);
    const activations = await mailsOfKind(email, 'activation');
    expect(activations).toHaveLength(2);
    const secondLink = activations[1] ? linksIn(activations[1]).confirm : undefined;
    if (!secondLink) throw new Error('no second confirm link');
    expect(tokenOf(secondLink)).not.toBe(tokenOf(firstLink));

    // Only the newest activation link confirms.
    expectHtml(await service.get(firstLink), 404, 'This link no longer works');
    expectHtml(await confirm(firstLink), 404, 'This link no longer works');
    expect(await status(email)).toBe('S');
    expectHtml(await confirm(secondLink), 200, 'Subscription confirmed');
    expect(await status(email)).toBe('C');
    // The fields of the call whose link was confirmed are applied with it.
    expect(await service.subscriber(email)).toMatchObject({ name: 'Third' });
  });

  it('a confirmed address is left alone and gets no mail from a keyless call', async () => {
    service.setSettings({ opt_in: 'single' });
    const email = address('confirmed');
    await service.post('/subscribe', { email, name: 'Kept' });
    const before = await service.mails(email);
    expect(before).toHaveLength(1);
    const again = await service.post('/subscribe', { email, name: 'Changed' });
    expect(again.json).toEqual({ email, status: 'subscribed' });
    expect(await service.mails(email)).toHaveLength(1);
    expect(await service.subscriber(email)).toMatchObject({ status: 'C', name: 'Kept' });
  });

  it('[subscribe.keyless-no-rewrite] an unsubscribed address must confirm again: a fresh activation mail, still U until the link is confirmed', async () => {
    const email = address('back');
    expect(
      (await service.post('/subscribers/add', { email, api_key: service.apiKey })).status,
    ).toBe(200);
    expect(
      (await service.post('/unsubscribe', { email, api_key: service.apiKey })).json,
    ).toMatchObject({ status: 'U' });
    await service.post('/subscribe', { email });
    expect(await status(email)).toBe('U');
    const link = await activationLink(email);
    expectHtml(await confirm(link), 200, 'Subscription confirmed');
    expect(await status(email)).toBe('C');
  });
});

describe('consent evidence', () => {
  it('[subscribe.consent] keeps the channel, time, client address and user agent of the form post and of the confirmation, for keyed callers only', async () => {
    const email = address('consent');
    const form = await service.post(
      '/subscribe',
      { email },
      { headers: { 'User-Agent': 'SignupForm/2.0' } },
    );
    expect(form.json).toEqual({ email, status: 'pending' });
    const link = await activationLink(email);
    const confirmed = await service.post(
      link,
      { token: tokenOf(link) },
      { type: 'form', headers: { 'User-Agent': 'MailClient/7' } },
    );
    expect(confirmed.status).toBe(200);
    const consent = (await service.subscriber(email))?.consent;
    expect(consent).toMatchObject({
      channel: 'public_form',
      subscribed: { user_agent: 'SignupForm/2.0', ip: expect.any(String) },
      confirmed: { user_agent: 'MailClient/7', ip: expect.any(String) },
    });
    expect(Date.parse(consent?.confirmed?.at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(consent?.subscribed.at ?? ''),
    );
    // A keyless call learns nothing of it.
    expect((await service.post('/subscribe', { email })).json).toEqual({
      email,
      status: 'pending',
    });
    // A keyed add is recorded as the API.
    const added = await service.post('/subscribers/add', {
      email: address('consent-api'),
      api_key: service.apiKey,
    });
    expect(added.json).toMatchObject({ consent: { channel: 'api' } });
  });
});

describe('mail choices', () => {
  it('send_emails=false with the key stores the subscriber and sends nothing', async () => {
    const email = address('quiet');
    const answer = await service.post(
      '/subscribe',
      { email, send_emails: 'false', api_key: service.apiKey },
      { type: 'form' },
    );
    expect(answer.json).toMatchObject({ email, status: 'S' });
    expect(await service.mails(email)).toHaveLength(0);
  });

  it('[subscribe.keyless-activation] send_emails=false without the key still sends the activation, answers 200, and holds back only the welcome', async () => {
    const email = address('quiet-form');
    const answer = await service.post(
      '/subscribe',
      { email, send_emails: 'false' },
      { type: 'form' },
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ email, status: 'pending' });
    expectHtml(await confirm(await activationLink(email)), 200, 'Subscription confirmed');
    expect(await status(email)).toBe('C');
    expect((await service.mails(email)).map(kindOf)).toEqual(['activation']);
    expect(await adminMailsAbout(email)).toHaveLength(1);
  });

  it('single opt-in confirms at once: status C, welcome mail with one-click headers, admin mail', async () => {
    service.setSettings({ opt_in: 'single' });
    const email = address('single');
    const answer = await service.post('/subscribe', { email, name: 'Sol' });
    expect(answer.json).toEqual({ email, status: 'subscribed' });
    expect(await status(email)).toBe('C');
    const mails = await service.mails(email);
    expect(mails.map(kindOf)).toEqual(['welcome']);
    const [welcome] = mails;
    if (!welcome) throw new Error('no welcome mail');
    expect(listUnsubscribeUrl(welcome)).toBe(linksIn(welcome).unsubscribe);
    expect(rawHeader(welcome, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
    expect(await adminMailsAbout(email)).toHaveLength(1);
  });

  it('single opt-in with send_emails=false still notifies the administrator only', async () => {
    service.setSettings({ opt_in: 'single' });
    const email = address('singlequiet');
    await service.post('/subscribe', { email, send_emails: false });
    expect(await status(email)).toBe('C');
    expect(await service.mails(email)).toHaveLength(0);
    expect(await adminMailsAbout(email)).toHaveLength(1);
  });

  it('no admin address, no admin mail', async () => {
    service.setSettings({ opt_in: 'single', admin_address: '' });
    const email = address('noadmin');
    await service.post('/subscribe', { email });
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(1);
    expect(await adminMailsAbout(email)).toHaveLength(0);
  });
});

/** The outbox items of a mail kind for an address, as the table holds them. */
async function outboxOf(email: string, kind: string): Promise<Record<string, unknown>[]> {
  const client = documentClient(service.stack.dynamo.endpoint);
  try {
    const { Items = [] } = await client.send(
      new ScanCommand({ TableName: service.stack.tableName }),
    );
    return Items.filter(
      (item) => String(item.pk).startsWith('OUTBOX#') && item.email === email && item.kind === kind,
    );
  } finally {
    client.destroy();
  }
}

/** Waits until the mailer has tried (and, SES being down, failed) to send the mail. */
async function untilAttempted(email: string, kind: string): Promise<void> {
  for (;;) {
    const [mail] = await outboxOf(email, kind);
    if (mail && typeof mail.last_error === 'string') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('[subscribe.mail-failure] SES unavailable (decisions part 8)', () => {
  it('the subscribe answers at once; the activation mail arrives once, after SES is back', async () => {
    const email = address('sesdown');
    await service.stopSes();
    const answer = await service.post('/subscribe', { email, name: 'Patient' }, { settle: false });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ email, status: 'pending' });
    // (Reading the list would wait for the outbox to be worked off: SES comes back first.)
    await untilAttempted(email, 'activation');

    await service.restartSes();
    expect(await service.subscriber(email)).toMatchObject({ status: 'S', name: 'Patient' });
    const mails = await service.mails(email);
    expect(mails).toHaveLength(1);
    // Sent: its item no longer carries the address.
    expect(await outboxOf(email, 'activation')).toEqual([]);
    expectHtml(await confirm(await activationLink(email)), 200, 'Subscription confirmed');
    expect(await status(email)).toBe('C');
  });

  it('a confirmation while SES is down is confirmed at once; the welcome arrives once after', async () => {
    const email = address('welcomedown');
    await service.post('/subscribe', { email });
    const link = await activationLink(email);
    await service.stopSes();
    expectHtml(await confirm(link), 200, 'Subscription confirmed');
    await untilAttempted(email, 'welcome');
    await service.restartSes();
    expect(await status(email)).toBe('C');
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(1);
    expectHtml(await confirm(link), 200, 'Subscription confirmed');
    expect(await mailsOfKind(email, 'welcome')).toHaveLength(1);
  });
});

describe('hostile names (decisions parts 2 and 8)', () => {
  it('a name with CR/LF is refused with 400 (JSON and form) and nothing is sent', async () => {
    const email = address('crlf');
    for (const type of ['json', 'form', 'multipart'] as const) {
      const answer = await service.post(
        '/subscribe',
        { email, name: 'Ada\r\nBcc: victim@example.com' },
        { type },
      );
      expect(answer.status).toBe(400);
      expect((answer.json as ErrorBody).data.status).toBe(400);
    }
    expect(await service.subscriber(email)).toBeUndefined();
    expect(await service.mails(email)).toHaveLength(0);
    expect(await service.mails('victim@example.com')).toHaveLength(0);
  });

  it('a name with markup arrives escaped in every HTML part and in no header', async () => {
    const name = '<script>alert(1)</script>';
    const surname = '"><img src=x onerror=alert(2)>';
    const email = address('xss');
    expect((await service.post('/subscribe', { email, name, surname })).status).toBe(200);
    const link = await activationLink(email);
    expectHtml(await confirm(link), 200, 'Subscription confirmed');

    const mails = [...(await service.mails(email)), ...(await adminMailsAbout(email))];
    expect(mails.map(kindOf).sort()).toEqual(['activation', 'admin', 'welcome']);
    for (const mail of mails) {
      const html = mail.body.html ?? '';
      expect(html).not.toContain('<script');
      expect(html).not.toContain('<img');
      const headers = rawHeaderBlock(mail);
      expect(headers.length).toBeGreaterThan(0);
      // Not a bare "script": the subject says "subscription".
      for (const fragment of ['<script', 'alert(', 'onerror', '<img', 'img src']) {
        expect(headers.toLowerCase()).not.toContain(fragment);
      }
      expect(mail.subject).not.toMatch(/<script|alert\(/);
    }
    const welcome = mails.find((mail) => kindOf(mail) === 'welcome');
    expect(welcome?.body.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const admin = mails.find((mail) => kindOf(mail) === 'admin');
    expect(admin?.body.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(admin?.body.html).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    // The plain-text part carries the name as text, which is where it belongs.
    expect(welcome?.body.text).toContain(`Hello ${name},`);
  });
});
