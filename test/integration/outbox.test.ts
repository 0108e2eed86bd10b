/**
 * The mailer's side of the outbox (shared/operations/deliver-mail.ts) against DynamoDB Local:
 * what it re-reads before sending, and what makes a redelivered stream record harmless.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { deliverMail } from '../../shared/operations/deliver-mail.ts';
import { type RecordingMailer, testDependencies, testSettings } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';

let newsletter: NewsletterOperations;
let deps: ReturnType<typeof testDependencies>;
let mailer: RecordingMailer;
let outbox: () => Promise<Record<string, unknown>[]>;

beforeEach(async () => {
  const fresh = await freshStore();
  deps = testDependencies(fresh.store);
  mailer = deps.mailer;
  // No stream worker here: each test delivers by hand, as the stream would, one record at a time.
  newsletter = createNewsletter(deps);
  outbox = async () =>
    ((await fresh.client.send(new ScanCommand({ TableName: fresh.tableName }))).Items ?? [])
      .filter((item) => String(item.pk).startsWith('OUTBOX#'))
      .sort((a, b) => String(a.created).localeCompare(String(b.created)));
});

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
    expect(await deps.store.getSubscriber('bo@example.com')).not.toHaveProperty('confirm_token');
    await deliverMail(deps, String(id));
    const link = mailer.sent[0]?.confirmUrl ?? '';
    const token = new URL(link).searchParams.get('token');
    expect(await newsletter.check_link({ token, purpose: 'confirm' })).toBe(true);
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
        record.version,
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
