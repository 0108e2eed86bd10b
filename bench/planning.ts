/**
 * Planning from the list index (issue 37, point 1): a base of 200,000 confirmed subscribers of
 * whom 2,000, spread through the base, are on the issue's list. Prints the items planning read
 * against the recipients, its read units, its planner invocations, and the time from `send` to
 * the first chunk queued for the workers. The planner runs in this process against DynamoDB
 * Local; the queue is a list in memory, so the time is the planner's and DynamoDB Local's.
 *
 * `npm run bench:planning` (`-- --base N --members M` for other sizes).
 */
import { parseArgs } from 'node:util';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DEMO_SETTINGS } from '../infra/local/demo-data.ts';
import { startDynamoDbLocal } from '../infra/local/stand-ins/dynamodb-local.ts';
import {
  behindStrictFront,
  strictDynamoDbFromEnv,
} from '../infra/local/stand-ins/strict-dynamodb.ts';
import type { CampaignQueue } from '../shared/adapters/queue/campaign-queue-port.ts';
import { DynamoCampaignStore } from '../shared/adapters/store/dynamo-campaign-store.ts';
import { memberItems } from '../shared/adapters/store/list-index.ts';
import { toSubscriberItem } from '../shared/adapters/store/subscriber-item.ts';
import { keys } from '../shared/adapters/store/table-design.ts';
import { parseCampaignContent } from '../shared/domain/campaign/campaign-content.ts';
import type { ChunkMessage, PlannerMessage } from '../shared/domain/campaign/work-messages.ts';
import { newSubscriberRecord } from '../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { parseSettings } from '../shared/domain/parse-settings.ts';
import type { SubscriberRecord } from '../shared/domain/subscriber.ts';
import { sendNewsletter } from '../shared/operations/campaign/control-campaign.ts';
import { planPage } from '../shared/operations/campaign/plan-recipients.ts';
import { NO_METRICS } from '../shared/operations/dependencies.ts';
import { batchPut, createBenchTable, localClients } from './dynamo.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: '200000' },
    members: { type: 'string', default: '2000' },
  },
});
const BASE = Number(values.base);
const MEMBERS = Number(values.members);
const LIST = 1;
const OTHER_LIST = 2;
const TABLE = 'PlanningBench';

const figure = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const dynamo = await behindStrictFront(
    await startDynamoDbLocal(),
    strictDynamoDbFromEnv(process.env),
  );
  try {
    const clients = localClients(dynamo.endpoint);
    await createBenchTable(clients, TABLE);
    const settings = parseSettings(JSON.stringify(DEMO_SETTINGS));
    const now = new Date();
    // One subscriber in each block of BASE / MEMBERS is on the issue's list, at a place that
    // moves from block to block: its members are spread through the whole base (and over the
    // index's shards), as a list of a large base is.
    const every = Math.floor(BASE / MEMBERS);
    const onList = (index: number) => index % every === (Math.floor(index / every) * 37) % every;
    const record = (index: number): SubscriberRecord => ({
      ...newSubscriberRecord(
        `base-${index}@example.com`,
        {
          name: `Reader ${index}`,
          lists: [onList(index) ? LIST : OTHER_LIST],
          profile: {},
        },
        'C',
        settings,
        now,
        { preassigned: false },
      ),
      id: index + 1,
      version: 1,
    });
    const seeding = Date.now();
    await batchPut(clients, TABLE, BASE * 2, (index) => {
      const subscriber = record(Math.floor(index / 2));
      return index % 2 === 0 ? toSubscriberItem(subscriber) : (memberItems(subscriber)[0] ?? {});
    });
    await clients.doc.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: keys.counter('subscriber'),
        UpdateExpression: 'SET next_id = :last, list_index = :ready',
        ExpressionAttributeValues: { ':last': BASE, ':ready': true },
      }),
    );
    console.log(
      `seeded ${figure(BASE)} subscribers (${figure(MEMBERS)} on the issue's list) in ${figure((Date.now() - seeding) / 1000, 1)} s`,
    );

    let readUnits = 0;
    let itemsRead = 0;
    const plannerReads = (operation: string, capacity: readonly ConsumedCapacity[]) => {
      if (operation === 'query:members')
        for (const each of capacity) readUnits += each.CapacityUnits ?? each.ReadCapacityUnits ?? 0;
    };
    const counting = new Proxy(clients.doc, {
      get: (target, name) => {
        if (name !== 'send') return Reflect.get(target, name, target);
        return async (command: unknown) => {
          const output = await target.send(command as QueryCommand);
          if (command instanceof QueryCommand && !command.input.IndexName)
            itemsRead += (output as { Items?: unknown[] }).Items?.length ?? 0;
          return output;
        };
      },
    });
    const campaigns = new DynamoCampaignStore(counting, TABLE, plannerReads);
    const plans: PlannerMessage[] = [];
    let queued = 0;
    let firstChunkAt: number | undefined;
    const queue: CampaignQueue = {
      plan: async (message) => {
        plans.push(message);
      },
      send: async (chunks) => {
        const recipients = chunks.reduce(
          (sum, chunk) => sum + (chunk as ChunkMessage).recipients.length,
          0,
        );
        if (recipients > 0) firstChunkAt ??= Date.now();
        queued += recipients;
      },
    };
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const deps = {
      campaigns,
      queue,
      settings: async () => settings,
      now: () => new Date(),
      log: silent,
      metrics: NO_METRICS,
      quota: { maxSendRate: async () => 14 },
    };
    const content = parseCampaignContent(
      { subject: 'Planning', html: '<p>Hello {name}</p>', lists: [LIST] },
      settings,
    );
    if (isNewsletterError(content)) throw new Error(content.message);
    await campaigns.createIssue(
      { id: 1, subject: 'Planning', created: now.toISOString(), private: false, lists: [LIST] },
      { html: content.content.html, text: content.content.text },
    );
    const started = Date.now();
    const result = await sendNewsletter(
      deps,
      { id: 1 },
      { apiRoot: 'https://example.com/dev/newsletter/v1' },
    );
    if (isNewsletterError(result)) throw new Error(result.message);
    let invocations = 0;
    for (let message = plans.shift(); message; message = plans.shift()) {
      if (message.kind !== 'plan') continue;
      invocations += 1;
      await planPage(deps, message);
    }
    const done = Date.now();
    console.log(
      [
        `planned ${figure(queued)} recipients of ${figure(BASE)} in ${invocations} planner invocations`,
        `items read by planning: ${figure(itemsRead)} (${figure(itemsRead / Math.max(1, queued), 2)}x the recipients)`,
        `read units of the list index: ${figure(readUnits, 1)} (strongly consistent)`,
        `send to first chunk queued: ${figure(((firstChunkAt ?? done) - started) / 1000, 2)} s; to the last: ${figure((done - started) / 1000, 2)} s`,
        `the subscriber index before it: ${figure(BASE)} items in ${figure(Math.ceil(BASE / 1000))} invocations`,
      ].join('\n'),
    );
  } finally {
    await dynamo.stop();
  }
}

await main();
