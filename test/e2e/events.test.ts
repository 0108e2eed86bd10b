/**
 * Events out, as deployed ([events.stream], [events.once]): the synthesized stack under the
 * local cloud, a rule of the test's own on the stack's bus. Each change of a subscriber or an
 * issue made through the service's own paths (the form, the links, the APIs, SES's feedback,
 * the CLI's sends) reaches the bus as its event; the same stream records handed to the reader
 * again make no event with a new id; the bus away does not hold up sign-ups and loses nothing;
 * a publisher killed mid-batch loses nothing.
 */

import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../infra/local/cloud/event-bus.ts';
import { wireImage } from '../../infra/local/cloud/stream-mappings.ts';
import { EVENT_SOURCE, type EventType } from '../../shared/domain/events/event-catalogue.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { type CampaignOperator, campaignOperator, until } from './support/campaign-operator.ts';
import {
  type LocalService,
  linksIn,
  listUnsubscribeUrl,
  startLocalService,
} from './support/local-service.ts';

let service: LocalService;
let operator: CampaignOperator;
let db: DynamoDBDocumentClient;
const seen: BusEvent[] = [];

/** The function of the stack whose logical id holds `part`. */
function functionId(part: string): string {
  const fn = service.stack.cloud.stack.functions().find((each) => each.logicalId.includes(part));
  if (!fn) throw new Error(`no function ${part}`);
  return fn.logicalId;
}

/** The newsletter events on the bus so far, as their `detail`. */
const detailsOf = (events: readonly BusEvent[]) =>
  events.map((event) => event.detail as { id: string; type: EventType; subscriber_id?: number });

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  db = documentClient(service.stack.dynamo.endpoint);
  const buses = service.stack.cloud.eventBuses;
  if (!buses) throw new Error('the stack has no bus');
  const [bus] = service.stack.cloud.stack.eventBuses();
  buses.addRule({
    bus: bus ?? '',
    pattern: { source: [EVENT_SOURCE] },
    deliver: (event) => seen.push(event),
  });
});

afterAll(async () => {
  db?.destroy();
  await operator?.close();
  await service?.stop();
});

/** The events of one subscriber on the bus, once everything is quiet. */
async function eventsOf(subscriberId: number): Promise<EventType[]> {
  await service.stack.settled();
  return detailsOf(seen)
    .filter((detail) => detail.subscriber_id === subscriberId)
    .map((detail) => detail.type);
}

async function idOf(email: string): Promise<number> {
  const subscriber = await service.subscriber(email);
  if (!subscriber) throw new Error(`no ${email}`);
  return subscriber.id;
}

