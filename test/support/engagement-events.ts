/**
 * Opens and clicks for the tests over a campaign world: an issue sent to some readers, SES's
 * events of their mails as SNS delivers them to the engagement queue (each with the tags the
 * mail went out with, its token among them), the recorder run on a batch as its function runs
 * it, and the report as the operator reads it.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { readEngagementEvent } from '../../shared/adapters/mail/ses-engagement-event.ts';
import { DynamoSubscriberDirectory } from '../../shared/adapters/store/dynamo-subscriber-directory.ts';
import { DynamoSubscriberHistory } from '../../shared/adapters/store/dynamo-subscriber-history.ts';
import type { EngagementStore } from '../../shared/adapters/store/engagement-store-port.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import type { TrackingMode } from '../../shared/domain/engagement/engagement.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import {
  type CampaignReport,
  campaignReport,
  type ReportRow,
} from '../../shared/operations/campaign/campaign-report.ts';
import {
  type EngagementBatchOutcome,
  type EngagementMessage,
  recordEngagement,
} from '../../shared/operations/campaign/record-engagement.ts';
import { v2SubscriberIssues } from '../../shared/operations/v2/v2-subscriber-issues.ts';
import { type CampaignWorld, started } from './campaign-world.ts';

/** An issue sent to `count` new subscribers; its id and the subscribers. */
export async function sentIssue(
  world: CampaignWorld,
  count: number,
  html = '<p>Hi {name}</p><p><a href="https://example.org/a">A</a> <a href="https://example.org/b">B</a></p>',
): Promise<{ id: number; readers: SubscriberRecord[] }> {
  const readers = await world.subscribe(count);
  const issue = await world.issue({ html });
  await started(world, issue.id);
  await world.drain();
  expect((await world.campaign(issue.id)).status).toBe('sent');
  return { id: issue.id, readers };
}

/** `campaign.tracking` from now on, as the operator sets it. */
export function track(world: CampaignWorld, tracking: TrackingMode): void {
  world.current.settings = {
    ...world.current.settings,
    campaign: { ...world.current.settings.campaign, tracking },
  };
}

export interface EventOptions {
  readonly at?: string;
  readonly link?: string;
  readonly snsId?: string;
  /** As mail sent before mails carried a token: its tags without one. */
  readonly legacy?: boolean;
}

/**
 * SES's event of the mail the world's SES took for that issue and subscriber, with its tags
 * (ids alone for a mail it never took), as SNS delivers it to the engagement queue (not raw).
 */
export function engagementMessage(
  world: CampaignWorld,
  kind: 'open' | 'click',
  newsletter: number | string,
  subscriber: number | string,
  options: EventOptions = {},
): EngagementMessage {
  const at = options.at ?? new Date(world.clock.now()).toISOString();
  const sent = world.ses.mails.find(
    (each) =>
      each.tags?.newsletter === String(newsletter) && each.tags?.subscriber === String(subscriber),
  );
  const tags: Record<string, string> = sent?.tags
    ? { ...sent.tags }
    : { newsletter: String(newsletter), run: '1', subscriber: String(subscriber) };
  if (options.legacy) delete tags.mail;
  const mail = {
    messageId: sent?.messageId ?? `ses-${randomUUID()}`,
    tags: Object.fromEntries(Object.entries(tags).map(([name, value]) => [name, [value]])),
  };
  const ses =
    kind === 'open'
      ? { eventType: 'Open', mail, open: { timestamp: at, ipAddress: '192.0.2.1', userAgent: 'x' } }
      : {
          eventType: 'Click',
          mail,
          click: { timestamp: at, link: options.link ?? 'https://example.org/a', linkTags: {} },
        };
  const body = JSON.stringify({
    Type: 'Notification',
    MessageId: options.snsId ?? randomUUID(),
    TopicArn: 'arn:aws:sns:eu-west-1:123456789012:engagement',
    Message: JSON.stringify(ses),
  });
  return { messageId: randomUUID(), reading: readEngagementEvent(body) };
}

/** The recorder on one batch, under the world's settings, as its function runs it. */
export function recordBatch(
  world: CampaignWorld,
  messages: readonly EngagementMessage[],
  engagement: EngagementStore = world.engagement,
): Promise<EngagementBatchOutcome> {
  return recordEngagement(
    { log: world.log, metrics: world.metrics, settings: world.deps.settings, engagement },
    messages,
  );
}

/** The report as `newsletters report` reads it, with its rows, in a tracking mode. */
export async function issueReport(
  world: CampaignWorld,
  id: number,
  tracking: TrackingMode = 'counts',
): Promise<{ report: CampaignReport; rows: ReportRow[] }> {
  const rows: ReportRow[] = [];
  const result = await campaignReport(
    { campaigns: world.campaigns, engagement: { store: world.engagement, tracking } },
    id,
    (page) => {
      rows.push(...page);
    },
  );
  if (isNewsletterError(result)) throw new Error(result.message);
  return { report: result, rows };
}

type Item = Record<string, unknown>;

/** Reads of a world's table that the engagement tests check what was kept with. */
export interface EngagementReads {
  /** Every item of the table, consistently read. */
  scan(): Promise<Item[]>;
  recordOf(id: number, subscriber: number): ReturnType<CampaignWorld['campaigns']['getRecipient']>;
  /** The subscriber's list of engaged issues (or its tombstone). */
  engagedOf(subscriber: number): Promise<Item | undefined>;
  /** A person's issues as v2 `GET /subscribers/{id}/issues` answers them. */
  historyOf(subscriber: number): Promise<Item[]>;
}

export function engagementReads(world: CampaignWorld): EngagementReads {
  const scan = async (): Promise<Item[]> => {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await world.table.client.send(
        new ScanCommand({
          TableName: world.table.name,
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  return {
    scan,
    recordOf: (id, subscriber) =>
      world.campaigns.getRecipient({ newsletterId: id, legacy: false }, subscriber),
    engagedOf: async (subscriber) =>
      (await scan()).find(
        (item) =>
          item.pk === keys.engaged(subscriber).pk && item.sk === keys.engaged(subscriber).sk,
      ),
    historyOf: async (subscriber) => {
      const page = await v2SubscriberIssues(
        {
          store: world.store,
          settings: world.deps.settings,
          now: world.deps.now,
          log: world.log,
          directory: new DynamoSubscriberDirectory(world.table.client, world.table.name),
          history: new DynamoSubscriberHistory(world.table.client, world.table.name),
        },
        String(subscriber),
        undefined,
      );
      if (isNewsletterError(page)) throw new Error(page.message);
      return page.issues as unknown as Item[];
    },
  };
}
