/**
 * `newsletters create|edit|list|send|pause|resume|cancel` against DynamoDB Local, with the
 * campaign planner's queue at the SQS stand-in: the commands write issues and move them through
 * the lifecycle; sending itself is the engine's (test/integration/campaign-engine.test.ts, and
 * end to end test/e2e/campaign-journey.test.ts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type SqsLocal, startSqsLocal } from '../../infra/local/stand-ins/sqs-local.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { NewsletterIssue } from '../../shared/domain/newsletter-issue.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { RecordingLogger, RecordingMetrics, testSettings } from '../support/fixtures.ts';
import { CLI_SETTINGS, type CliWorld, cliWorld } from './cli-harness.ts';

let world: CliWorld;
let newsletter: NewsletterOperations;
let sqs: SqsLocal;
let queueUrl: string;

beforeEach(async () => {
  await world?.close();
  await sqs?.stop();
  world = await cliWorld();
  sqs = await startSqsLocal();
  queueUrl = sqs.createQueue('plans');
  newsletter = createNewsletter({
    store: world.store,
    settings: async () => testSettings(),
    now: () => new Date(),
    log: new RecordingLogger(),
    metrics: new RecordingMetrics(),
  });
});

afterAll(async () => {
  await world.close();
  await sqs.stop();
});

/** What a caller without key sees. */
async function publicIds(): Promise<number[]> {
  const issues = await newsletter.newsletters({}, { trusted: false });
  if (isNewsletterError(issues)) throw new Error(issues.message);
  return issues.map((issue) => issue.id);
}

/** Writes a file into the world's folder and returns its name. */
async function file(name: string, text: string): Promise<string> {
  await writeFile(join(world.dir, name), text);
  return name;
}

const HTML = '<h1>Hello {name}</h1><p>News.</p><p><a href="{unsubscription_url}">Leave</a></p>';

