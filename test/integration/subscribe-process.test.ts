import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import {
  type RecordingMailer,
  type TestClock,
  testDependencies,
  testSettings,
} from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';

let newsletter: NewsletterOperations;
let dependencies: ReturnType<typeof testDependencies>;
const PUBLIC = { trusted: false };
let mailer: RecordingMailer;
let clock: TestClock;
let current: { settings: ReturnType<typeof testSettings> };
let scanAll: () => Promise<Record<string, unknown>[]>;
let worker: ReturnType<typeof streamWorker>;

beforeEach(async () => {
  const { store, client, tableName } = await freshStore();
  const deps = testDependencies(store);
  ({ mailer, clock, current } = deps);
  worker = streamWorker(client, tableName, deps);
  newsletter = settling(createNewsletter(deps), worker.settle);
  dependencies = deps;
  scanAll = async () => (await client.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
});

const tokenOf = (url: string | undefined): string =>
  new URL(url ?? '').searchParams.get('token') ?? '';

async function stored(email: string): Promise<Subscriber> {
  const all = await newsletter.subscribers();
  if (isNewsletterError(all)) throw new Error(all.message);
  const found = all.find((s) => s.email === email);
  if (!found) throw new Error(`${email} not stored`);
  return found;
}

describe('subscribe, new address', () => {
  it('double opt-in stores S and sends one activation mail with a confirm link', async () => {
    const result = await newsletter.subscribe({ email: ' Ada@Example.COM ', name: 'Ada' }, PUBLIC);
    expect(result).toEqual({ email: 'ada@example.com', status: 'pending' });
    expect((await stored('ada@example.com')).status).toBe('S');
    const [mail] = mailer.of('activation', 'ada@example.com');
    expect(mailer.sent).toHaveLength(1);
    expect(mail?.confirmUrl).toMatch(
      /^https:\/\/news\.example\.com\/api\/newsletter\/v1\/subscription\/confirm\?token=[\w-]{43}$/,
    );
    expect(mail?.unsubscribeUrl).toBeUndefined();
  });

  it('single opt-in stores C and sends the welcome mail and the admin notification', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    const result = await newsletter.subscribe({ email: 'bo@example.com' }, PUBLIC);
    expect(result).toEqual({ email: 'bo@example.com', status: 'subscribed' });
    expect((await stored('bo@example.com')).status).toBe('C');
    expect(mailer.of('welcome', 'bo@example.com')[0]?.unsubscribeUrl).toContain(
      '/subscription/unsubscribe?token=',
    );
    expect(mailer.of('admin', 'admin@example.com')).toHaveLength(1);
  });

  it('[subscribe.preassigned-new] adds the pre-assigned lists to the lists of the call', async () => {
    const result = await newsletter.subscribe({ email: 'cy@example.com', 'lists[]': ['4', '1'] });
    expect(isNewsletterError(result) ? result : (result as Subscriber).lists).toEqual([1, 3, 4]);
  });

  it('keeps every profile spelling and field', async () => {
    const result = (await newsletter.subscribe({
      email: 'di@example.com',
      'profile[1]': 'London',
      profile_company: 'ACME',
      gender: 'F',
    })) as Subscriber;
    expect(result.profile).toEqual({ '1': 'London', company: 'ACME' });
    expect(result.gender).toBe('f');
  });

  it('without key, a private list is a 403 and nothing is stored', async () => {
    const result = await newsletter.subscribe({ email: 'ed@example.com', lists: [2] }, PUBLIC);
    expect(isNewsletterError(result) && result).toMatchObject({
      code: 'private_list',
      status: 403,
    });
    expect(await scanAll()).toHaveLength(0);
    expect(mailer.sent).toHaveLength(0);
  });

  it('with key (trusted), a private list is allowed', async () => {
    const result = (await newsletter.subscribe({
      email: 'ed@example.com',
      lists: [2],
    })) as Subscriber;
    expect(result.lists).toEqual([2, 3]);
  });

  it('without key, a field required for public forms is required', async () => {
    current.settings = testSettings({ required_public_fields: ['name', 'profile_company'] });
    const missing = await newsletter.subscribe(
      { email: 'fi@example.com', profile_company: 'X' },
      PUBLIC,
    );
    expect(isNewsletterError(missing) && missing).toMatchObject({
      code: 'missing_parameter',
      message: 'name is required',
    });
    const missingProfile = await newsletter.subscribe(
      { email: 'fi@example.com', name: 'Fi' },
      PUBLIC,
    );
    expect(isNewsletterError(missingProfile) && missingProfile.message).toBe(
      'profile_company is required',
    );
    expect(
      await newsletter.subscribe(
        { email: 'fi@example.com', name: 'Fi', profile_company: 'X' },
        PUBLIC,
      ),
    ).toEqual({
      email: 'fi@example.com',
      status: 'pending',
    });
    // A trusted caller is not a public form.
    expect(isNewsletterError(await newsletter.subscribe({ email: 'gu@example.com' }))).toBe(false);
  });

  it('send_emails=false stores the same data and mails nobody', async () => {
    const result = (await newsletter.subscribe({
      email: 'ha@example.com',
      send_emails: 'no',
    })) as Subscriber;
    expect(result.status).toBe('S');
    expect(mailer.sent).toHaveLength(0);
  });

  it('a trusted response is the subscriber without tokens or internals', async () => {
    const result = await newsletter.subscribe({ email: 'io@example.com', name: 'Io' });
    expect(Object.keys(result).sort()).toEqual(
      [
        'consent',
        'created',
        'email',
        'gender',
        'id',
        'lists',
        'name',
        'profile',
        'status',
        'surname',
        'updated',
      ].sort(),
    );
    // [subscribe.consent] An in-process call is recorded as the function class, with its time.
    expect((result as Subscriber).consent).toEqual({
      channel: 'function_class',
      subscribed: { at: (result as Subscriber).created },
    });
  });
});

