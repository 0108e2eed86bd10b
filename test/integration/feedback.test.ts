/**
 * The feedback operation over a real DynamoDB Local table: what it stores, what it leaves
 * alone, what the other operations do with the result (no mail to B and P, the soft-bounce
 * count kept through their writes), and races with them.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CampaignStore } from '../../shared/adapters/store/campaign-store-port.ts';
import type { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import type { MailFeedback } from '../../shared/domain/decide-feedback.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { recordFeedback } from '../../shared/operations/record-feedback.ts';
import { testDependencies, testSettings } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { settling, streamWorker } from '../support/stream-worker.ts';

let deps: ReturnType<typeof testDependencies>;
let newsletter: NewsletterOperations;
let item: (email: string) => Promise<Record<string, unknown> | undefined>;
let store: DynamoStore;

beforeEach(async () => {
  const fresh = await freshStore();
  store = fresh.store;
  deps = testDependencies(store, { settings: testSettings({ transient_bounce_limit: 3 }) });
  newsletter = settling(
    createNewsletter(deps),
    streamWorker(fresh.client, fresh.tableName, deps).settle,
  );
  item = async (email) =>
    (
      await fresh.client.send(
        new GetCommand({
          TableName: fresh.tableName,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
          ConsistentRead: true,
        }),
      )
    ).Item;
});

/** Feedback about a mail; each call is about a new mail unless `mailId` says which. */
const feedback = (
  kind: MailFeedback['kind'],
  recipients: string[],
  mailId: string = randomUUID(),
): MailFeedback => ({ kind, mailId, recipients, detail: 'test' });

async function added(email: string, status: 'S' | 'C' = 'C'): Promise<Subscriber> {
  const result = await newsletter.add_subscriber({ email, status });
  if (isNewsletterError(result)) throw new Error(result.message);
  return result;
}