describe('[campaign.content] newsletters create', () => {
  it('creates a draft with its content, the text part derived, and prints newsletter <id>', async () => {
    const html = await file('issue.html', HTML);
    const result = await world.cli([
      'newsletters',
      'create',
      '--subject',
      'November',
      '--html',
      html,
      '--lists',
      '1,4',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Created newsletter 1 (draft; listed to keyed callers only).\n');
    const campaigns = (await import('../../shared/adapters/store/dynamo-campaign-store.ts'))
      .DynamoCampaignStore;
    const store = new campaigns(world.client, world.tableName);
    expect(await store.getCampaign(1)).toMatchObject({ status: 'draft', lists: [1, 4] });
    const content = await store.getContent(1);
    expect(content?.html).toBe(HTML);
    expect(content?.text).toContain('Hello {name}');
    expect(content?.text).toContain('[{unsubscription_url}]');
    expect(await publicIds()).toEqual([]);
  });

  it('a draft without content is allowed; a bad subject, url or lists is exit 2 before anything is written', async () => {
    expect((await world.cli(['newsletters', 'create', '--subject', 'Later'])).code).toBe(0);
    for (const args of [
      ['--subject', ''],
      ['--subject', 'two\nlines'],
      ['--subject', 'ok', '--url', 'javascript:alert(1)'],
      ['--subject', 'ok', '--lists', 'one'],
    ]) {
      const result = await world.cli(['newsletters', 'create', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/error: option/);
    }
    expect((await world.store.recentNewsletterIssues(10, true)).map((issue) => issue.id)).toEqual([
      1,
    ]);
  });

  it('[campaign.tags] refuses an unknown tag and an unknown list with exit 1, naming them', async () => {
    const bad = await file('bad.html', '<p>Hello {nmae}</p>');
    const tag = await world.cli([
      'newsletters',
      'create',
      '--subject',
      'x',
      '--html',
      bad,
      '--lists',
      '1',
    ]);
    expect(tag.code).toBe(1);
    expect(tag.stderr).toMatch(/\{nmae\} is not a tag/);
    const html = await file('ok.html', HTML);
    const list = await world.cli([
      'newsletters',
      'create',
      '--subject',
      'x',
      '--html',
      html,
      '--lists',
      '9',
    ]);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/list 9 does not exist/);
    expect(await world.store.recentNewsletterIssues(10, true)).toEqual([]);
  });
});

describe('[campaign.lifecycle] newsletters edit', () => {
  it('changes content only of a draft; --status is gone; private and url at any time', async () => {
    const html = await file('issue.html', HTML);
    await world.cli([
      'newsletters',
      'create',
      '--subject',
      'Autumn',
      '--html',
      html,
      '--lists',
      '1',
    ]);
    const renamed = await world.cli(['newsletters', 'edit', '1', '--subject', 'Autumn news']);
    expect(renamed.code).toBe(0);
    expect((await world.store.getNewsletterIssue(1))?.subject).toBe('Autumn news');
    const status = await world.cli(['newsletters', 'edit', '1', '--status', 'sent']);
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/unknown option '--status'/);
    const hidden = await world.cli([
      'newsletters',
      'edit',
      '1',
      '--private',
      'true',
      '--url',
      'https://x.example/1',
    ]);
    expect(hidden.stdout).toMatch(/draft, private; listed to keyed callers only/);
    expect(await world.store.getNewsletterIssue(1)).toMatchObject({
      private: true,
      url: 'https://x.example/1',
    });
  });

  it('an unknown issue is exit 1, an empty change exit 2', async () => {
    const unknown = await world.cli(['newsletters', 'edit', '42', '--subject', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Newsletter 42 does not exist/);
    const nothing = await world.cli(['newsletters', 'edit', '42']);
    expect(nothing.code).toBe(2);
  });
});

describe('[campaign.lifecycle] newsletters send, pause, resume, cancel', () => {
  it('send starts a run and queues its first page; pause and resume and cancel move the status', async () => {
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'Go', '--html', html, '--lists', '1']);
    const options = ['--campaign-queue', queueUrl];
    const sent = await world.cli([...options, 'newsletters', 'send', '1']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/Sending newsletter 1 \(run 1\)/);
    const queued = sqs.messages('plans').map((body) => JSON.parse(body));
    expect(queued).toEqual([
      { kind: 'plan', newsletter_id: 1, run: 1, page: 0, after: 0, walk: 0 },
    ]);
    const paused = await world.cli([...options, 'newsletters', 'pause', '1']);
    expect(paused.stdout).toMatch(/Paused newsletter 1: 0 of 0\+ \(planning\) sent/);
    const resumed = await world.cli([...options, 'newsletters', 'resume', '1']);
    expect(resumed.code).toBe(0);
    expect(sqs.messages('plans').map((body) => JSON.parse(body).kind)).toEqual([
      'plan',
      'plan',
      'walk',
    ]);
    const list = await world.cli(['newsletters', 'list']);
    expect(list.stdout).toMatch(/^1\s+sending\s+no\s+no\s+1\s+0\/0\s/m);
    const cancelled = await world.cli([...options, 'newsletters', 'cancel', '1']);
    expect(cancelled.stdout).toMatch(/Cancelled newsletter 1/);
    const again = await world.cli([...options, 'newsletters', 'send', '1']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /Newsletter 1 is cancelled; only a draft or scheduled newsletter can be sent/,
    );
  });

  it('send without a queue says where to find one', async () => {
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'Go', '--html', html, '--lists', '1']);
    const result = await world.cli(['newsletters', 'send', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No campaign queue configured/);
    expect((await world.store.getNewsletterIssue(1))?.status).toBe('draft');
  });

  it('[campaign.empty-values] names the settings’ tag fallbacks the test will show', async () => {
    await world.close();
    world = await cliWorld({
      ...CLI_SETTINGS,
      campaign: { tag_fallbacks: { name: 'reader', profile_city: 'your city' } },
    });
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'T', '--html', html, '--lists', '1']);
    const queued = await world.cli([
      '--campaign-queue',
      queueUrl,
      'newsletters',
      'test',
      '1',
      '--to',
      'a@example.com',
    ]);
    expect(queued.stdout).toBe(
      'Test of newsletter 1 queued for a@example.com.\n' +
        'Empty values read as: {name} "reader", {profile_city} "your city" (campaign.tag_fallbacks).\n',
    );
  });
});