describe('[mail.caller-text] what a caller can put into mail', () => {
  const WORDS = { name: 'Your account is locked, see evil.example', surname: 'www.evil.example' };

  it('a keyless sign-up: the activation quotes none of its fields; the welcome after confirming does', async () => {
    await newsletter.subscribe({ email: 'dee@example.com', ...WORDS }, PUBLIC);
    const [activation] = mailer.of('activation', 'dee@example.com');
    expect(activation?.subscriber).toMatchObject({
      email: 'dee@example.com',
      name: '',
      surname: '',
    });

    await newsletter.confirm_subscription({ token: tokenOf(activation?.confirmUrl) }, PUBLIC);
    expect(mailer.of('welcome', 'dee@example.com')[0]?.subscriber).toMatchObject(WORDS);
    // The operator's own notification shows what was typed, whoever typed it.
    expect(mailer.of('admin', 'admin@example.com')[0]?.subscriber).toMatchObject(WORDS);
  });

  it('single opt-in: the welcome of a keyless sign-up goes to an owner who never confirmed, so it quotes nothing', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'eve@example.com', ...WORDS }, PUBLIC);
    expect(mailer.of('welcome', 'eve@example.com')[0]?.subscriber).toMatchObject({
      name: '',
      surname: '',
    });
    expect(mailer.of('admin', 'admin@example.com')[0]?.subscriber).toMatchObject(WORDS);
  });

  it('a subscriber added with a key: its activation greets it by the name the key holder gave', async () => {
    await newsletter.subscribe({ email: 'fay@example.com', name: 'Fay', surname: 'Lee' });
    expect(mailer.of('activation', 'fay@example.com')[0]?.subscriber).toMatchObject({
      name: 'Fay',
      surname: 'Lee',
    });
  });

  it("a keyless call on an address added with a key: the activation keeps the stored name, not the call's", async () => {
    await newsletter.subscribe({ email: 'gus@example.com', name: 'Gus', send_emails: false });
    await newsletter.subscribe({ email: 'gus@example.com', ...WORDS }, PUBLIC);
    expect(mailer.of('activation', 'gus@example.com')[0]?.subscriber).toMatchObject({
      name: 'Gus',
    });
  });
});

