/**
 * The operator's day around the engine (shared/operations/campaign/): the report from the
 * recipient records, bounces and complaints attributed through SES's message id, and copies.
 */
import { describe, expect, it } from 'vitest';
import { countRecipients, noRecipients } from '../../shared/domain/campaign/campaign-report.ts';
import type { RecipientRecord } from '../../shared/domain/campaign/recipient.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import {
  campaignReport,
  type ReportRow,
} from '../../shared/operations/campaign/campaign-report.ts';
import { sendNewsletter } from '../../shared/operations/campaign/control-campaign.ts';
import { copyNewsletterIssue } from '../../shared/operations/campaign/save-newsletter.ts';
import { testNewsletter } from '../../shared/operations/campaign/test-send.ts';
import { recordFeedback } from '../../shared/operations/record-feedback.ts';
import { unsubscribeByLink } from '../../shared/operations/token-links.ts';
import { campaignWorld } from '../support/campaign-world.ts';

describe('[campaign.report] the report counts the recipient records', () => {
  it('sent, skipped with reasons, failed, unsubscribed through the issue, bounced and complained; one CSV row each', async () => {
    const world = await campaignWorld({ campaign: { failure_limit: 100 } });
    const people = await world.subscribe(8);
    const issue = await world.issue();
    const started = await sendNewsletter(world.deps, { id: issue.id });
    if (isNewsletterError(started)) throw new Error(started.message);
    while (world.queues.plans.length > 0) await world.planOne();
    const [left, failing, bounce, complain, leaving] = people;
    if (!left || !failing || !bounce || !complain || !leaving) throw new Error('people');
    const current = await world.store.getSubscriber(left.email);
    if (!current) throw new Error('no subscriber');
    await world.store.replaceSubscriber(
      { ...current, status: 'U', version: current.version + 1 },
      current.version,
    );
    world.ses.failWith = (mail) => (mail.to === failing.email ? 'rejected' : undefined);
    await world.drain();
    const messageOf = (email: string) => world.ses.mails.find((mail) => mail.to === email);
    const deps = { ...world.deps, store: world.store };
    for (const [person, kind] of [
      [bounce, 'hard-bounce'],
      [complain, 'complaint'],
    ] as const) {
      const mail = messageOf(person.email);
      const result = await recordFeedback(deps, {
        kind,
        mailId: mail?.messageId ?? '',
        recipients: [person.email],
        detail: 'test',
        newsletterId: issue.id,
      });
      expect(isNewsletterError(result)).toBe(false);
    }
    // Feedback about another mail of the same person is not this issue's.
    await recordFeedback(deps, {
      kind: 'complaint',
      mailId: 'another-mail',
      recipients: [leaving.email],
      detail: 'test',
      newsletterId: issue.id,
    });
    const token = new URL(messageOf(leaving.email)?.unsubscribeUrl ?? 'https://x').searchParams.get(
      'token',
    );
    expect(await unsubscribeByLink(deps, token)).toBe('unsubscribed');
    const rows: ReportRow[] = [];
    const report = await campaignReport(world.deps, issue.id, (page) => {
      rows.push(...page);
    });
    if (isNewsletterError(report)) throw new Error(report.message);
    expect(report.counts).toEqual({
      recipients: 8,
      sent: 6,
      skipped: 1,
      failed: 1,
      unsent: 0,
      unsubscribed: 1,
      bounced: 1,
      complained: 1,
      skipped_by_reason: { unsubscribed: 1 },
    });
    expect(rows).toHaveLength(8);
    const byEmail = new Map(rows.map((row) => [row.email, row]));
    expect(byEmail.get(bounce.email)).toMatchObject({
      outcome: 'bounced',
      message_id: messageOf(bounce.email)?.messageId,
    });
    expect(byEmail.get(complain.email)?.outcome).toBe('complained');
    expect(byEmail.get(leaving.email)?.outcome).toBe('unsubscribed');
    expect(byEmail.get(left.email)?.outcome).toBe('skipped: unsubscribed');
    expect(byEmail.get(failing.email)?.outcome).toBe('failed');
    // The report's counts are the records': the campaign's own counters agree.
    expect(await world.campaign(issue.id)).toMatchObject({
      sent: report.counts.sent,
      skipped: 1,
      failed: 1,
    });
  });

  it('counts each record once, in one outcome, whatever it holds', () => {
    const record = (overrides: Partial<RecipientRecord>): RecipientRecord => ({
      newsletter_id: 1,
      subscriber_id: 1,
      state: 'sent',
      run: 1,
      attempts: 1,
      ...overrides,
    });
    const counts = countRecipients(noRecipients(), [
      record({ state: 'pending' }),
      record({ state: 'sending' }),
      record({ state: 'sent', bounced_at: 'x', complained_at: 'y' }),
      record({ state: 'skipped', reason: 'deleted' }),
      record({ state: 'skipped', reason: 'deleted' }),
      record({ state: 'failed' }),
    ]);
    expect(counts).toMatchObject({
      recipients: 6,
      unsent: 2,
      sent: 1,
      skipped: 2,
      failed: 1,
      bounced: 1,
      complained: 1,
    });
    expect(counts.sent + counts.skipped + counts.failed + counts.unsent).toBe(counts.recipients);
    expect(counts.skipped_by_reason).toEqual({ deleted: 2 });
  });

  it('a deleted subscriber’s row keeps no address', async () => {
    const world = await campaignWorld();
    const [gone] = await world.subscribe(2);
    const issue = await world.issue();
    await sendNewsletter(world.deps, { id: issue.id });
    await world.drain();
    const record = await world.store.getSubscriber(gone?.email ?? '');
    if (record) await world.store.deleteSubscriber(record);
    const rows: ReportRow[] = [];
    await campaignReport(world.deps, issue.id, (page) => {
      rows.push(...page);
    });
    expect(rows.find((row) => row.subscriber_id === gone?.id)?.email).toBe('');
    expect(await campaignReport(world.deps, 999)).toMatchObject({ code: 'not_found' });
  });
});

