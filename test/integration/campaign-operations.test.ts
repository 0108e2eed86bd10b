/**
 * The operator's day around the engine (shared/operations/campaign/): the report from the
 * recipient records, bounces and complaints attributed through SES's message id, and copies.
 */
import { describe, expect, it } from 'vitest';
import { countRecipients, noRecipients } from '../../shared/domain/campaign/campaign-report.ts';
import type { RecipientRecord } from '../../shared/domain/campaign/recipient.ts';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import {
  campaignReport,
  type ReportRow,
} from '../../shared/operations/campaign/campaign-report.ts';
import { sendNewsletter } from '../../shared/operations/campaign/control-campaign.ts';
import {
  copyNewsletterIssue,
  createNewsletterIssue,
  editNewsletterIssue,
  type SavedNewsletter,
} from '../../shared/operations/campaign/save-newsletter.ts';
import { testNewsletter } from '../../shared/operations/campaign/test-send.ts';
import { recordFeedback } from '../../shared/operations/record-feedback.ts';
import { unsubscribeByLink } from '../../shared/operations/token-links.ts';
import { type CampaignWorld, campaignWorld, recipientStates } from '../support/campaign-world.ts';

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
      current,
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
    expect(copied.warnings).toEqual([]);
    expect(await world.campaigns.getContent(copied.issue.id)).toEqual(
      await world.campaigns.getContent(issue.id),
    );
    expect(await copyNewsletterIssue({ ...world.deps, store: world.store }, 999)).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('999'),
    });
  });
});

describe('[campaign.test-send] a test mail looks like the real one, and changes nothing', () => {
  it("[campaign.empty-values] shows the settings' fallbacks: to a subscriber without a name, and for a non-subscriber", async () => {
    const world = await campaignWorld({
      campaign: { tag_fallbacks: { name: 'reader', profile_company: 'your company' } },
    });
    const [nameless] = await world.subscribe(1, { name: '' });
    const issue = await world.issue({
      html: '<p>Hello {name} {surname}, from {profile_company}</p> {unsubscription_url}',
    });
    await testNewsletter(world.deps, issue.id, [nameless?.email, 'editor@example.org']);
    await world.planOne();
    expect(await world.sendOne()).toMatchObject({ sent: 2 });
    const [toNameless, toEditor] = world.ses.mails;
    // A tag with a fallback reads as it will for whoever left it empty; the others get samples.
    expect(toEditor?.html).toContain('Hello reader Sample-Surname, from your company');
    expect(toNameless?.html).toMatch(/Hello reader \S*, from your company/);
    expect(toNameless?.text).toMatch(/Hello reader \S*, from your company/);
    // The real mail reads the same.
    await sendNewsletter(world.deps, { id: issue.id });
    await world.drain();
    const real = world.ses.mails.at(-1);
    expect(real?.subject).toBe(issue.subject);
    expect(real?.html).toMatch(/Hello reader \S*, from your company/);
  });

  it('goes to at most 5 addresses, marked, personalised for a subscriber, with sample values otherwise, and records nothing', async () => {
    const world = await campaignWorld();
    // Soft bounces counted: a real mail to Ada would ask SES for its delivery event.
    const [ada] = await world.subscribe(1, { name: 'Ada', transient_bounces: 2 });
    const issue = await world.issue({
      html: '<p>Hello {name} {surname}, from {profile_company}</p> {unsubscription_url}',
    });
    const queued = await testNewsletter(world.deps, issue.id, [ada?.email, 'Editor@Example.org']);
    expect(queued).toEqual({ newsletter_id: issue.id, to: [ada?.email, 'editor@example.org'] });
    await world.planOne();
    // The worker reports the mails it sent.
    expect(await world.sendOne()).toMatchObject({ sent: 2 });
    const [toAda, toEditor] = world.ses.mails;
    expect(toAda?.subject).toBe(`[TEST] ${issue.subject}`);
    expect(toAda?.html).toContain('Hello Ada , from ');
    expect(toEditor?.html).toContain('Hello Sample-Name Sample-Surname, from Sample Company');
    expect(toAda?.unsubscribeUrl).toMatch(/\/subscription\/unsubscribe\?token=test-send$/);
    expect(toAda?.tags).toEqual({ newsletter: String(issue.id), test: 'true' });
    // No delivery event: its feedback would clear Ada's soft bounces, and a test records nothing.
    expect(world.ses.mails.map((mail) => mail.reportDelivery)).toEqual([false, false]);
    // [campaign.web-version-link] the same web version line as the real mail.
    const page = `${world.current.settings.public_base_url}/newsletters/${issue.id}/view`;
    expect(toEditor?.html).toContain(
      `<a href="${page}" style="color:#6b7280" ses:no-track>View this newsletter`,
    );
    expect(toEditor?.text).toContain(`View this newsletter in your browser: ${page}`);
    expect(await world.campaign(issue.id)).toMatchObject({
      status: 'draft',
      run: 0,
      total: 0,
      sent: 0,
    });
    expect(await recipientStates(world, issue.id)).toMatchObject({ sent: 0, pending: 0 });
  });

  it('refuses more than 5 addresses, a bad address, an unknown issue, an issue without content and no link base, saying why', async () => {
    const world = await campaignWorld();
    const issue = await world.issue();
    const six = Array.from({ length: 6 }, (_, i) => `t${i}@example.com`);
    expect(await testNewsletter(world.deps, issue.id, six)).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringContaining('at most 5'),
    });
    expect(await testNewsletter(world.deps, issue.id, ['nobody'])).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await testNewsletter(world.deps, issue.id, [])).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await testNewsletter(world.deps, 999, ['a@example.com'])).toMatchObject({
      code: 'not_found',
      message: 'Newsletter 999 does not exist.',
    });
    await world.campaigns.createIssue(
      { id: 50, subject: 'Bare', created: 'x', private: false, lists: [1] },
      undefined,
    );
    expect(await testNewsletter(world.deps, 50, ['a@example.com'])).toMatchObject({
      code: 'invalid_state',
      message: 'Newsletter 50 has no content to test yet.',
    });
    const settings = world.current.settings;
    world.current.settings = { ...settings, public_base_url: '' };
    expect(await testNewsletter(world.deps, issue.id, ['a@example.com'])).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringContaining('public_base_url'),
    });
    expect(world.queues.plans).toHaveLength(0);
    // Without public_base_url, the caller's {api_root} serves as the link base.
    const apiRoot = 'https://abc.execute-api.eu-west-1.amazonaws.com/api';
    expect(
      await testNewsletter(world.deps, issue.id, ['a@example.com'], { apiRoot }),
    ).toMatchObject({ to: ['a@example.com'] });
    expect(world.queues.plans).toMatchObject([{ kind: 'test', link_base: apiRoot }]);
    // A test message whose issue is unknown or has no content (a poison message otherwise,
    // redelivered until it is dead-lettered) mails nobody and fails nothing.
    for (const newsletter_id of [50, 999]) {
      await world.queues.send([
        { kind: 'test', newsletter_id, to: ['a@example.com'], nonce: 'n', link_base: apiRoot },
      ]);
      expect(await world.sendOne()).toMatchObject({ sent: 0 });
    }
    expect(world.ses.mails).toEqual([]);
  });
});