describe('subscribe, existing address', () => {
  it('[subscribe.keyless-no-rewrite] S: a keyless call changes nothing stored; the activation is resent only after the cooldown and confirming the newest applies its fields', async () => {
    await newsletter.subscribe({ email: 'ka@example.com', name: 'Ka' }, PUBLIC);
    const first = tokenOf(mailer.sent[0]?.confirmUrl);
    const before = await stored('ka@example.com');
    clock.advance(9 * 60_000);
    await newsletter.subscribe({ email: 'ka@example.com', name: 'Mallory', lists: [1] }, PUBLIC);
    expect(mailer.of('activation')).toHaveLength(1);
    expect(await stored('ka@example.com')).toEqual(before);
    clock.advance(60_000);
    await newsletter.subscribe({ email: 'ka@example.com', name: 'Karla', lists: [4] }, PUBLIC);
    expect(mailer.of('activation')).toHaveLength(2);
    expect(await stored('ka@example.com')).toEqual(before);
    // Only the newest link confirms, with the fields of the call that sent it.
    expect(await newsletter.confirm_subscription({ token: first })).toBe('invalid');
    expect(
      await newsletter.confirm_subscription({ token: tokenOf(mailer.sent[1]?.confirmUrl) }),
    ).toBe('confirmed');
    expect(await stored('ka@example.com')).toMatchObject({
      name: 'Karla',
      lists: [3, 4],
      status: 'C',
    });
  });

  it('S: a trusted call updates the provided fields at once', async () => {
    await newsletter.subscribe({ email: 'kb@example.com', name: 'Kb' }, PUBLIC);
    await newsletter.subscribe({ email: 'kb@example.com', name: 'Kira', lists: [4] });
    expect(await stored('kb@example.com')).toMatchObject({
      name: 'Kira',
      lists: [3, 4],
      status: 'S',
    });
  });

  it('C: a keyless call changes nothing and sends nothing, and answers like a new address', async () => {
    await newsletter.add_subscriber({ email: 'lu@example.com', name: 'Lu' });
    const before = await stored('lu@example.com');
    const result = await newsletter.subscribe(
      { email: 'lu@example.com', name: 'Mallory', lists: [4] },
      PUBLIC,
    );
    expect(result).toEqual({ email: 'lu@example.com', status: 'pending' });
    expect(await stored('lu@example.com')).toEqual(before);
    expect(mailer.sent).toHaveLength(0);
  });

  it('C: a trusted call updates provided fields and adds lists, never removes them', async () => {
    await newsletter.add_subscriber({ email: 'mo@example.com', name: 'Mo', lists: [1] });
    clock.advance(1000);
    const result = (await newsletter.subscribe({
      email: 'mo@example.com',
      surname: 'Z',
      lists: [4],
    })) as Subscriber;
    expect(result).toMatchObject({ name: 'Mo', surname: 'Z', lists: [1, 3, 4], status: 'C' });
    expect(result.updated > result.created).toBe(true);
    expect(mailer.sent).toHaveLength(0);
  });

  it('[subscribe.keyless-no-rewrite] U: a keyless call leaves it U and mails an activation; confirming makes it C with the call’s fields', async () => {
    await newsletter.add_subscriber({ email: 'ne@example.com', name: 'Ne', lists: [1] });
    await newsletter.unsubscribe({ email: 'ne@example.com' });
    const before = await stored('ne@example.com');
    const result = await newsletter.subscribe(
      { email: 'ne@example.com', name: 'Nea', lists: [4], send_emails: false },
      PUBLIC,
    );
    expect(result).toEqual({ email: 'ne@example.com', status: 'pending' });
    // Nothing a caller sees has changed: the opt-out stands until the owner confirms.
    const after = await stored('ne@example.com');
    expect(after).toEqual(before);
    // send_emails=false cannot hold back the activation of a keyless call.
    const [activation] = mailer.of('activation', 'ne@example.com');
    expect(activation).toBeDefined();
    expect(
      await newsletter.confirm_subscription({ token: tokenOf(activation?.confirmUrl) }, PUBLIC),
    ).toBe('confirmed');
    const confirmed = await stored('ne@example.com');
    expect(confirmed).toMatchObject({ status: 'C', name: 'Nea', lists: [1, 3, 4] });
    // ...but it still holds back the welcome.
    expect(mailer.of('welcome', 'ne@example.com')).toHaveLength(0);
  });

  it('U: a trusted call in single opt-in mode makes it C with a welcome mail', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    await newsletter.add_subscriber({ email: 'ny@example.com' });
    await newsletter.unsubscribe({ email: 'ny@example.com' });
    expect(((await newsletter.subscribe({ email: 'ny@example.com' })) as Subscriber).status).toBe(
      'C',
    );
    expect(mailer.of('welcome', 'ny@example.com')).toHaveLength(1);
    // A public call in single mode still must not resubscribe without confirmation.
    await newsletter.unsubscribe({ email: 'ny@example.com' });
    await newsletter.subscribe({ email: 'ny@example.com' }, PUBLIC);
    expect((await stored('ny@example.com')).status).toBe('U');
    expect(mailer.of('activation', 'ny@example.com')).toHaveLength(1);
  });

  it('B and P: nothing is changed or sent', async () => {
    for (const status of ['B', 'P'] as const) {
      const email = `blocked-${status.toLowerCase()}@example.com`;
      const { store } = dependencies;
      const record = await store.getSubscriber(email);
      expect(record).toBeUndefined();
      await newsletter.add_subscriber({ email });
      const added = await store.getSubscriber(email);
      if (!added) throw new Error('not added');
      await store.replaceSubscriber({ ...added, status, version: added.version + 1 }, added);
      const before = await store.getSubscriber(email);
      expect(await newsletter.subscribe({ email, name: 'X' }, PUBLIC)).toEqual({
        email,
        status: 'pending',
      });
      expect(((await newsletter.subscribe({ email, name: 'Y' })) as Subscriber).status).toBe(
        status,
      );
      expect(await store.getSubscriber(email)).toEqual(before);
    }
    expect(mailer.sent).toHaveLength(0);
  });
});

