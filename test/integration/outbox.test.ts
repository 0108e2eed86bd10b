/**
 * The mailer's side of the outbox (shared/operations/deliver-mail.ts) against DynamoDB Local:
 * what it re-reads before sending, and what makes a redelivered stream record harmless.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeError } from '../../shared/domain/errors.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { deliverMail, MailNotSent } from '../../shared/operations/deliver-mail.ts';
import { type RecordingMailer, testDependencies, testSettings } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';

let newsletter: NewsletterOperations;
let deps: ReturnType<typeof testDependencies>;
let mailer: RecordingMailer;
let outbox: () => Promise<Record<string, unknown>[]>;
let tokenItems: (email: string) => Promise<Record<string, unknown>[]>;

beforeEach(async () => {
  const fresh = await freshStore();
  deps = testDependencies(fresh.store);
  mailer = deps.mailer;
  // No stream worker here: each test delivers by hand, as the stream would, one record at a time.
  newsletter = createNewsletter(deps);
  const items = async () =>
    (await fresh.client.send(new ScanCommand({ TableName: fresh.tableName }))).Items ?? [];
  outbox = async () =>
    (await items())
      .filter((item) => String(item.pk).startsWith('OUTBOX#'))
      .sort((a, b) => String(a.created).localeCompare(String(b.created)));
  tokenItems = async (email) =>
    (await items()).filter((item) => String(item.pk).startsWith('TOKEN#') && item.email === email);
});

afterEach(() => {
  vi.restoreAllMocks();
});

const tokenOf = (url: string | undefined): string =>
  new URL(url ?? '').searchParams.get('token') ?? '';

/** What an attempt was rejected with; undefined when it was not. */
const thrown = (attempt: Promise<unknown>): Promise<unknown> =>
  attempt.then(
    () => undefined,
    (error: unknown) => error,
  );

const mailIds = async (kind?: string) =>
  (await outbox())
    .filter((item) => !kind || item.kind === kind)
    .map((item) => String(item.mail_id));

describe('[mail.outbox-once] a mail goes out once', () => {
  it('a redelivered record sends nothing again, and the sent item keeps no address', async () => {
    await newsletter.subscribe({ email: 'ada@example.com' });
    const [id] = await mailIds('activation');
    if (!id) throw new Error('no activation queued');
    expect(await deliverMail(deps, id)).toBe('sent');
    expect(await deliverMail(deps, id)).toBe('settled');
    expect(mailer.of('activation', 'ada@example.com')).toHaveLength(1);
    const [sent] = await outbox();
    expect(sent).toMatchObject({ state: 'sent', attempts: 1, kind: 'activation' });
    expect(sent).not.toHaveProperty('email');
    expect(JSON.stringify(await outbox())).not.toMatch(/[A-Za-z0-9_-]{43}/);
  });

  it('the token is minted when the mail goes out: the stored hash matches only that link', async () => {
    await newsletter.subscribe({ email: 'bo@example.com' });
    const [id] = await mailIds('activation');
    const before = await deps.store.getSubscriber('bo@example.com');
    expect(before).not.toHaveProperty('confirm_token');
    await deliverMail(deps, String(id));
    const link = mailer.sent[0]?.confirmUrl ?? '';
    const token = new URL(link).searchParams.get('token');
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
    // Listing the new hash is a change like any other: a writer holding the older read must retry.
    const after = await deps.store.getSubscriber('bo@example.com');
    expect(after?.version).toBe((before?.version ?? 0) + 1);
  });

  it('a mail another attempt is sending right now is not sent twice: this one gives up, for the stream to retry', async () => {
    await newsletter.subscribe({ email: 'gi@example.com' });
    const [id] = await mailIds('activation');
    // Another mailer's claim, taken a moment ago and still running.
    expect(await deps.store.claimMail({ mailId: String(id) })).toBe(true);
    // No jitter between the lost races, so the test waits for nothing.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const error = await thrown(deliverMail(deps, String(id)));
    expect(error).toBeInstanceOf(MailNotSent);
    expect(describeError(error)).toContain(`mail ${id}`);
    expect(mailer.sent).toHaveLength(0);
    expect(await outbox()).toMatchObject([{ state: 'sending', attempts: 1 }]);
  });
});