/** What saving an issue needs, from a campaign world. */
const saving = (world: CampaignWorld) => ({ ...world.deps, store: world.store });

/** Saved, or the test fails with the error's message. */
function saved(result: SavedNewsletter | NewsletterError): SavedNewsletter {
  if (isNewsletterError(result)) throw new Error(result.message);
  return result;
}

describe('[campaign.content] an issue is validated as it will be sent when it is created', () => {
  it('stores the trimmed subject, lists, privacy and web URL; derives a text part or keeps the operator’s; warns', async () => {
    const world = await campaignWorld();
    const deps = saving(world);

    const derived = saved(
      await createNewsletterIssue(deps, {
        subject: '  Spaced out  ',
        html: '<p>Hello { name }, news.</p>',
        lists: [1, 4],
        url: 'https://news.example.com/issues/1',
      }),
    );
    expect(derived.issue).toMatchObject({
      status: 'draft',
      subject: 'Spaced out',
      lists: [1, 4],
      private: false,
      url: 'https://news.example.com/issues/1',
    });
    expect(derived.warnings).toHaveLength(1);
    expect(derived.warnings[0]).toContain('{ name }');
    const derivedContent = await world.campaigns.getContent(derived.issue.id);
    expect(derivedContent).toMatchObject({
      html: '<p>Hello { name }, news.</p>',
      text_derived: true,
    });
    expect(derivedContent?.text).toContain('Hello { name }, news.');

    const written = saved(
      await createNewsletterIssue(deps, {
        subject: 'Own words',
        html: '<p>Hi</p>',
        text: 'Hi, in words of my own',
        lists: [1],
        private: true,
      }),
    );
    expect(written.issue).toMatchObject({ subject: 'Own words', private: true, lists: [1] });
    expect(written.issue.url).toBeUndefined();
    expect(written.warnings).toEqual([]);
    expect(await world.campaigns.getContent(written.issue.id)).toEqual({
      html: '<p>Hi</p>',
      text: 'Hi, in words of my own',
    });

    // Without content: a draft to fill in later, no lists yet.
    const bare = saved(await createNewsletterIssue(deps, { subject: 'Later' }));
    expect(bare.issue).toMatchObject({ subject: 'Later', lists: [], private: false });
    expect(bare.warnings).toEqual([]);
    expect(await world.campaigns.getContent(bare.issue.id)).toBeUndefined();
  });

  it('refuses a missing subject, a text part without HTML, a bad web URL and an unknown tag, and creates nothing', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const html = '<p>Hello</p>';

    expect(await createNewsletterIssue(deps, { html, lists: [1] })).toMatchObject({
      code: 'missing_parameter',
      message: expect.stringContaining('subject'),
    });
    // A blank subject is a missing one, not an invalid one.
    expect(await createNewsletterIssue(deps, { subject: '  ', html, lists: [1] })).toMatchObject({
      code: 'missing_parameter',
      message: expect.stringContaining('subject'),
    });
    expect(
      await createNewsletterIssue(deps, { subject: 'Words only', text: 'Hello', lists: [1] }),
    ).toMatchObject({ code: 'missing_parameter', message: expect.stringContaining('html') });
    expect(
      await createNewsletterIssue(deps, {
        subject: 'Bad link',
        html,
        lists: [1],
        url: 'ftp://news.example.com/1',
      }),
    ).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('web_url') });
    expect(
      await createNewsletterIssue(deps, { subject: 'Typo', html: '<p>Hi {nmae}</p>', lists: [1] }),
    ).toMatchObject({ code: 'unknown_tag' });
    expect(await world.store.recentNewsletterIssues(10, true)).toEqual([]);
  });

  it('without content too: a subject of two lines or with a tag, an unknown list and a web URL that is not http(s) are refused, and nothing is created', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    for (const [input, code, named] of [
      [{ subject: 'Two\nlines' }, 'invalid_parameter', 'subject'],
      [{ subject: 'Hello {name}' }, 'invalid_parameter', 'subject'],
      [{ subject: 'Nowhere', lists: [9] }, 'unknown_list', 'list 9'],
      [{ subject: 'Script', url: 'javascript:alert(1)' }, 'invalid_parameter', 'web_url'],
    ] as const) {
      expect(await createNewsletterIssue(deps, input)).toMatchObject({
        code,
        message: expect.stringContaining(named),
      });
    }
    expect(await world.store.recentNewsletterIssues(10, true)).toEqual([]);
    // A draft with no lists yet is a draft still to be finished, not an error.
    expect(
      saved(await createNewsletterIssue(deps, { subject: 'Later', lists: [] })).issue,
    ).toMatchObject({
      subject: 'Later',
      lists: [],
    });
  });
});