describe('[subscribe.mail-failure] mail through the outbox', () => {
  it('answers once the mail is queued; a failing mail service delays the mail, never the answer', async () => {
    mailer.failing = true;
    const answer = await newsletter.subscribe({ email: 'ol@example.com' }, PUBLIC);
    expect(answer).toEqual({ email: 'ol@example.com', status: 'pending' });
    expect((await stored('ol@example.com')).status).toBe('S');
    expect(mailer.sent).toHaveLength(0);
    const queued = (await scanAll()).filter((item) => String(item.pk).startsWith('OUTBOX#'));
    expect(queued).toMatchObject([{ kind: 'activation', state: 'queued' }]);
    expect(Number(queued[0]?.attempts)).toBeGreaterThanOrEqual(1);
    expect(String(queued[0]?.last_error)).toContain('mail service down');
    mailer.failing = false;
    expect(await worker.settle()).toMatchObject({ sent: 1, failed: [] });
    expect(mailer.of('activation', 'ol@example.com')).toHaveLength(1);
    expect(await worker.settle()).toMatchObject({ sent: 0, failed: [] });
    expect(
      await newsletter.confirm_subscription({ token: tokenOf(mailer.sent[0]?.confirmUrl) }),
    ).toBe('confirmed');
  });

  it('a failed welcome mail goes out on the next round, once; confirming again queues nothing', async () => {
    await newsletter.subscribe({ email: 'pa@example.com' }, PUBLIC);
    const token = tokenOf(mailer.sent[0]?.confirmUrl);
    mailer.failing = true;
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    expect((await stored('pa@example.com')).status).toBe('C');
    expect(mailer.of('welcome')).toHaveLength(0);
    mailer.failing = false;
    expect(await newsletter.confirm_subscription({ token })).toBe('already_confirmed');
    expect(mailer.of('welcome', 'pa@example.com')).toHaveLength(1);
    expect(mailer.of('admin')).toHaveLength(1);
    expect(await newsletter.confirm_subscription({ token })).toBe('already_confirmed');
    expect(mailer.of('welcome')).toHaveLength(1);
  });
});

