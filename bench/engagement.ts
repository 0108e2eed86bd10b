/**
 * `npm run bench:engagement`: the opens-and-clicks path as deployed ([engagement.batch]), on
 * the local cloud: a burst of SES events published at once to the engagement topic (as SES
 * publishes them, for the tracked configuration set), SNS to the engagement queue, the queue's
 * event source mapping (batches of 100, 5 s window, at most 2 at once) to the recorder bundle
 * in its own processes with its role, every call IAM-checked, into DynamoDB Local. Prints the
 * events per second from the first publish to the last event recorded, the recorder's calls
 * per event, and checks the figures come out exact. Options: --events N (default 10000).
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { DynamoEngagementStore } from '../shared/adapters/store/dynamo-engagement-store.ts';
import { keys } from '../shared/adapters/store/table-design.ts';
import { documentClient } from '../test/support/local-dynamo.ts';

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
  const calls = stack.cloud.endpoint.calls.length;
  const started = performance.now();
  for (let n = 0; n < events; n += 1) {
    const subscriber = (n % recipients) + 1;
    const at = new Date().toISOString();
    const mail = {
      messageId: `bench-${subscriber}`,
      tags: { newsletter: [String(ISSUE)], run: ['1'], subscriber: [String(subscriber)] },
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
  if (!exact) process.exitCode = 1;
} finally {
  db.destroy();
  await stack.stop();
}