describe('[campaign.lifecycle] an edit changes content only in draft or scheduled, privacy and URL at any time', () => {
  it('refuses every content field on a sent issue; privacy moves it off and back onto the keyless listing', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    // Nobody is on list 4: the send ends at once.
    const issue = await world.issue({ lists: [4] });
    await sendNewsletter(world.deps, { id: issue.id });
    await world.drain();
    const listed = async () =>
      (await world.store.recentNewsletterIssues(10, false)).map((each) => each.id);
    expect(await listed()).toEqual([issue.id]);
    const content = await world.campaigns.getContent(issue.id);

    for (const change of [
      { subject: 'Too late' },
      { html: '<p>Too late</p>' },
      { text: 'Too late' },
      { lists: [1] },
      // Refused for the state before the content is looked at: not for the tag.
      { subject: 'Too {late}' },
    ]) {
      expect(await editNewsletterIssue(deps, issue.id, change)).toMatchObject({
        code: 'invalid_state',
        message: `Newsletter ${issue.id} is sent; only a draft or scheduled newsletter can be edited.`,
      });
    }
    expect(await world.campaign(issue.id)).toMatchObject({ subject: issue.subject, lists: [4] });
    expect(await world.campaigns.getContent(issue.id)).toEqual(content);

    const hidden = saved(await editNewsletterIssue(deps, issue.id, { private: true }));
    expect(hidden.issue).toMatchObject({ status: 'sent', private: true });
    expect(hidden.warnings).toEqual([]);
    expect(await listed()).toEqual([]);
    saved(await editNewsletterIssue(deps, issue.id, { private: false }));
    expect(await listed()).toEqual([issue.id]);

    const linked = saved(
      await editNewsletterIssue(deps, issue.id, { url: 'https://news.example.com/sent' }),
    );
    expect(linked.issue).toMatchObject({ status: 'sent', url: 'https://news.example.com/sent' });
    const unlinked = saved(await editNewsletterIssue(deps, issue.id, { url: null }));
    expect(unlinked.issue.url).toBeUndefined();
    expect(await listed()).toEqual([issue.id]);
    expect(await editNewsletterIssue(deps, 999, { private: true })).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('999'),
    });
  });

  it('[campaign.content] a web URL set on a sent issue is an http(s) URL: another is refused and changes nothing', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const issue = await world.issue({ lists: [4], url: 'https://news.example.com/1' });
    await sendNewsletter(world.deps, { id: issue.id });
    await world.drain();
    for (const url of ['javascript:alert(1)', 'ftp://news.example.com/1', '']) {
      expect(await editNewsletterIssue(deps, issue.id, { url })).toMatchObject({
        code: 'invalid_parameter',
        message: expect.stringContaining('web_url'),
      });
    }
    expect(await world.campaign(issue.id)).toMatchObject({ url: 'https://news.example.com/1' });
    const moved = saved(
      await editNewsletterIssue(deps, issue.id, { url: 'https://news.example.com/one' }),
    );
    expect(moved.issue.url).toBe('https://news.example.com/one');
    const removed = saved(await editNewsletterIssue(deps, issue.id, { url: null }));
    expect(removed.issue.url).toBeUndefined();
  });

  it('a draft made public stays off the keyless listing, and an edit keeps a scheduled issue scheduled', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const draft = await world.issue({ private: true });
    const opened = saved(await editNewsletterIssue(deps, draft.id, { private: false }));
    expect(opened.issue).toMatchObject({ status: 'draft', private: false });
    expect(await world.store.recentNewsletterIssues(10, false)).toEqual([]);

    await world.campaigns.updateCampaign(draft.id, {
      expect: { statuses: ['draft'] },
      set: { status: 'scheduled' },
    });
    const renamed = saved(await editNewsletterIssue(deps, draft.id, { subject: 'Renamed' }));
    expect(renamed.issue).toMatchObject({ status: 'scheduled', subject: 'Renamed' });
  });

  it('an edit whose issue started sending meanwhile is refused, saying where the issue is now', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const issue = await world.issue();
    // Sent by someone else between the edit's read of the issue and its write.
    const read = world.campaigns.getContent.bind(world.campaigns);
    world.campaigns.getContent = async (id, options) => {
      const content = await read(id, options);
      await world.campaigns.updateCampaign(id, {
        expect: { statuses: ['draft'] },
        set: { status: 'sending' },
      });
      return content;
    };
    expect(await editNewsletterIssue(deps, issue.id, { subject: 'Late' })).toMatchObject({
      code: 'invalid_state',
      message: `Newsletter ${issue.id} is sending; only a draft or scheduled newsletter can be edited.`,
    });
    expect((await world.campaign(issue.id)).subject).toBe(issue.subject);
  });
});