describe('activation link', () => {
  it('confirms S to C once, sends welcome and admin mails; confirming twice is a success', async () => {
    await newsletter.subscribe({ email: 'qi@example.com', name: 'Qi', lists: [1] }, PUBLIC);
    const token = tokenOf(mailer.sent[0]?.confirmUrl);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
    expect(await newsletter.confirm_subscription({ token })).toBe('confirmed');
    expect((await stored('qi@example.com')).status).toBe('C');
    expect(mailer.of('welcome', 'qi@example.com')).toHaveLength(1);
    const [admin] = mailer.of('admin', 'admin@example.com');
    expect(admin?.subscriber).toMatchObject({
      email: 'qi@example.com',
      name: 'Qi',
      listNames: ['Weekly', 'Announcements'],
    });
    expect(await newsletter.confirm_subscription({ token })).toBe('already_confirmed');
    expect(mailer.sent).toHaveLength(3);
  });

  it('no admin notification when no admin address is configured', async () => {
    current.settings = testSettings({ admin_address: '' });
    await newsletter.subscribe({ email: 'ra@example.com' }, PUBLIC);
    await newsletter.confirm_subscription({ token: tokenOf(mailer.sent[0]?.confirmUrl) });
    expect(mailer.of('admin')).toHaveLength(0);
    expect(mailer.of('welcome')).toHaveLength(1);
  });

  it('expires after the activation lifetime', async () => {
    await newsletter.subscribe({ email: 'sa@example.com' }, PUBLIC);
    const token = tokenOf(mailer.sent[0]?.confirmUrl);
    clock.advance(7 * 24 * 3600_000 + 1000);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(false);
    expect(await newsletter.confirm_subscription({ token })).toBe('invalid');
    expect((await stored('sa@example.com')).status).toBe('S');
  });

  it('rejects unknown, malformed and wrong-purpose tokens', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'ta@example.com' }, PUBLIC);
    const unsubscribeToken = tokenOf(mailer.of('welcome')[0]?.unsubscribeUrl);
    expect(await newsletter.confirm_subscription({ token: unsubscribeToken })).toBe('invalid');
    expect(await newsletter.confirm_subscription({ token: 'x'.repeat(43) })).toBe('invalid');
    expect(await newsletter.confirm_subscription({ token: '<script>' })).toBe('invalid');
    expect(await newsletter.confirm_subscription({})).toBe('invalid');
  });
});

describe('unsubscribe link', () => {
  it('makes a confirmed subscriber U; again is still a success', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'ul@example.com' }, PUBLIC);
    const token = tokenOf(mailer.of('welcome')[0]?.unsubscribeUrl);
    expect(await newsletter.check_link({ token, purpose: 'unsubscribe' })).toBe(true);
    expect(await newsletter.unsubscribe_link({ token })).toBe('unsubscribed');
    expect((await stored('ul@example.com')).status).toBe('U');
    expect(await newsletter.unsubscribe_link({ token })).toBe('unsubscribed');
    expect(await newsletter.unsubscribe_link({ token: 'A'.repeat(43) })).toBe('invalid');
  });
});

describe('tokens', () => {
  it('are stored only as hashes and die with the subscriber', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'va@example.com' }, PUBLIC);
    const raw = tokenOf(mailer.of('welcome')[0]?.unsubscribeUrl);
    const items = await scanAll();
    expect(JSON.stringify(items)).not.toContain(raw);
    expect(items.filter((item) => String(item.pk).startsWith('TOKEN#'))).toHaveLength(1);
    await newsletter.delete_subscriber({ email: 'va@example.com' });
    // What is left: the id counter and the sent mails' items, which keep no address.
    const left = (await scanAll()).filter((item) => !/^(COUNTER|COUNTS)#/.test(String(item.pk)));
    expect(left.map((item) => [String(item.pk).split('#')[0], item.state])).toEqual([
      ['OUTBOX', 'sent'],
      ['OUTBOX', 'sent'],
    ]);
    expect(JSON.stringify(left)).not.toContain('va@example.com');
    expect(await newsletter.unsubscribe_link({ token: raw })).toBe('invalid');
  });
});

/** Sets a stored subscriber's status directly, as feedback or an import would. */
async function setStatus(email: string, status: 'B' | 'P'): Promise<void> {
  const { store } = dependencies;
  const record = await store.getSubscriber(email);
  if (!record) throw new Error(`${email} not stored`);
  await store.replaceSubscriber({ ...record, status, version: record.version + 1 }, record);
}