describe('[mail.outbox-recheck] the mailer re-reads the subscriber before sending', () => {
  it('a subscriber deleted before sending gets no mail, and the mail goes with it', async () => {
    await newsletter.subscribe({ email: 'cy@example.com' });
    const [id] = await mailIds('activation');
    await newsletter.delete_subscriber({ email: 'cy@example.com' });
    expect(await deliverMail(deps, String(id))).toBe('skipped');
    expect(mailer.sent).toHaveLength(0);
    expect(await outbox()).toEqual([]);
  });

  it('an address deleted and subscribed again gets only the mails of its new life', async () => {
    deps.current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'ev@example.com' });
    const earlier = await mailIds();
    await newsletter.delete_subscriber({ email: 'ev@example.com' });
    await newsletter.subscribe({ email: 'ev@example.com' });
    const later = (await mailIds()).filter((id) => !earlier.includes(id));
    for (const id of earlier) expect(await deliverMail(deps, id)).toBe('skipped');
    for (const id of later) expect(await deliverMail(deps, id)).toBe('sent');
    expect(mailer.of('welcome', 'ev@example.com')).toHaveLength(1);
    expect(mailer.of('admin')).toHaveLength(1);
    expect(await mailIds()).toEqual(later);
  });

  it('only the newest activation is sent: an older one still queued is skipped', async () => {
    await newsletter.subscribe({ email: 'di@example.com' });
    deps.clock.advance(deps.current.settings.resend_cooldown_minutes * 60_000);
    await newsletter.subscribe({ email: 'di@example.com' });
    const [older, newer] = await mailIds('activation');
    expect(await deliverMail(deps, String(older))).toBe('skipped');
    expect(await deliverMail(deps, String(newer))).toBe('sent');
    expect(mailer.of('activation')).toHaveLength(1);
  });

  it('a welcome and an admin notice wait for nobody who left, bounced or complained', async () => {
    deps.current.settings = testSettings({ opt_in: 'single' });
    for (const [email, status] of [
      ['u@example.com', 'U'],
      ['b@example.com', 'B'],
      ['p@example.com', 'P'],
    ] as const) {
      await newsletter.subscribe({ email });
      const record = await deps.store.getSubscriber(email);
      if (!record) throw new Error('not stored');
      await deps.store.replaceSubscriber(
        { ...record, status, version: record.version + 1 },
        record,
      );
    }
    const outcomes = [];
    for (const id of await mailIds()) outcomes.push(await deliverMail(deps, id));
    expect(outcomes).toEqual(Array(6).fill('skipped'));
    expect(mailer.sent).toHaveLength(0);
  });

  it('a confirmed subscriber gets its welcome and the admin its notice, each once', async () => {
    deps.current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'c@example.com' });
    for (const id of await mailIds()) expect(await deliverMail(deps, id)).toBe('sent');
    for (const id of await mailIds()) expect(await deliverMail(deps, id)).toBe('settled');
    expect(mailer.of('welcome', 'c@example.com')).toHaveLength(1);
    expect(mailer.of('admin')).toHaveLength(1);
  });
});