describe('[campaign.content] an edit is validated as a whole again, with what it keeps', () => {
  it('refuses a subject with a tag, an unknown list and a bad web URL against the stored content, and changes nothing', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const issue = await world.issue();
    const content = await world.campaigns.getContent(issue.id);

    expect(await editNewsletterIssue(deps, issue.id, { subject: '{name}, news' })).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringContaining('subject'),
    });
    expect(await editNewsletterIssue(deps, issue.id, { lists: [99] })).toMatchObject({
      code: 'unknown_list',
    });
    expect(
      await editNewsletterIssue(deps, issue.id, { subject: 'New', url: 'ftp://news.example.com' }),
    ).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('web_url') });
    expect(await world.campaign(issue.id)).toMatchObject({ subject: issue.subject, lists: [1] });
    expect(await world.campaigns.getContent(issue.id)).toEqual(content);

    const edited = saved(
      await editNewsletterIssue(deps, issue.id, {
        subject: '  December issue  ',
        lists: [1, 4],
        url: 'https://news.example.com/december',
      }),
    );
    expect(edited.issue).toMatchObject({
      status: 'draft',
      subject: 'December issue',
      lists: [1, 4],
      url: 'https://news.example.com/december',
    });
    expect(edited.warnings).toEqual([]);
  });

  it('[campaign.text-part] a derived text part follows the HTML; one the operator wrote stays until replaced', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const issue = await world.issue();

    const rewritten = saved(
      await editNewsletterIssue(deps, issue.id, { html: '<p>Second edition, { name }</p>' }),
    );
    expect(rewritten.warnings).toHaveLength(1);
    const derived = await world.campaigns.getContent(issue.id);
    expect(derived).toMatchObject({ html: '<p>Second edition, { name }</p>', text_derived: true });
    expect(derived?.text).toContain('Second edition');

    saved(await editNewsletterIssue(deps, issue.id, { text: 'Words of my own' }));
    expect(await world.campaigns.getContent(issue.id)).toEqual({
      html: '<p>Second edition, { name }</p>',
      text: 'Words of my own',
    });
    saved(await editNewsletterIssue(deps, issue.id, { html: '<p>Third edition</p>' }));
    expect(await world.campaigns.getContent(issue.id)).toEqual({
      html: '<p>Third edition</p>',
      text: 'Words of my own',
    });
  });

  it('a draft without content: a text part alone is refused, a subject needs no content, an HTML part gives it one', async () => {
    const world = await campaignWorld();
    const deps = saving(world);
    const bare = saved(await createNewsletterIssue(deps, { subject: 'Bare' }));
    const id = bare.issue.id;

    expect(await editNewsletterIssue(deps, id, { text: 'Only words' })).toMatchObject({
      code: 'missing_parameter',
      message: expect.stringContaining('html'),
    });
    expect(await world.campaigns.getContent(id)).toBeUndefined();

    const renamed = saved(await editNewsletterIssue(deps, id, { subject: 'Still bare' }));
    expect(renamed.issue.subject).toBe('Still bare');
    expect(await world.campaigns.getContent(id)).toBeUndefined();

    const filled = saved(
      await editNewsletterIssue(deps, id, { html: '<p>At last</p>', lists: [4] }),
    );
    expect(filled.issue.lists).toEqual([4]);
    const content = await world.campaigns.getContent(id);
    expect(content).toMatchObject({ html: '<p>At last</p>', text_derived: true });
    expect(content?.text).toContain('At last');
  });
});