describe('parameters as real clients send them, through the function class', () => {
  it('[params.null] null is not given for every optional parameter', async () => {
    const created = (await newsletter.subscribe({
      email: 'fn-null@example.com',
      name: null,
      surname: null,
      gender: null,
      lists: null,
      profile: null,
      send_emails: null,
    })) as Subscriber;
    expect(created).toMatchObject({ name: '', gender: '', lists: [3], profile: {} });
    expect(mailer.of('activation', 'fn-null@example.com')).toHaveLength(1);
    const added = await newsletter.add_subscriber({ email: 'fn-null2@example.com', status: null });
    expect(isNewsletterError(added) ? added : added.status).toBe('C');
  });

  it('[params.empty] "" is not given: it clears nothing and takes the defaults', async () => {
    await newsletter.subscribe({ email: 'fn-empty@example.com', name: 'Eve', gender: 'f' });
    const again = (await newsletter.subscribe({
      email: 'fn-empty@example.com',
      name: '',
      surname: '',
      gender: '',
      send_emails: '',
      profile_company: '',
    })) as Subscriber;
    expect(again).toMatchObject({ name: 'Eve', gender: 'f', profile: {} });
  });

  it('[params.php-arrays] PHP-indexed keys and numeric-key objects are lists', async () => {
    const indexed = (await newsletter.subscribe({
      email: 'fn-php@example.com',
      'lists[1]': '4',
      'lists[0]': '1',
    })) as Subscriber;
    expect(indexed.lists).toEqual([1, 3, 4]);
    const object = (await newsletter.subscribe({
      email: 'fn-php2@example.com',
      lists: { '0': 4, '1': 1 },
    })) as Subscriber;
    expect(object.lists).toEqual([1, 3, 4]);
  });

  it('[params.unknown-ignored] unsubscribe and delete ignore profile fields and other extras', async () => {
    await newsletter.add_subscriber({ email: 'fn-extra@example.com' });
    const extras = { profile_nope: 'x', 'profile[9]': 'y', submit: 'Go' };
    const left = await newsletter.unsubscribe({ email: 'fn-extra@example.com', ...extras });
    expect(isNewsletterError(left) ? left : left.status).toBe('U');
    expect(
      await newsletter.delete_subscriber({ email: 'fn-extra@example.com', ...extras }),
    ).toEqual({
      deleted: true,
      email: 'fn-extra@example.com',
    });
  });
});

describe('rules of docs/behaviour.md, in-process', () => {
  it('[subscribe.u-keeps-lists] a subscriber back from U keeps its lists and gets the new ones', async () => {
    await newsletter.add_subscriber({ email: 'uma@example.com', lists: [1, 2] });
    await newsletter.unsubscribe({ email: 'uma@example.com' });
    await newsletter.subscribe({ email: 'uma@example.com', lists: [4] });
    const back = await stored('uma@example.com');
    expect(back.status).toBe('S');
    expect(back.lists).toEqual([1, 2, 3, 4]);
  });

  it('[subscribe.no-write-unchanged] an identical call inside the cooldown reads and writes nothing', async () => {
    const call = { email: 'same@example.com', name: 'Same', lists: [1] };
    await newsletter.subscribe(call, PUBLIC);
    const before = await scanAll();
    clock.advance(60_000);
    expect(await newsletter.subscribe(call, PUBLIC)).toEqual({
      email: 'same@example.com',
      status: 'pending',
    });
    expect(await scanAll()).toEqual(before);
    expect(mailer.sent).toHaveLength(1);
  });

  it('[subscribe.in-process-links] without public_base_url, an in-process subscribe that must mail is a 500 value saying so', async () => {
    current.settings = testSettings({ public_base_url: '' });
    const failed = await newsletter.subscribe({ email: 'nolink@example.com' });
    expect(isNewsletterError(failed) && failed).toMatchObject({
      code: 'internal_error',
      status: 500,
    });
    expect(isNewsletterError(failed) && failed.message).toContain('public_base_url');
    expect(mailer.sent).toHaveLength(0);
    expect((await scanAll()).some((item) => item.email === 'nolink@example.com')).toBe(false);
    // One that mails nobody needs no link and works.
    const quiet = await newsletter.subscribe({ email: 'quiet@example.com', send_emails: false });
    expect(isNewsletterError(quiet)).toBe(false);
    // Nor one that only tells the operator (single opt-in, nothing to the person): the admin
    // notice carries no link.
    current.settings = testSettings({ public_base_url: '', opt_in: 'single' });
    const told = await newsletter.subscribe({ email: 'told@example.com', send_emails: false });
    expect(isNewsletterError(told) ? told.message : told.status).toBe('C');
    // With the setting, the links point there.
    current.settings = testSettings({
      public_base_url: 'https://lists.example.org/api/newsletter/v1',
    });
    await newsletter.subscribe({ email: 'linked@example.com' });
    expect(mailer.of('activation', 'linked@example.com')[0]?.confirmUrl).toMatch(
      /^https:\/\/lists\.example\.org\/api\/newsletter\/v1\/subscription\/confirm\?token=/,
    );
  });

  it('[unsubscribe.blocked-untouched] unsubscribe leaves B and P as they are, as a success', async () => {
    for (const status of ['B', 'P'] as const) {
      const email = `left-${status.toLowerCase()}@example.com`;
      await newsletter.add_subscriber({ email });
      await setStatus(email, status);
      const before = await dependencies.store.getSubscriber(email);
      const answer = await newsletter.unsubscribe({ email });
      expect(isNewsletterError(answer) ? answer : answer.status).toBe(status);
      expect(await dependencies.store.getSubscriber(email)).toEqual(before);
    }
  });

  it('[unsubscribe.clears-pending] a welcome still in the outbox when the subscriber leaves is not sent', async () => {
    await newsletter.subscribe({ email: 'gone@example.com' }, PUBLIC);
    const token = tokenOf(mailer.sent[0]?.confirmUrl);
    mailer.failing = true;
    await newsletter.confirm_subscription({ token });
    mailer.failing = false;
    const waiting = (await scanAll()).filter(
      (item) => String(item.pk).startsWith('OUTBOX#') && item.state === 'queued',
    );
    expect(waiting.map((item) => item.kind).sort()).toEqual(['admin', 'welcome']);
    // Unsubscribing settles them: the mailer finds the subscriber gone from the list.
    await newsletter.unsubscribe({ email: 'gone@example.com' });
    await newsletter.subscribe({ email: 'gone@example.com' }, PUBLIC);
    expect(mailer.of('welcome')).toHaveLength(0);
    expect(mailer.of('admin')).toHaveLength(0);
    const settled = (await scanAll()).filter((item) => String(item.pk).startsWith('OUTBOX#'));
    expect(settled.filter((item) => item.kind !== 'activation').map((item) => item.state)).toEqual([
      'skipped',
      'skipped',
    ]);
  });
});

