/**
 * Sending an issue end to end, as an operator does it under `npm start`: the admin CLI writes
 * the issue and starts, pauses, resumes and cancels its send; the synthesized engine (the plans
 * and sends queues, their event source mappings with maximum concurrency, the planner and
 * sender functions with their own roles, every AWS call IAM-checked) mails through the local
 * SES; SES's mailbox simulator reports a bounce back through the feedback function. Oracles:
 * the mails the local SES stored, the records in the table, and the CLI's report.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_SUBSCRIBERS } from '../../infra/local/demo-data.ts';
import { rawHeader, type StoredMail } from '../../infra/local/stand-ins/ses-local.ts';
import {
  addressesOf,
  type CampaignOperator,
  campaignOperator,
  until,
} from './support/campaign-operator.ts';
import {
  type LocalService,
  listUnsubscribeUrl,
  startLocalService,
} from './support/local-service.ts';

// A send paces at a dozen mails a second (a few in the pause tests) and backs off for seconds
// after a throttle: each test waits for a whole send, longer on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let operator: CampaignOperator;

beforeAll(async () => {
  // The demo subscribers too: `newsletters send 1` is what the README tells a newcomer to run.
  service = await startLocalService({ demoSubscribers: true });
  operator = await campaignOperator(service);
});

afterAll(async () => {
  await operator?.close();
  await service?.stop();
});

const { cli, cliOk, createIssue, add, mailsOf, report, confirmedOn, statusOf } = {
  cli: (...argv: string[]) => operator.cli(...argv),
  cliOk: (...argv: string[]) => operator.cliOk(...argv),
  createIssue: (subject: string, lists: readonly number[]) => operator.createIssue(subject, lists),
  add: (email: string, lists: readonly number[], status?: 'C' | 'S') =>
    operator.add(email, lists, status),
  mailsOf: (subject: string) => operator.mailsOf(subject),
  report: (id: number) => operator.report(id),
  confirmedOn: (lists: readonly number[]) => operator.confirmedOn(lists),
  statusOf: (email: string) => operator.statusOf(email),
};

const LIST_PEOPLE = Array.from({ length: 24 }, (_, index) => `reader${index}@example.net`);
const BOUNCER = 'bounce@simulator.amazonses.com';

describe('[campaign.plan] the demo issue: `newsletters send 1` mails the demo subscribers', () => {
  it('every C subscriber of lists 1 and 2 gets issue 1 once, into the mail viewer', async () => {
    const out = await cliOk('newsletters', 'send', '1');
    expect(out).toMatch(/newsletter 1/);
    await service.stack.settled();

    const expected = DEMO_SUBSCRIBERS.filter((person) =>
      person.lists.some((list) => list === 1 || list === 2),
    )
      .map((person) => person.email)
      .sort();
    const mails = await mailsOf('Welcome to the newsletter');
    expect(addressesOf(mails)).toEqual(expected);
    expect(await operator.campaigns.getCampaign(1)).toMatchObject({
      status: 'sent',
      total: expected.length,
      sent: expected.length,
    });
  });
});

describe('[campaign.plan] create an issue and send it: every C subscriber of its lists once', () => {
  it('mails the C subscribers of lists 1 and 4 once each, with the unsubscribe headers, and no one else', async () => {
    for (const [index, email] of LIST_PEOPLE.entries()) {
      await add(email, index % 3 === 0 ? [1, 4] : index % 3 === 1 ? [1] : [4]);
    }
    await add(BOUNCER, [1]);
    await add('pending@example.net', [1], 'S');
    await add('beta@example.net', [3]);
    await service.stack.settled();
    const id = await createIssue('Issue A', [1, 4]);
    const expected = await confirmedOn([1, 4]);

    const out = await cliOk('newsletters', 'send', String(id));
    expect(out).toContain(`newsletter ${id}`);
    await service.stack.settled();

    expect(expected).toContain(BOUNCER);
    expect(expected).not.toContain('pending@example.net');
    expect(expected).not.toContain('beta@example.net');
    const mails = await mailsOf('Issue A');
    expect(addressesOf(mails)).toEqual(expected);
    for (const mail of mails) {
      // [campaign.unsubscribe-link] RFC 8058 on every campaign mail.
      expect(listUnsubscribeUrl(mail)).toMatch(/\/subscription\/unsubscribe\?token=/);
      expect(rawHeader(mail, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
      // [mail.list-id] The same List-Id as the welcome mail: one id for the newsletter.
      expect(rawHeader(mail, 'List-Id')).toEqual(['"Example Newsletter" <news.example.com>']);
      expect(mail.body.html).toContain('a { color: red }');
    }

    const listed = JSON.parse(await cliOk('newsletters', 'list', '--json')) as {
      id: number;
      status: string;
      total: number;
      sent: number;
    }[];
    expect(listed.find((issue) => issue.id === id)).toMatchObject({
      status: 'sent',
      total: expected.length,
      sent: expected.length,
    });
  });

  it('[feedback.bounce] the simulator’s bounce address becomes B, is counted as bounced, and gets nothing more', async () => {
    expect(await statusOf(BOUNCER)).toBe('B');
    const a = await report(await idOf('Issue A'));
    expect(a.bounced).toBe(1);
    expect(a.sent).toBe(a.recipients);

    const id = await createIssue('Issue B', [1]);
    await cliOk('newsletters', 'send', String(id));
    await service.stack.settled();
    expect(addressesOf(await mailsOf('Issue B'))).not.toContain(BOUNCER);
    expect(addressesOf(await mailsOf('Issue B'))).toEqual(await confirmedOn([1]));
  });
});

/** The id of the issue with this subject. */
async function idOf(subject: string): Promise<number> {
  const listed = JSON.parse(await cliOk('newsletters', 'list', '--all', '--json')) as {
    id: number;
    subject: string;
  }[];
  const found = listed.find((issue) => issue.subject === subject);
  if (!found) throw new Error(`no issue ${subject}`);
  return found.id;
}