describe('[campaign.listing] newsletters list', () => {
  it('shows the 10 newest of any status, newest first, with lists and counts; --all shows every issue', async () => {
    for (let i = 1; i <= 12; i += 1)
      await world.cli(['newsletters', 'create', '--subject', `Issue ${i}`]);
    const list = await world.cli(['newsletters', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^ID\s+STATUS\s+PRIVATE\s+PUBLIC\s+LISTS\s+SENT\s+CREATED\s+SENT_AT\s+SUBJECT$/,
    );
    expect(lines.slice(1).map((line) => Number(line.split(/\s+/)[0]))).toEqual([
      12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
    ]);
    expect(lines[1]).toMatch(/^12\s+draft\s+no\s+no\s+-\s+-\s/);
    const all = await world.cli(['newsletters', 'list', '--all', '--json']);
    const issues = JSON.parse(all.stdout) as { id: number; private: boolean }[];
    expect(issues.map((issue) => issue.id)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const trusted = (await newsletter.newsletters({})) as NewsletterIssue[];
    expect(trusted[0]).toMatchObject({ id: 12, status: 'draft', total: 0, sent: 0 });
  });

  it('says so when there are none', async () => {
    const result = await world.cli(['newsletters', 'list']);
    expect(result.stdout).toBe('No newsletters yet.\n');
  });

  it('[campaign.schedule-overdue] marks MISSED an issue still scheduled past the lateness, whatever the cause', async () => {
    // Arrange: three scheduled issues, as a schedule that never fired (or whose starter failed
    // before its write) leaves them: 20 and 10 minutes past their time, and one fired late.
    const { DynamoCampaignStore } = await import(
      '../../shared/adapters/store/dynamo-campaign-store.ts'
    );
    const store = new DynamoCampaignStore(world.client, world.tableName);
    const ago = (minutes: number) =>
      `${new Date(Date.now() - minutes * 60_000).toISOString().slice(0, 19)}Z`;
    const times = [ago(20), ago(10), ago(30)];
    for (const [index, at] of times.entries()) {
      await world.cli(['newsletters', 'create', '--subject', `S${index}`]);
      await store.updateCampaign(index + 1, {
        expect: { statuses: ['draft'] },
        set: {
          status: 'scheduled',
          scheduled_at: at,
          ...(index === 2 ? { schedule_missed_at: '2026-11-22T10:00:00.000Z' } : {}),
        },
      });
    }
    // Act
    const list = await world.cli(['newsletters', 'list']);
    // Assert: the default lateness is 15 minutes.
    expect(list.stdout).toMatch(
      new RegExp(
        `^1\\s+scheduled ${times[0]} \\(MISSED: not started 15 min after its time\\)\\s`,
        'm',
      ),
    );
    expect(list.stdout).toMatch(new RegExp(`^2\\s+scheduled ${times[1]}\\s+no`, 'm'));
    expect(list.stdout).toMatch(
      new RegExp(`^3\\s+scheduled ${times[2]} \\(MISSED: fired 2026-11-22T10:00:00.000Z\\)`, 'm'),
    );
  });
});

describe('[campaign.copy] newsletters copy', () => {
  it('makes a new draft of an issue; an unknown one is exit 1', async () => {
    const html = await file('issue.html', HTML);
    await world.cli([
      'newsletters',
      'create',
      '--subject',
      'Original',
      '--html',
      html,
      '--lists',
      '1',
      '--private',
    ]);
    const copied = await world.cli(['newsletters', 'copy', '1']);
    expect(copied.stdout).toBe(
      'Created newsletter 2 (draft, private; listed to keyed callers only), a copy of newsletter 1.\n',
    );
    expect((await world.store.getNewsletterIssue(2))?.subject).toBe('Original');
    expect((await world.cli(['newsletters', 'copy', '9'])).code).toBe(1);
  });
});

describe('[campaign.test-send] newsletters test', () => {
  it('queues a test to the given addresses, and refuses a sixth', async () => {
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'T', '--html', html, '--lists', '1']);
    const options = ['--campaign-queue', queueUrl];
    const queued = await world.cli([
      ...options,
      'newsletters',
      'test',
      '1',
      '--to',
      'a@example.com',
      '--to',
      'B@example.com',
    ]);
    expect(queued.stdout).toBe('Test of newsletter 1 queued for a@example.com, b@example.com.\n');
    const [message] = sqs.messages('plans').map((body) => JSON.parse(body));
    expect(message).toMatchObject({
      kind: 'test',
      newsletter_id: 1,
      to: ['a@example.com', 'b@example.com'],
    });
    const six = Array.from({ length: 6 }, (_, i) => ['--to', `t${i}@example.com`]).flat();
    const refused = await world.cli([...options, 'newsletters', 'test', '1', ...six]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/at most 5 addresses/);
    expect((await world.store.getNewsletterIssue(1))?.status).toBe('draft');
  });
});