describe('expiry of unconfirmed subscribers and consent evidence, in DynamoDB', () => {
  const DAY_S = 86_400;
  const item = async (email: string) =>
    (await scanAll()).find((entry) => entry.pk === `SUBSCRIBER#${email}`);
  const tokenItem = async (raw: string) => {
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(raw).digest('hex');
    return (await scanAll()).find((entry) => entry.pk === `TOKEN#${hash}`);
  };
  const FORM = { trusted: false, clientIp: '203.0.113.5', userAgent: 'Mozilla/5.0 (Form)' };

  it('[subscribe.unconfirmed-expiry] stores a new S with the TTL attribute 30 days on; its link dies with it; confirming removes the expiry', async () => {
    await newsletter.subscribe({ email: 'ex@example.com' }, FORM);
    const nowS = Math.floor(clock.current.getTime() / 1000);
    expect((await item('ex@example.com'))?.expires_at).toBe(nowS + 30 * DAY_S);
    const token = tokenOf(mailer.of('activation', 'ex@example.com')[0]?.confirmUrl);
    // The link's token item expires no later than the record (default lifetime: 7 days).
    expect(Number((await tokenItem(token))?.expires_at)).toBeLessThanOrEqual(nowS + 30 * DAY_S);
    expect(await newsletter.confirm_subscription({ token }, FORM)).toBe('confirmed');
    expect((await item('ex@example.com'))?.expires_at).toBeUndefined();
  });

  it('[subscribe.expiry-asked-only] a trusted send_emails=false stores an S with no TTL attribute and no mail; a later activation starts the expiry', async () => {
    await newsletter.subscribe({ email: 'quiet@example.com', send_emails: false });
    const quiet = await item('quiet@example.com');
    expect(quiet?.status).toBe('S');
    expect(quiet?.expires_at).toBeUndefined();
    expect(mailer.of('activation', 'quiet@example.com')).toHaveLength(0);
    clock.advance(40 * DAY_S * 1000);
    // 40 days on it is still there; a keyless form post now asks the person.
    await newsletter.subscribe({ email: 'quiet@example.com' }, FORM);
    const nowS = Math.floor(clock.current.getTime() / 1000);
    expect((await item('quiet@example.com'))?.expires_at).toBe(nowS + 30 * DAY_S);
    expect(mailer.of('activation', 'quiet@example.com')).toHaveLength(1);
  });

  it('[subscribe.unconfirmed-expiry] treats an expired S as gone before TTL deletes it', async () => {
    current.settings = testSettings({
      activation_lifetime_hours: 24 * 60,
      unconfirmed_expiry_days: 1,
    });
    await newsletter.subscribe({ email: 'late@example.com', name: 'Late' }, FORM);
    const token = tokenOf(mailer.of('activation', 'late@example.com')[0]?.confirmUrl);
    clock.advance(DAY_S * 1000 + 60_000);
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(false);
    expect(await newsletter.confirm_subscription({ token }, FORM)).toBe('invalid');
    // A new subscribe starts afresh: a new record, a new activation.
    await newsletter.subscribe({ email: 'late@example.com', name: 'Again' }, FORM);
    expect(await stored('late@example.com')).toMatchObject({ name: 'Again', status: 'S' });
    expect(mailer.of('activation', 'late@example.com')).toHaveLength(2);
  });

  it('[subscribe.consent] records how, when and from where a person subscribed and confirmed; deleting the subscriber deletes it', async () => {
    await newsletter.subscribe({ email: 'gdpr@example.com' }, FORM);
    const subscribedAt = clock.current.toISOString();
    clock.advance(3_600_000);
    const token = tokenOf(mailer.of('activation', 'gdpr@example.com')[0]?.confirmUrl);
    const confirmer = { trusted: false, clientIp: '198.51.100.23', userAgent: 'Mail app' };
    expect(await newsletter.confirm_subscription({ token }, confirmer)).toBe('confirmed');
    expect((await stored('gdpr@example.com')).consent).toEqual({
      channel: 'public_form',
      subscribed: { at: subscribedAt, ip: '203.0.113.5', user_agent: 'Mozilla/5.0 (Form)' },
      confirmed: { at: clock.current.toISOString(), ip: '198.51.100.23', user_agent: 'Mail app' },
    });
    expect(await newsletter.delete_subscriber({ email: 'gdpr@example.com' })).toMatchObject({
      deleted: true,
    });
    expect(JSON.stringify(await scanAll())).not.toContain('203.0.113.5');
    expect(JSON.stringify(await scanAll())).not.toContain('198.51.100.23');
  });

  it('[subscribe.consent] a keyless call on an existing subscriber carries its evidence to the confirmation only', async () => {
    await newsletter.add_subscriber({ email: 'back@example.com' });
    await newsletter.unsubscribe({ email: 'back@example.com' });
    const added = (await stored('back@example.com')).consent;
    expect(added).toMatchObject({ channel: 'function_class' });
    await newsletter.subscribe({ email: 'back@example.com' }, FORM);
    expect((await stored('back@example.com')).consent).toEqual(added);
    const token = tokenOf(mailer.of('activation', 'back@example.com')[0]?.confirmUrl);
    await newsletter.confirm_subscription({ token }, FORM);
    expect((await stored('back@example.com')).consent).toMatchObject({
      channel: 'public_form',
      subscribed: { ip: '203.0.113.5' },
      confirmed: { ip: '203.0.113.5' },
    });
  });
});