describe('[subscribe.newest-link] a resend retires the earlier link when it goes out', () => {
  /** Sends the first activation, then queues a resend `wait` ms later; the resend's mail id. */
  async function resendAfter(email: string, wait: number): Promise<string> {
    await newsletter.subscribe({ email });
    const [first] = await mailIds('activation');
    expect(await deliverMail(deps, String(first))).toBe('sent');
    deps.clock.advance(wait);
    await newsletter.subscribe({ email });
    const [, resend] = await mailIds('activation');
    return String(resend);
  }

  it('only the new link confirms, and the table keeps only its token', async () => {
    const cooldown = deps.current.settings.resend_cooldown_minutes * 60_000;
    const resend = await resendAfter('fa@example.com', cooldown);
    expect(await deliverMail(deps, resend)).toBe('sent');
    const [older, newer] = mailer.of('activation').map((mail) => tokenOf(mail.confirmUrl));
    expect(await newsletter.check_link({ token: older, purpose: 'confirm' })).toBe(false);
    expect(await newsletter.check_link({ token: newer, purpose: 'confirm' })).toBe(true);
    const record = await deps.store.getSubscriber('fa@example.com');
    expect(Object.keys(record?.tokens ?? {})).toEqual([record?.confirm_token]);
    expect(await tokenItems('fa@example.com')).toMatchObject([
      { pk: `TOKEN#${record?.confirm_token}`, purpose: 'confirm' },
    ]);
  });

  it('a resend that goes out after the earlier link expired still goes out', async () => {
    const lifetime = deps.current.settings.activation_lifetime_hours * 3_600_000;
    // Queued while the first link still lived; the mail service was away until after it died.
    const resend = await resendAfter('fe@example.com', lifetime - 60_000);
    deps.clock.advance(120_000);
    expect(await deliverMail(deps, resend)).toBe('sent');
    const newer = tokenOf(mailer.of('activation')[1]?.confirmUrl);
    expect(await newsletter.confirm_subscription({ token: newer })).toBe('confirmed');
    expect(await tokenItems('fe@example.com')).toHaveLength(1);
  });
});

describe('[subscribe.mail-failure] a send the mail service refused', () => {
  it('is counted and logged for the operator, recorded on the mail, and thrown for the stream to retry', async () => {
    await newsletter.subscribe({ email: 'gu@example.com' });
    const [id] = await mailIds('activation');
    mailer.failing = true;
    const error = await thrown(deliverMail(deps, String(id)));
    expect(error).toBeInstanceOf(MailNotSent);
    // The stream handler's record_failed line: which mail, and the mail service's own answer.
    expect(describeError(error)).toMatch(
      new RegExp(`^MailNotSent: .*${id}.* <- Error: mail service down$`),
    );
    // What the MailFailures alarm counts, and the line its runbook points to (no address in it).
    expect(deps.metrics.counts.MailFailures).toBe(1);
    expect(deps.logger.lines.filter((line) => line.event === 'mail_failed')).toEqual([
      {
        level: 'error',
        event: 'mail_failed',
        fields: { kind: 'activation', mail_id: id, cause: 'Error: mail service down' },
      },
    ]);
    expect(await outbox()).toMatchObject([
      { state: 'queued', last_error: 'Error: mail service down' },
    ]);
    mailer.failing = false;
    expect(await deliverMail(deps, String(id))).toBe('sent');
  });
});

describe('[mail.admin-no-list-unsubscribe] the admin notice', () => {
  it('carries no unsubscribe link and leaves the subscriber as it was', async () => {
    deps.current.settings = testSettings({ opt_in: 'single' });
    await newsletter.subscribe({ email: 'ha@example.com' });
    const [welcome] = await mailIds('welcome');
    const [notice] = await mailIds('admin');
    expect(await deliverMail(deps, String(welcome))).toBe('sent');
    const before = await deps.store.getSubscriber('ha@example.com');
    expect(await deliverMail(deps, String(notice))).toBe('sent');
    const [sent] = mailer.of('admin');
    expect(sent?.to).toBe('admin@example.com');
    expect(sent).not.toHaveProperty('unsubscribeUrl');
    expect(await deps.store.getSubscriber('ha@example.com')).toEqual(before);
    expect(await tokenItems('ha@example.com')).toHaveLength(1);
  });
});
