/**
 * `npx tsx bench/events.ts`: events out as deployed ([events.stream]), on the local cloud: N
 * confirmed subscribers written straight to the table in batches of 25 (as fast as an import
 * could write them), each making two events (`subscriber.confirmed`, `subscriber.list.joined`)
 * through the stream's `table-changes` reader, the events queue and the publisher (batches of
 * up to 100, 1 s window, at most 4 at once) onto the stack's bus, every call IAM-checked.
 * Prints the events per second from the first write to the last event on the bus and the
 * publisher's batches, and checks that every event arrived, each id once.
 * Options: --subscribers N (default 2000).
 */
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { toSubscriberItem } from '../shared/adapters/store/subscriber-item.ts';
import { EVENT_SOURCE } from '../shared/domain/events/event-catalogue.ts';
import { subscriberRecord } from '../test/support/fixtures.ts';
import { documentClient } from '../test/support/local-dynamo.ts';

const { values } = parseArgs({ options: { subscribers: { type: 'string', default: '2000' } } });
const subscribers = Number(values.subscribers);
const expected = subscribers * 2;
const FIRST_ID = 800_000;

const batches: number[] = [];
const stack = await startLocalStack({
  port: 0,
  mailPort: 0,
  seed: true,
  demoSubscribers: false,
  onLog: (line) => {
    const batch = /"message":"events_published".*?"messages":(\d+)/.exec(line);
    if (batch) batches.push(Number(batch[1]));
  },
});
const db = documentClient(stack.dynamo.endpoint);
try {
  const [bus] = stack.cloud.stack.eventBuses();
  if (!bus || !stack.cloud.eventBuses) throw new Error('the stack has no bus');
  const ids = new Set<string>();
  const types = new Map<string, number>();
  let received = 0;
  let lastAt = 0;
  stack.cloud.eventBuses.addRule({
    bus,
    pattern: { source: [EVENT_SOURCE] },
    deliver: (event) => {
      const id = String(event.detail.id);
      const subscriber = Number(event.detail.subscriber_id);
      if (!(subscriber >= FIRST_ID)) return;
      received += 1;
      types.set(event['detail-type'], (types.get(event['detail-type']) ?? 0) + 1);
      ids.add(id);
      lastAt = performance.now();
    },
  });
  await stack.cloud.settled();
  const started = performance.now();
  const load = loadavg()[0] ?? 0;
  for (let start = 0; start < subscribers; start += 25) {
    const items = Array.from({ length: Math.min(25, subscribers - start) }, (_, n) => {
      const id = FIRST_ID + start + n;
      return {
        PutRequest: {
          Item: toSubscriberItem(
            subscriberRecord({ id, email: `bench-${id}@example.com`, lists: [1], version: 1 }),
          ),
        },
      };
    });
    await db.send(new BatchWriteCommand({ RequestItems: { [stack.tableName]: items } }));
  }
  const written = (performance.now() - started) / 1000;
  await stack.cloud.settled();
  const seconds = (lastAt - started) / 1000;
  const exact = ids.size === expected && stack.denials.length === 0;
  console.log(
    [
      `events bench: ${subscribers} subscribers written, ${expected} events expected, on ${availableParallelism()} cores, load ${load.toFixed(1)}`,
      `  written in ${written.toFixed(1)} s: ${Math.round(subscribers / written)} rows/s`,
      `  on the bus in ${seconds.toFixed(1)} s: ${Math.round(expected / seconds)} events/s, first write to last event`,
      `  publisher invocations: ${batches.length}, events per batch: mean ${(batches.reduce((a, b) => a + b, 0) / Math.max(1, batches.length)).toFixed(1)}, largest ${Math.max(0, ...batches)}`,
      `  types: ${[...types].map(([type, count]) => `${type} ${count}`).join(', ')}`,
      `  ids ${ids.size} of ${expected}, ${received} received; ${exact ? 'exact' : 'NOT EXACT'}, ${stack.denials.length} denials`,
    ].join('\n'),
  );
  if (!exact) process.exitCode = 1;
} finally {
  db.destroy();
  await stack.stop();
}