describe('found by the mutation round', () => {
  it('[subscribe.u-keeps-lists] a trusted single opt-in subscribe back from U keeps its lists (U → C)', async () => {
    current.settings = testSettings({ opt_in: 'single' });
    await newsletter.add_subscriber({ email: 'uc@example.com', lists: [1, 2] });
    await newsletter.unsubscribe({ email: 'uc@example.com' });
    const back = (await newsletter.subscribe({
      email: 'uc@example.com',
      lists: [4],
    })) as Subscriber;
    expect(back.status).toBe('C');
    expect(back.lists).toEqual([1, 2, 3, 4]);
    expect((await stored('uc@example.com')).lists).toEqual([1, 2, 3, 4]);
    expect(mailer.of('welcome', 'uc@example.com')).toHaveLength(1);
  });

  it('[params.null] a honeypot field sent as null (a JSON form) is not given: a person, subscribed', async () => {
    const answer = await newsletter.subscribe(
      { email: 'jsonperson@example.com', nl_website: null },
      PUBLIC,
    );
    expect(answer).toEqual({ email: 'jsonperson@example.com', status: 'pending' });
    expect((await stored('jsonperson@example.com')).status).toBe('S');
    expect(mailer.of('activation', 'jsonperson@example.com')).toHaveLength(1);
  });
});