describe('recordFeedback over DynamoDB', () => {
  it('[feedback.bounce] stores B with a new version and `updated`, and counts Bounces', async () => {
    await added('ada@example.com');
    const before = await item('ada@example.com');
    deps.clock.advance(60_000);
    const outcomes = await recordFeedback(deps, feedback('hard-bounce', ['ada@example.com']));
    expect(outcomes).toEqual([{ outcome: 'bounced', subscriberId: before?.id }]);
    const after = await item('ada@example.com');
    expect(after).toMatchObject({
      status: 'B',
      version: Number(before?.version) + 1,
      updated: deps.clock.now().toISOString(),
      created: before?.created,
    });
    expect(deps.metrics.counts).toEqual({ Bounces: 1 });
  });

  it('[feedback.complaint] stores P and counts Complaints, also over B', async () => {
    await added('bob@example.com');
    await recordFeedback(deps, feedback('hard-bounce', ['bob@example.com']));
    await recordFeedback(deps, feedback('complaint', ['bob@example.com']));
    expect((await item('bob@example.com'))?.status).toBe('P');
    await recordFeedback(deps, feedback('hard-bounce', ['bob@example.com']));
    expect((await item('bob@example.com'))?.status).toBe('P');
    expect(deps.metrics.counts).toEqual({ Bounces: 1, Complaints: 1 });
  });

  it('[feedback.not-subscriber] leaves addresses that are no subscriber alone (the admin)', async () => {
    await added('cid@example.com');
    const outcomes = await recordFeedback(
      deps,
      feedback('complaint', ['admin@example.com', 'cid@example.com']),
    );
    expect(outcomes).toEqual([
      { outcome: 'not_subscriber' },
      { outcome: 'complained', subscriberId: expect.any(Number) },
    ]);
    expect(await item('admin@example.com')).toBeUndefined();
  });

  it('[feedback.transient] keeps the count on the item until a delivery or the limit', async () => {
    await added('dee@example.com');
    await recordFeedback(deps, feedback('soft-bounce', ['dee@example.com'], 'm1'));
    // The same mail's bounce again (SNS delivers at least once): counted once.
    await recordFeedback(deps, feedback('soft-bounce', ['dee@example.com'], 'm1'));
    await recordFeedback(deps, feedback('soft-bounce', ['dee@example.com'], 'm2'));
    expect(await item('dee@example.com')).toMatchObject({
      status: 'C',
      transient_bounces: 2,
      transient_bounce_mail: 'm2',
    });
    const version = Number((await item('dee@example.com'))?.version);
    await recordFeedback(deps, feedback('delivery', ['dee@example.com']));
    const reset = await item('dee@example.com');
    expect(reset?.transient_bounces).toBeUndefined();
    expect(reset?.version).toBe(version + 1);
    // Nothing counted: a delivery writes nothing.
    await recordFeedback(deps, feedback('delivery', ['dee@example.com']));
    expect((await item('dee@example.com'))?.version).toBe(version + 1);

    for (const mail of ['m3', 'm4', 'm5']) {
      await recordFeedback(deps, feedback('soft-bounce', ['dee@example.com'], mail));
    }
    expect(await item('dee@example.com')).toMatchObject({ status: 'B' });
    expect((await item('dee@example.com'))?.transient_bounces).toBeUndefined();
  });

  it('[feedback.transient] reads the limit from the settings, and only for soft bounces', async () => {
    await added('eve@example.com');
    let reads = 0;
    const counting = {
      ...deps,
      settings: async () => {
        reads += 1;
        return testSettings({ transient_bounce_limit: 1 });
      },
    };
    await recordFeedback(counting, feedback('delivery', ['eve@example.com']));
    await recordFeedback(counting, feedback('complaint', ['nobody@example.com']));
    expect(reads).toBe(0);
    await recordFeedback(counting, feedback('soft-bounce', ['eve@example.com']));
    expect(reads).toBe(1);
    expect((await item('eve@example.com'))?.status).toBe('B');
  });

  it('[campaign.report] notes the bounce or complaint of a campaign mail on its issue, and nothing else', async () => {
    const kim = await added('kim@example.com');
    const noted: Parameters<CampaignStore['markFeedback']>[] = [];
    const withCampaigns = {
      ...deps,
      campaigns: {
        markFeedback: async (...args: Parameters<CampaignStore['markFeedback']>) => {
          noted.push(args);
        },
      },
    };
    const ofIssue = (kind: MailFeedback['kind'], recipients: string[], mailId: string) => ({
      ...feedback(kind, recipients, mailId),
      newsletterId: 7,
    });
    // A delivery or a soft bounce is no outcome of the issue's report.
    await recordFeedback(withCampaigns, ofIssue('soft-bounce', ['kim@example.com'], 'soft'));
    await recordFeedback(withCampaigns, ofIssue('delivery', ['kim@example.com'], 'delivered'));
    // A campaign mail to an address that is no subscriber has no recipient record.
    await recordFeedback(withCampaigns, ofIssue('complaint', ['nobody@example.com'], 'nobody'));
    // A mail of the subscription process belongs to no issue.
    await recordFeedback(withCampaigns, feedback('hard-bounce', ['kim@example.com'], 'welcome'));
    expect(noted).toEqual([]);

    await recordFeedback(withCampaigns, ofIssue('hard-bounce', ['kim@example.com'], 'bounced'));
    await recordFeedback(withCampaigns, ofIssue('complaint', ['kim@example.com'], 'complained'));
    const at = deps.clock.now();
    expect(noted).toEqual([
      [7, kim.id, 'bounced', 'bounced', at],
      [7, kim.id, 'complained', 'complained', at],
    ]);
  });

  it('keeps the count through the writes of other operations', async () => {
    await added('fay@example.com', 'S');
    await recordFeedback(deps, feedback('soft-bounce', ['fay@example.com']));
    await newsletter.subscribe({ email: 'fay@example.com', name: 'Fay' });
    expect(await item('fay@example.com')).toMatchObject({ name: 'Fay', transient_bounces: 1 });
  });

  it('[mail.outbox-recheck] B and P get no mail: a queued activation is skipped, resubscribing sends none', async () => {
    for (const [email, kind] of [
      ['gus@example.com', 'hard-bounce'],
      ['hal@example.com', 'complaint'],
    ] as const) {
      // The activation is queued; the feedback of an earlier mail arrives before the mailer.
      const direct = createNewsletter(deps);
      await direct.subscribe({ email });
      await recordFeedback(deps, feedback(kind, [email]));
      await newsletter.subscribe({ email });
      await newsletter.subscribe({ email, name: 'Again' });
      expect(deps.mailer.sent.filter((mail) => mail.to === email)).toEqual([]);
    }
  });

  it('of racing complaint and bounce, the complaint wins in either order', async () => {
    for (let round = 0; round < 8; round += 1) {
      const email = `race-${round}@example.com`;
      await added(email);
      const results = await Promise.all([
        recordFeedback(deps, feedback('hard-bounce', [email])),
        recordFeedback(deps, feedback('complaint', [email])),
        newsletter.unsubscribe({ email }),
      ]);
      expect(results.filter(isNewsletterError)).toEqual([]);
      expect((await item(email))?.status).toBe('P');
    }
  });

  it('recovers the count when a store write is lost: the retried event counts once', async () => {
    await added('ivy@example.com');
    // The first write's answer is lost after it landed; the event is then delivered again.
    const lossy = {
      ...deps,
      store: Object.assign(Object.create(store) as DynamoStore, {
        replaceSubscriber: async (...args: Parameters<DynamoStore['replaceSubscriber']>) => {
          await store.replaceSubscriber(...args);
          throw new Error('answer lost');
        },
      }),
    };
    await expect(
      recordFeedback(lossy, feedback('soft-bounce', ['ivy@example.com'], 'lost')),
    ).rejects.toThrow('answer lost');
    await recordFeedback(deps, feedback('soft-bounce', ['ivy@example.com'], 'lost'));
    expect((await item('ivy@example.com'))?.transient_bounces).toBe(1);
  });
});
