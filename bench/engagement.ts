/**
 * `npm run bench:engagement`: the opens-and-clicks path as deployed ([engagement.batch]), on
 * the local cloud: a burst of SES events published at once to the engagement topic (as SES
 * publishes them, for the tracked configuration set), SNS to the engagement queue, the queue's
 * event source mapping (batches of 100, 5 s window, at most 2 at once) to the recorder bundle
 * in its own processes with its role, every call IAM-checked, into DynamoDB Local. Prints the
 * events per second from the first publish to the last event recorded, the recorder's calls
 * per event, and checks the figures come out exact. Then, in process against the same
 * DynamoDB Local, the capacity units each kind of event costs in `counts` and `individual`
 * (transactions by DynamoDB's documented rules, bench/dynamo.ts), and what reading the burst's
 * figures costs. Options: --events N (default 10000).
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { DynamoEngagementStore } from '../shared/adapters/store/dynamo-engagement-store.ts';
import { keys } from '../shared/adapters/store/table-design.ts';
import {
  type EngagementEvent,
  mailToken,
  type TrackingMode,
} from '../shared/domain/engagement/engagement.ts';
import { documentClient } from '../test/support/local-dynamo.ts';
import { CapacityMeter, localClients, totalUnits } from './dynamo.ts';

const { values } = parseArgs({ options: { events: { type: 'string', default: '10000' } } });
const events = Number(values.events);
// Half opens, half clicks: each recipient opens once and clicks once.
const recipients = Math.ceil(events / 2);
const ISSUE = 900_001;

const batches: number[] = [];
const stack = await startLocalStack({
  port: 0,
  mailPort: 0,
  seed: true,
  demoSubscribers: false,
  onLog: (line) => {
    const batch = /"message":"engagement_batch".*?"messages":(\d+)/.exec(line);
    if (batch) batches.push(Number(batch[1]));
  },
});
const db = documentClient(stack.dynamo.endpoint);
try {
  // Sent recipients of one issue, as the campaign sender leaves them.
  const items = Array.from({ length: recipients }, (_, index) => ({
    PutRequest: {
      Item: {
        ...keys.recipient(ISSUE, index + 1),
        subscriber_id: index + 1,
        run: 1,
        state: 'sent',
        attempts: 1,
        message_id: `bench-${index + 1}`,
      },
    },
  }));
  for (let start = 0; start < items.length; start += 25)
    await db.send(
      new BatchWriteCommand({
        RequestItems: { [stack.tableName]: items.slice(start, start + 25) },
      }),
    );
  const set = stack.cloud.stack
    .configurationSets()
    .find((each) => each.destinations.some((d) => d.eventTypes.includes('open')));
  const destination = set?.destinations.find((d) => d.eventTypes.includes('open'));
  if (!set || !destination) throw new Error('no tracked configuration set');
  // Each mail's own token, as the sender tags it ([engagement.mail-token]).
  const tokens = Array.from({ length: recipients }, () => mailToken());
  const calls = stack.cloud.endpoint.calls.length;
  const started = performance.now();
  for (let n = 0; n < events; n += 1) {
    const subscriber = (n % recipients) + 1;
    const at = new Date().toISOString();
    const mail = {
      messageId: `bench-${subscriber}`,
      tags: {
        newsletter: [String(ISSUE)],
        run: ['1'],
        subscriber: [String(subscriber)],
        mail: [tokens[subscriber - 1] as string],
      },
    };
    const event =
      n < recipients
        ? {
            eventType: 'Open',
            mail,
            open: { timestamp: at, ipAddress: '192.0.2.1', userAgent: 'b' },
          }
        : {
            eventType: 'Click',
            mail,
            click: { timestamp: at, link: `https://example.org/${n % 7}`, linkTags: {} },
          };
    stack.cloud.publishSesEvent({
      configurationSet: set.name,
      topicArn: destination.topicArn,
      message: JSON.stringify(event),
    });
  }
  await stack.cloud.settled();
  const seconds = (performance.now() - started) / 1000;
  const figures = await new DynamoEngagementStore(db, stack.tableName).figures(ISSUE);
  const recorder = stack.cloud.stack
    .functions()
    .find((fn) => fn.entry === 'functions/engagement/engagement-recorder.ts');
  const made = stack.cloud.endpoint.calls
    .slice(calls)
    .filter((call) => call.caller === recorder?.functionName);
  const byOperation = new Map<string, number>();
  for (const call of made)
    byOperation.set(call.operation, (byOperation.get(call.operation) ?? 0) + 1);
  const exact =
    figures.opened === Math.min(events, recipients) &&
    figures.clicks === Math.max(0, events - recipients) &&
    stack.denials.length === 0;
  console.log(
    [
      `engagement bench: ${events} events (${recipients} opens, ${events - recipients} clicks) on ${availableParallelism()} cores`,
      `  recorded in ${seconds.toFixed(1)} s: ${Math.round(events / seconds)} events/s, first publish to last record`,
      `  invocations: ${batches.length}, events per batch: mean ${(batches.reduce((a, b) => a + b, 0) / Math.max(1, batches.length)).toFixed(1)}, largest ${Math.max(0, ...batches)}`,
      `  recorder calls per event: ${[...byOperation].map(([op, count]) => `${op} ${(count / events).toFixed(2)}`).join(', ')}`,
      `  figures: opened ${figures.opened}, clicked ${figures.clicked}, clicks ${figures.clicks}; ${exact ? 'exact' : 'NOT EXACT'}, ${stack.denials.length} denials`,
    ].join('\n'),
  );
  for (const line of await capacityPerEvent(stack.dynamo.endpoint, stack.tableName))
    console.log(line);
  if (!exact) process.exitCode = 1;
} finally {
  db.destroy();
  await stack.stop();
}

/**
 * What each kind of event costs, in capacity units, recorded in process through a store whose
 * requests report their capacity: read units from DynamoDB Local, a transaction's write units
 * by DynamoDB's rules (every item twice its 1 KB units). Two sent recipients of an issue of
 * their own, one per mode; then the report's read of the burst's figures.
 */