describe('[campaign.copy] a copy is a new draft of the same content', () => {
  it('copies subject, parts, lists and privacy, nothing of the sending', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue({ lists: [1, 4], private: true, url: 'https://x.example/1' });
    await sendNewsletter(world.deps, { id: issue.id });
    await world.drain();
    const copied = await copyNewsletterIssue({ ...world.deps, store: world.store }, issue.id);
    if (isNewsletterError(copied)) throw new Error(copied.message);
    expect(copied.issue).toMatchObject({
      status: 'draft',
      subject: issue.subject,
      lists: [1, 4],
      private: true,
      run: 0,
      total: 0,
      sent: 0,
    });
    expect(copied.issue.url).toBeUndefined();
    expect(await world.campaigns.getContent(copied.issue.id)).toEqual(
      await world.campaigns.getContent(issue.id),
    );
    expect(await copyNewsletterIssue({ ...world.deps, store: world.store }, 999)).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('[campaign.test-send] a test mail looks like the real one, and changes nothing', () => {
  it('goes to at most 5 addresses, marked, personalised for a subscriber, with sample values otherwise, and records nothing', async () => {
    const world = await campaignWorld();
    const [ada] = await world.subscribe(1, { name: 'Ada' });
    const issue = await world.issue({
      html: '<p>Hello {name}, from {profile_company}</p> {unsubscription_url}',
    });
    const queued = await testNewsletter(world.deps, issue.id, [ada?.email, 'Editor@Example.org']);
    expect(queued).toEqual({ newsletter_id: issue.id, to: [ada?.email, 'editor@example.org'] });
    await world.drain();
    const [toAda, toEditor] = world.ses.mails;
    expect(toAda?.subject).toBe(`[TEST] ${issue.subject}`);
    expect(toAda?.html).toContain('Hello Ada, from ');
    expect(toEditor?.html).toContain('Hello Sample-Name, from Sample Company');
    expect(toAda?.unsubscribeUrl).toMatch(/\/subscription\/unsubscribe\?token=test-send$/);
    expect(toAda?.tags).toEqual({ newsletter: String(issue.id), test: 'true' });
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'draft',
      run: 0,
      total: 0,
      sent: 0,
    });
    expect(await world.campaigns.countRecipients(issue.id)).toMatchObject({ sent: 0, pending: 0 });
  });

  it('refuses more than 5 addresses, a bad address, and an issue without content', async () => {
    const world = await campaignWorld();
    const issue = await world.issue();
    const six = Array.from({ length: 6 }, (_, i) => `t${i}@example.com`);
    expect(await testNewsletter(world.deps, issue.id, six)).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await testNewsletter(world.deps, issue.id, ['nobody'])).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await testNewsletter(world.deps, issue.id, [])).toMatchObject({
      code: 'invalid_parameter',
    });
    await world.campaigns.createIssue(
      { id: 50, subject: 'Bare', created: 'x', private: false, lists: [1] },
      undefined,
    );
    expect(await testNewsletter(world.deps, 50, ['a@example.com'])).toMatchObject({
      code: 'invalid_state',
    });
    expect(world.queues.plans).toHaveLength(0);
  });
});