describe('[campaign.report] newsletters report', () => {
  it('prints the counts of an issue, and an empty CSV for one never sent', async () => {
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'R', '--html', html, '--lists', '1']);
    const report = await world.cli(['newsletters', 'report', '1']);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^Newsletter 1 \(draft, run 0\): R/);
    expect(report.stdout).toMatch(/^sent\s+0$/m);
    const csv = await world.cli(['newsletters', 'report', '1', '--csv', '-']);
    expect(csv.stdout).toBe('email,subscriber_id,outcome,at,message_id\n');
    const missing = await world.cli(['newsletters', 'report', '7', '--csv', 'out.csv']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Newsletter 7 does not exist/);
  });
});

describe('[engagement.modes] newsletters report --csv in each tracking mode', () => {
  it('adds first open and click per recipient only with campaign.tracking individual', async () => {
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'E', '--html', html, '--lists', '1']);
    // A sent recipient with a first open and click, as the recorder leaves it.
    await world.client.send(
      new PutCommand({
        TableName: world.tableName,
        Item: {
          ...keys.recipient(1, 7),
          subscriber_id: 7,
          run: 1,
          state: 'sent',
          attempts: 1,
          message_id: 'ses-7',
          at: '2026-11-22T10:00:00.000Z',
          opened_at: '2026-11-22T10:05:00.000Z',
          clicked_at: '2026-11-22T10:06:00.000Z',
        },
      }),
    );
    const counts = await world.cli(['newsletters', 'report', '1', '--csv', '-']);
    expect(counts.stdout).toBe(
      'email,subscriber_id,outcome,at,message_id\n,7,sent,2026-11-22T10:00:00.000Z,ses-7\n',
    );
    world.parameters.put(
      ENV_DEFAULTS.settingsParameter,
      JSON.stringify({ ...CLI_SETTINGS, campaign: { tracking: 'individual' } }),
    );
    const individual = await world.cli(['newsletters', 'report', '1', '--csv', '-']);
    expect(individual.stdout).toBe(
      'email,subscriber_id,outcome,at,message_id,opened_at,clicked_at\n' +
        ',7,sent,2026-11-22T10:00:00.000Z,ses-7,2026-11-22T10:05:00.000Z,2026-11-22T10:06:00.000Z\n',
    );
  });
});

describe('[campaign.watch] newsletters watch', () => {
  it('ends at once for an issue that is not sending, saying where it stands', async () => {
    await world.cli(['newsletters', 'create', '--subject', 'W']);
    const watched = await world.cli(['newsletters', 'watch', '1']);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toBe('Newsletter 1 is draft: not sent yet.\n');
    expect(watched.stderr).toMatch(/^draft: 0\/0 settled/);
  });

  it('send --new-only needs a sent issue', async () => {
    const html = await file('issue.html', HTML);
    await world.cli(['newsletters', 'create', '--subject', 'N', '--html', html, '--lists', '1']);
    const result = await world.cli([
      '--campaign-queue',
      queueUrl,
      'newsletters',
      'send',
      '1',
      '--new-only',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Newsletter 1 is a draft; only a sent newsletter can be sent to new subscribers/,
    );
  });
});