describe('[campaign.private-race] a privacy edit made as the run ends applies to the sent issue', () => {
  /** Runs `before` ahead of each of the store's edit writes, between the edit's read and write. */
  const beforeEachEditWrite = (world: CampaignWorld, before: () => Promise<void>): void => {
    const edit = world.campaigns.editIssue.bind(world.campaigns);
    world.campaigns.editIssue = async (...args) => {
      await before();
      return edit(...args);
    };
  };

  it('an edit that read the issue sending, and found it sent, is made again: private and unlisted', async () => {
    const world = await campaignWorld();
    await world.subscribe(2);
    const issue = await world.issue();
    expect(await sendNewsletter(world.deps, { id: issue.id })).toMatchObject({ status: 'sending' });
    // The run ends between the edit's read (sending) and its write.
    let ended = false;
    beforeEachEditWrite(world, async () => {
      if (ended) return;
      ended = true;
      await world.drain();
      expect((await world.campaign(issue.id)).status).toBe('sent');
    });
    const result = await editNewsletterIssue(saving(world), issue.id, { private: true });
    expect(saved(result).issue).toMatchObject({ status: 'sent', private: true });
    expect(await world.store.recentNewsletterIssues(50, false)).toEqual([]);
  });

  it('an edit whose issue moved on again before the second write is refused, naming the status', async () => {
    const world = await campaignWorld();
    const issue = await world.issue();
    // Before each write of the edit, the status moves on: draft → scheduled → draft.
    const moves: [string, string][] = [
      ['draft', 'scheduled'],
      ['scheduled', 'draft'],
    ];
    beforeEachEditWrite(world, async () => {
      const move = moves.shift();
      if (move)
        await world.campaigns.updateCampaign(issue.id, {
          expect: { statuses: [move[0] as 'draft'] },
          set: { status: move[1] as 'draft' },
        });
    });
    expect(await editNewsletterIssue(saving(world), issue.id, { private: true })).toMatchObject({
      code: 'invalid_state',
      message: expect.stringMatching(new RegExp(`^Newsletter ${issue.id} is a draft;`)),
    });
    expect(await world.campaign(issue.id)).toMatchObject({ status: 'draft', private: false });
  });

  it('an edit whose issue stayed put is written once, and a refused one not at all', async () => {
    const world = await campaignWorld();
    const issue = await world.issue();
    let writes = 0;
    beforeEachEditWrite(world, async () => {
      writes += 1;
    });
    saved(await editNewsletterIssue(saving(world), issue.id, { private: true }));
    expect(writes).toBe(1);
    expect(await editNewsletterIssue(saving(world), issue.id, { subject: ' ' })).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(writes).toBe(1);
  });
});