async function capacityPerEvent(endpoint: string, table: string): Promise<string[]> {
  const clients = localClients(endpoint, { modelTransactions: true });
  const meter = new CapacityMeter(clients);
  const store = new DynamoEngagementStore(clients.doc, table, { onCapacity: meter.listener });
  const issue = ISSUE + 1;
  const modes: readonly [TrackingMode, number][] = [
    ['counts', 1],
    ['individual', 2],
  ];
  await db.send(
    new BatchWriteCommand({
      RequestItems: {
        [table]: modes.map(([, subscriber]) => ({
          PutRequest: {
            Item: {
              ...keys.recipient(issue, subscriber),
              subscriber_id: subscriber,
              run: 1,
              state: 'sent',
              attempts: 1,
              message_id: `capacity-${subscriber}`,
            },
          },
        })),
      },
    }),
  );
  const measure = async (label: string, run: () => Promise<unknown>): Promise<string> => {
    meter.reset();
    await run();
    const use = meter.snapshot();
    return `    ${label}: ${totalUnits(use.read)} RRU, ${totalUnits(use.write)} WRU (${use.calls.join(', ')})`;
  };
  const lines = ['  capacity per event (in process, one shard):'];
  for (const [mode, subscriber] of modes) {
    const mail = mailToken();
    const event = (kind: 'open' | 'click', at: string): EngagementEvent => ({
      kind,
      newsletterId: issue,
      subscriberId: subscriber,
      at: `2026-11-22T${at}:00.000Z`,
      eventId: randomUUID(),
      mail,
      ...(kind === 'click' ? { link: 'https://example.org/story' } : {}),
    });
    const record = (each: EngagementEvent) => () => store.record(each, { mode, shard: 0 });
    const click = event('click', '10:40');
    lines.push(
      await measure(`${mode}, first open`, record(event('open', '10:30'))),
      await measure(`${mode}, a later open`, record(event('open', '11:00'))),
      await measure(`${mode}, an earlier open, another hour`, record(event('open', '09:10'))),
      await measure(`${mode}, first click`, record(click)),
      await measure(`${mode}, another click`, record(event('click', '10:50'))),
      await measure(`${mode}, a copy of a click`, record(click)),
    );
  }
  lines.push(
    await measure('individual, the note before a batch', () => store.markPersonal()),
    await measure(`the report's figures of the burst (${events} events)`, () =>
      store.figures(ISSUE),
    ),
  );
  clients.raw.destroy();
  return lines;
}