describe('[events.stream] every change reaches the bus as its event', () => {
  it('a sign-up through the form and the links: subscribed, confirmed, joined, unsubscribed, left', async () => {
    const email = 'events-ada@example.com';
    expect((await service.post('/subscribe', { email, lists: [1] })).status).toBe(200);
    const [activation] = await service.mails(email);
    if (!activation) throw new Error('no activation mail');
    const confirm = linksIn(activation).confirm;
    if (!confirm) throw new Error('no confirm link');
    await service.post(
      confirm,
      { token: new URL(confirm).searchParams.get('token') },
      { type: 'form' },
    );
    await service.stack.settled();
    const welcome = (await service.mails(email)).find((mail) => listUnsubscribeUrl(mail));
    const oneClick = welcome && listUnsubscribeUrl(welcome);
    if (!oneClick) throw new Error('no List-Unsubscribe');
    await service.post(oneClick, { 'List-Unsubscribe': 'One-Click' }, { type: 'form' });
    const subscriber = await service.subscriber(email);
    if (!subscriber) throw new Error(`no ${email}`);
    const id = subscriber.id;
    const perList = (type: EventType) => subscriber.lists.map(() => type);
    expect(await eventsOf(id)).toEqual([
      'subscriber.subscribed',
      'subscriber.confirmed',
      ...perList('subscriber.list.joined'),
      'subscriber.unsubscribed',
      ...perList('subscriber.list.left'),
    ]);
    const details = detailsOf(seen).filter((detail) => detail.subscriber_id === id) as unknown as {
      type: string;
      data: { how?: string };
    }[];
    expect(details.find((d) => d.type === 'subscriber.subscribed')?.data.how).toBe('public_form');
    expect(details.find((d) => d.type === 'subscriber.confirmed')?.data.how).toBe('link');
    expect(details.find((d) => d.type === 'subscriber.unsubscribed')?.data.how).toBe('one_click');
  });

  it('the keyed APIs and SES: updated, bounced, complained, deleted, expired', async () => {
    const key = { api_key: service.apiKey };
    await operator.add('events-bob@example.com', [1]);
    await service.post('/subscribe', { ...key, email: 'events-bob@example.com', name: 'Robert' });
    const bob = await service.subscriber('events-bob@example.com');
    if (!bob) throw new Error('no events-bob');
    await service.post('/subscribers/delete', { ...key, email: 'events-bob@example.com' });
    expect(await eventsOf(bob.id)).toEqual([
      'subscriber.confirmed',
      ...bob.lists.map(() => 'subscriber.list.joined'),
      'subscriber.updated',
      'subscriber.deleted',
    ]);
    await service.post('/subscribe', { email: 'bounce@simulator.amazonses.com' });
    await service.post('/subscribe', { email: 'complaint@simulator.amazonses.com' });
    expect(await eventsOf(await idOf('bounce@simulator.amazonses.com'))).toContain(
      'subscriber.bounced',
    );
    expect(await eventsOf(await idOf('complaint@simulator.amazonses.com'))).toContain(
      'subscriber.complained',
    );
    // DynamoDB's TTL deletes a pending subscriber whose activation expired.
    const expiring = {
      pk: 'SUBSCRIBER#events-gone@example.com',
      sk: 'subscriber',
      recent_pk: 'subscriber#9',
      id: 900_009,
      email: 'events-gone@example.com',
      status: 'S',
      lists: [1],
      version: 1,
      tokens: {},
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-01T00:00:00.000Z',
      expires_at: Math.floor(Date.now() / 1000) - 60,
    };
    await db.send(new PutCommand({ TableName: service.stack.tableName, Item: expiring }));
    await db.send(
      new DeleteCommand({
        TableName: service.stack.tableName,
        Key: { pk: expiring.pk, sk: 'subscriber' },
      }),
    );
    expect(await eventsOf(900_009)).toEqual(['subscriber.subscribed', 'subscriber.expired']);
    const deleted = seen.find(
      (event) => (event.detail as { type: string }).type === 'subscriber.deleted',
    );
    expect(JSON.stringify(deleted)).not.toContain('events-bob');
  });

  it("an issue's life: scheduled, sending, sent, paused (quota), cancelled", async () => {
    await operator.add('events-reader@example.com', [1]);
    const sent = await operator.createIssue('Events: sent', [1]);
    await operator.cliOk('newsletters', 'send', String(sent), '--yes');
    await service.stack.settled();
    const scheduled = await operator.createIssue('Events: scheduled', [1]);
    const at = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await operator.cliOk('newsletters', 'schedule', String(scheduled), '--at', at);
    const paused = await operator.createIssue('Events: paused', [1]);
    const { sentLast24Hours } = service.ses.sendQuota();
    service.ses.setQuota({ max24HourSend: sentLast24Hours });
    service.ses.enforceQuota(true);
    try {
      await operator.cliOk('newsletters', 'send', String(paused), '--yes');
      await service.stack.settled();
      await operator.cliOk('newsletters', 'cancel', String(paused));
    } finally {
      service.ses.enforceQuota(false);
      service.ses.setQuota({ max24HourSend: 50_000 });
    }
    await service.stack.settled();
    const issues = detailsOf(seen) as unknown as {
      type: string;
      issue_id?: number;
      data: Record<string, unknown>;
    }[];
    const of = (id: number) => issues.filter((each) => each.issue_id === id);
    expect(of(sent).map((each) => each.type)).toEqual(['issue.sending', 'issue.sent']);
    expect(of(sent).at(-1)?.data).toMatchObject({ total: 1, sent: 1, skipped: 0, failed: 0 });
    expect(of(scheduled).map((each) => each.type)).toEqual(['issue.scheduled']);
    expect(of(paused).map((each) => each.type)).toEqual([
      'issue.sending',
      'issue.paused',
      'issue.cancelled',
    ]);
    expect(of(paused)[1]?.data.reason).toBe('quota');
  });

  it('event ids are unique: nothing reached the bus twice', async () => {
    await service.stack.settled();
    const ids = detailsOf(seen).map((detail) => detail.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('[events.engagement] opens and clicks name a person only under individual tracking', () => {
  const html = (id: number) =>
    `<!DOCTYPE html><html><body><p><a href="https://example.org/story?n=${id}">Story</a></p>` +
    '<p><a href="{unsubscription_url}">Unsubscribe</a></p></body></html>';
  const trackingLink = (mail: { body: { html?: string } }, kind: 'open' | 'click'): string => {
    const found = [
      ...(mail.body.html ?? '').matchAll(/(?:src|href)="([^"]*\/track\/(open|click)\/[^"]+)"/g),
    ].find((match) => match[2] === kind);
    if (!found?.[1]) throw new Error(`no ${kind} link`);
    return found[1];
  };

  it('individual: a first open and a click name the reader; under counts the same make none', async () => {
    const readers = ['events-reader-1@example.com', 'events-reader-2@example.com'];
    for (const reader of readers) await operator.add(reader, [1]);
    const subject = 'Events: engagement';
    const issue = await operator.createIssue(subject, [1]);
    const file = join(tmpdir(), `events-${process.pid}-${issue}.html`);
    await writeFile(file, html(issue));
    await operator.cliOk('newsletters', 'edit', String(issue), '--html', file);
    await operator.cliOk('newsletters', 'send', String(issue), '--yes');
    await service.stack.settled();
    const mails = await operator.mailsOf(subject);
    /** Opens the reader's mail and clicks its link; the engagement events naming the reader. */
    const openAndClick = async (reader: string) => {
      const mail = mails.find((each) => each.destination.to.some((to) => to.includes(reader)));
      if (!mail) throw new Error(`no mail to ${reader}`);
      await (await fetch(trackingLink(mail, 'open'))).arrayBuffer();
      await (await fetch(trackingLink(mail, 'click'), { redirect: 'manual' })).arrayBuffer();
      await service.stack.settled();
      const id = await idOf(reader);
      return (
        detailsOf(seen) as unknown as { type: string; issue_id?: number; subscriber_id?: number }[]
      )
        .filter((detail) => detail.issue_id === issue && detail.subscriber_id === id)
        .map((detail) => detail.type)
        .sort();
    };
    service.setSettings({ campaign: { tracking: 'individual' } });
    try {
      expect(await openAndClick(readers[0] ?? '')).toEqual([
        'engagement.clicked',
        'engagement.opened',
      ]);
    } finally {
      service.resetSettings();
    }
    // `counts`, the default: the open and click are counted, and no event names the reader.
    expect(await openAndClick(readers[1] ?? '')).toEqual([]);
  });
});

/** Every record of the table's stream so far, as Lambda hands them to a function. */
async function streamRecords(): Promise<Record<string, unknown>[]> {
  const endpoint = service.stack.dynamo.endpoint;
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  const tables = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  try {
    const { Table } = await tables.send(
      new DescribeTableCommand({ TableName: service.stack.tableName }),
    );
    const streamArn = Table?.LatestStreamArn ?? '';
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    );
    const records: StreamRecord[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      let iterator = (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shard.ShardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        )
      ).ShardIterator;
      while (iterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...(page.Records ?? []));
        if ((page.Records ?? []).length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    return records.map((record) => {
      const dynamodb = record.dynamodb ?? {};
      const time = dynamodb.ApproximateCreationDateTime;
      return {
        eventID: record.eventID,
        eventName: record.eventName,
        eventSource: 'aws:dynamodb',
        eventVersion: '1.1',
        awsRegion: 'us-east-1',
        eventSourceARN: streamArn,
        ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
        dynamodb: {
          ...dynamodb,
          ...(dynamodb.NewImage ? { NewImage: wireImage(dynamodb.NewImage) } : {}),
          ...(dynamodb.OldImage ? { OldImage: wireImage(dynamodb.OldImage) } : {}),
          ApproximateCreationDateTime:
            time instanceof Date ? Math.floor(time.getTime() / 1000) : time,
        },
      };
    });
  } finally {
    tables.destroy();
    streams.destroy();
  }
}

describe('[events.once] faults', () => {
  it('the stream records replayed to the reader make no event with a new id', async () => {
    await service.stack.settled();
    const before = new Set(detailsOf(seen).map((detail) => detail.id));
    const changes = (await streamRecords()).filter((record) => {
      const pk = String((record.dynamodb as { Keys?: { pk?: { S?: string } } }).Keys?.pk?.S);
      return pk.startsWith('SUBSCRIBER#') || pk.startsWith('NEWSLETTER#');
    });
    expect(changes.length).toBeGreaterThan(20);
    const reader = functionId('TableChanges');
    for (let start = 0; start < changes.length; start += 100) {
      const result = await service.stack.cloud.invoke(reader, {
        Records: changes.slice(start, start + 100),
      });
      expect(result.ok).toBe(true);
    }
    await service.stack.settled();
    const after = detailsOf(seen).map((detail) => detail.id);
    expect(new Set(after)).toEqual(before);
    expect(new Set(after).size).toBe(after.length);
  });

  /** The events queue's name at the SQS stand-in. */
  const eventsQueue = (): string => {
    const queue = [...service.stack.cloud.queues].find(([logicalId]) =>
      /^EventsQueue[0-9A-F]{8}$/.test(logicalId),
    );
    if (!queue) throw new Error('no events queue');
    return queue[1].name;
  };
  /** A subscriber as the table holds it now (the service's reads wait for quiet queues). */
  const stored = async (email: string) =>
    (
      await db.send(
        new GetCommand({
          TableName: service.stack.tableName,
          Key: { pk: `SUBSCRIBER#${email}`, sk: 'subscriber' },
        }),
      )
    ).Item as { status: string; lists: number[] } | undefined;
  const uniqueIds = (): number => new Set(detailsOf(seen).map((detail) => detail.id)).size;

  it('the bus away: sign-ups settle meanwhile; back an hour later, every event arrives', async () => {
    const endpoint = service.stack.cloud.endpoint;
    await service.stack.settled();
    const count = uniqueIds();
    const dropped = () => endpoint.counts.events?.dropped ?? 0;
    const droppedBefore = dropped();
    endpoint.setFault('events', { kind: 'unreachable' });
    try {
      for (const n of [1, 2, 3])
        await service.post(
          '/subscribe',
          { email: `events-away-${n}@example.com` },
          { settle: false },
        );
      // The publisher tried (each of the SDK's attempts) and gave the batch back to the queue.
      await until(async () => {
        const depth = service.stack.sqs.depth(eventsQueue());
        // Each of the SDK's three attempts dropped.
        return (
          dropped() >= droppedBefore + 3 && depth?.visible === 0 && (depth?.inFlight ?? 0) >= 3
        );
      }, 'the refused batch back on the queue');
      for (const n of [1, 2, 3])
        expect((await stored(`events-away-${n}@example.com`))?.status).toBe('S');
      expect(uniqueIds()).toBe(count);
    } finally {
      endpoint.setFault('events', undefined);
    }
    await until(async () => {
      // The queue's clock moves past each visibility timeout, as in an hour.
      service.stack.sqs.endVisibility(eventsQueue());
      return uniqueIds() >= count + 3;
    }, 'the events after the bus came back');
    await service.stack.settled();
    expect(uniqueIds()).toBe(count + 3);
  });

  it('a publisher killed mid-batch loses nothing', async () => {
    const buses = service.stack.cloud.eventBuses;
    const publisher = service.stack.cloud.functions.get(functionId('Publisher'));
    if (!buses || !publisher) throw new Error('no bus or publisher');
    await service.stack.settled();
    const count = uniqueIds();
    const emails = Array.from({ length: 20 }, (_, n) => `events-kill-${n}@example.com`);
    const release = buses.hold();
    try {
      await Promise.all(emails.map((email) => operator.add(email, [1])));
      // The publisher waits on the held bus: killed there, its batch is neither put nor marked
      // (or, for a call the bus takes after the release, put and not marked).
      await until(async () => publisher.killBusyEnvironment(), 'a publisher busy on the bus');
    } finally {
      release();
    }
    const added = await Promise.all(emails.map((email) => stored(email)));
    const expected = added.reduce((sum, each) => sum + 1 + (each?.lists.length ?? 0), 0);
    await until(async () => {
      service.stack.sqs.endVisibility(eventsQueue());
      return uniqueIds() >= count + expected;
    }, 'every event of the adds');
    await service.stack.settled();
    // Confirmed and a join per list each; an event put twice has its one id, which a receiver
    // drops.
    expect(uniqueIds()).toBe(count + expected);
  });
});