describe('[campaign.pause] pause and resume', () => {
  it('[campaign.resume] pause stops the mails; a one-click unsubscribe while paused stops that person’s; resume finishes with sent = recipients − skipped', async () => {
    // Slow enough to pause in the middle: 3 mails a second for all workers together.
    service.setSettings({ campaign: { rate: 3 } });
    const id = await createIssue('Issue C', [1, 4]);
    await cliOk('newsletters', 'send', String(id));
    await until(async () => (await mailsOf('Issue C')).length >= 3, 'the first mails');

    expect(await cliOk('newsletters', 'pause', String(id))).toMatch(/Paused newsletter/i);
    await service.stack.settled();
    const atPause = addressesOf(await mailsOf('Issue C'));
    const recipients = await confirmedOn([1, 4]);
    expect(atPause.length).toBeLessThan(recipients.length);
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'paused' });

    // Nothing more goes out while paused, however long it lasts.
    await service.stack.settled();
    expect(addressesOf(await mailsOf('Issue C'))).toEqual(atPause);

    // [campaign.unsubscribe-link] Someone not reached yet leaves with one click in Issue A.
    const leaver = recipients.find((email) => !atPause.includes(email)) ?? '';
    const [mailA] = (await mailsOf('Issue A')).filter((mail) =>
      mail.destination.to.some((to) => to.includes(leaver)),
    );
    const oneClick = await service.request('POST', listUnsubscribeUrl(mailA as StoredMail) ?? '', {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(200);
    expect(await statusOf(leaver)).toBe('U');

    expect(await cliOk('newsletters', 'resume', String(id))).toMatch(/Resumed newsletter/i);
    await service.stack.settled();

    const mails = addressesOf(await mailsOf('Issue C'));
    expect(mails).toEqual(recipients.filter((email) => email !== leaver));
    const counts = await report(id);
    expect(counts).toMatchObject({ recipients: recipients.length, skipped: 1, failed: 0 });
    expect(counts.sent).toBe(counts.recipients - counts.skipped);
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({
      status: 'sent',
      sent: counts.sent,
    });
    service.resetSettings();
  });
});

describe('[campaign.cancel] cancel', () => {
  it('stops the send for good: no more mails, and the issue cannot be resumed', async () => {
    service.setSettings({ campaign: { rate: 3 } });
    const id = await createIssue('Issue D', [1, 4]);
    await cliOk('newsletters', 'send', String(id));
    await until(async () => (await mailsOf('Issue D')).length >= 2, 'the first mails');

    expect(await cliOk('newsletters', 'cancel', String(id))).toMatch(/Cancelled newsletter/i);
    await service.stack.settled();
    const atCancel = (await mailsOf('Issue D')).length;
    expect(atCancel).toBeLessThan((await confirmedOn([1, 4])).length);
    expect(await operator.campaigns.getCampaign(id)).toMatchObject({ status: 'cancelled' });

    const resume = await cli('newsletters', 'resume', String(id));
    expect(resume.code).not.toBe(0);
    expect(resume.stderr).toMatch(/cancelled/);
    await service.stack.settled();
    expect(await mailsOf('Issue D')).toHaveLength(atCancel);
    service.resetSettings();
  });
});

describe('[campaign.unsubscribe-link] a one-click unsubscribe from a campaign mail', () => {
  it('stops that person’s later mail', async () => {
    const person = LIST_PEOPLE[4] ?? '';
    const [mail] = (await mailsOf('Issue A')).filter((each) =>
      each.destination.to.some((to) => to.includes(person)),
    );
    // Already U (the pause test's leaver) or not: either way the click answers 200.
    const answer = await service.request('POST', listUnsubscribeUrl(mail as StoredMail) ?? '', {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.status).toBe(200);

    const id = await createIssue('Issue E', [1, 4]);
    await cliOk('newsletters', 'send', String(id));
    await service.stack.settled();
    const reached = addressesOf(await mailsOf('Issue E'));
    expect(reached).not.toContain(person);
    expect(reached).toEqual(await confirmedOn([1, 4]));
    expect(reached.length).toBeGreaterThan(10);
  });
});
