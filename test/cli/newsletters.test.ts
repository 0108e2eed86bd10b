import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { NewsletterIssue } from '../../shared/domain/newsletter-issue.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { RecordingLogger, RecordingMetrics, testSettings } from '../support/fixtures.ts';
import { type CliWorld, cliWorld } from './cli-harness.ts';

let world: CliWorld;
let newsletter: NewsletterOperations;

beforeEach(async () => {
  await world?.close();
  world = await cliWorld();
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
});

/** What a caller without key sees. */
async function publicIds(): Promise<number[]> {
  const issues = await newsletter.newsletters({}, { trusted: false });
  if (isNewsletterError(issues)) throw new Error(issues.message);
  return issues.map((issue) => issue.id);
}

describe('newsletters create', () => {
  it('creates issues with ids from the sequence; only sent, non-private ones are public', async () => {
    // Arrange / Act
    const draft = await world.cli(['newsletters', 'create', '--subject', 'Draft issue']);
    const sent = await world.cli([
      'newsletters',
      'create',
      '--subject',
      'Sent issue',
      '--status',
      'sent',
      '--url',
      'https://news.example.com/2',
    ]);
    const secret = await world.cli([
      'newsletters',
      'create',
      '--subject',
      'Internal',
      '--status',
      'sent',
      '--private',
    ]);
    // Assert
    expect([draft.code, sent.code, secret.code]).toEqual([0, 0, 0]);
    expect(draft.stdout).toBe('Created newsletter 1 (draft; listed to keyed callers only).\n');
    expect(sent.stdout).toBe('Created newsletter 2 (sent; listed publicly).\n');
    const stored = await world.store.getNewsletterIssue(2);
    expect(stored).toMatchObject({
      subject: 'Sent issue',
      status: 'sent',
      url: 'https://news.example.com/2',
      private: false,
    });
    expect(stored?.sent_at).toBe(stored?.created);
    expect((await world.store.getNewsletterIssue(1))?.sent_at).toBeNull();
    expect(await publicIds()).toEqual([2]);
    const trusted = (await newsletter.newsletters({})) as NewsletterIssue[];
    expect(trusted.map((issue) => issue.id)).toEqual([3, 2, 1]);
  });

  it('refuses a bad subject, status or url with exit code 2', async () => {
    const cases = [
      ['--subject', ''],
      ['--subject', 'two\nlines'],
      ['--subject', 'ok', '--status', 'published'],
      ['--subject', 'ok', '--url', 'javascript:alert(1)'],
    ];
    for (const args of cases) {
      const result = await world.cli(['newsletters', 'create', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/error: option/);
    }
    expect(await world.store.recentNewsletterIssues(10, true)).toEqual([]);
  });
});

describe('newsletters edit', () => {
  it('sets sent_at when an issue becomes sent and publishes it; private hides it again', async () => {
    await world.cli(['newsletters', 'create', '--subject', 'Autumn news']);
    expect(await publicIds()).toEqual([]);

    const sent = await world.cli([
      'newsletters',
      'edit',
      '1',
      '--status',
      'sent',
      '--url',
      'https://news.example.com/1',
    ]);
    expect(sent.code).toBe(0);
    const afterSend = await world.store.getNewsletterIssue(1);
    expect(afterSend?.status).toBe('sent');
    expect(afterSend?.sent_at).not.toBeNull();
    expect(afterSend?.sent_at && afterSend.sent_at >= afterSend.created).toBe(true);
    expect(await publicIds()).toEqual([1]);

    // Staying sent keeps the original sent_at.
    await world.cli(['newsletters', 'edit', '1', '--subject', 'Autumn news (corrected)']);
    const renamed = await world.store.getNewsletterIssue(1);
    expect(renamed).toMatchObject({
      subject: 'Autumn news (corrected)',
      sent_at: afterSend?.sent_at,
      url: 'https://news.example.com/1',
    });

    const hidden = await world.cli(['newsletters', 'edit', '1', '--private', 'true']);
    expect(hidden.stdout).toMatch(/sent, private; listed to keyed callers only/);
    expect(await publicIds()).toEqual([]);

    await world.cli(['newsletters', 'edit', '1', '--private', 'false', '--url', '']);
    expect(await publicIds()).toEqual([1]);
    expect((await world.store.getNewsletterIssue(1))?.url).toBeUndefined();

    await world.cli(['newsletters', 'edit', '1', '--status', 'draft']);
    expect(await world.store.getNewsletterIssue(1)).toMatchObject({
      status: 'draft',
      sent_at: null,
    });
    expect(await publicIds()).toEqual([]);
  });

  it('an unknown issue is exit 1, an empty change exit 2', async () => {
    const unknown = await world.cli(['newsletters', 'edit', '42', '--status', 'sent']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Newsletter 42 does not exist/);
    const nothing = await world.cli(['newsletters', 'edit', '42']);
    expect(nothing.code).toBe(2);
  });
});

describe('newsletters list', () => {
  it('shows the 10 newest of any status, newest first; --all shows every issue', async () => {
    for (let i = 1; i <= 12; i += 1) {
      const status = i % 3 === 0 ? 'sent' : 'draft';
      await world.cli(['newsletters', 'create', '--subject', `Issue ${i}`, '--status', status]);
    }
    const list = await world.cli(['newsletters', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^ID\s+STATUS\s+PRIVATE\s+PUBLIC\s+CREATED\s+SENT_AT\s+URL\s+SUBJECT$/,
    );
    expect(lines.slice(1).map((line) => Number(line.split(/\s+/)[0]))).toEqual([
      12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
    ]);
    expect(lines[1]).toMatch(/^12\s+sent\s+no\s+yes\s/);
    expect(lines[2]).toMatch(/^11\s+draft\s+no\s+no\s/);

    const all = await world.cli(['newsletters', 'list', '--all', '--json']);
    const issues = JSON.parse(all.stdout) as { id: number; private: boolean }[];
    expect(issues.map((issue) => issue.id)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(issues.every((issue) => issue.private === false)).toBe(true);
  });

  it('says so when there are none', async () => {
    const result = await world.cli(['newsletters', 'list']);
    expect(result.stdout).toBe('No newsletters yet.\n');
  });
});
