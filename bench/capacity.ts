import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoStore } from '../shared/adapters/store/dynamo-store.ts';
import { KEY } from '../shared/adapters/store/table-design.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import type { Settings } from '../shared/domain/settings-schema.ts';
import { createNewsletter } from '../shared/newsletter.ts';
import { type CallContext, NO_METRICS } from '../shared/operations/dependencies.ts';
import { RecordingLogger, RecordingMailer, TestClock } from '../test/support/fixtures.ts';
import { streamWorker } from '../test/support/stream-worker.ts';
import {
  batchPut,
  CapacityMeter,
  type CapacityUse,
  checkItemShape,
  createBenchTable,
  dynamoItemSize,
  type LocalClients,
  localClients,
  newsletterIssues,
  subscriberItem,
} from './dynamo.ts';
import { benchEmail, kilobyteSubscriber, storedRecord } from './fixtures.ts';

/** Capacity and requests of one operation, as the store reported them. */
export interface CapacityRow {
  readonly operation: string;
  readonly use: CapacityUse;
}

/** What the capacity run found besides the rows. */
export interface CapacityResult {
  readonly rows: readonly CapacityRow[];
  /** Stored size of the 1 KB subscriber `add_subscriber` wrote, bytes. */
  readonly kilobyteItemBytes: number;
}

/** Ids of an id counter; the store keeps `next_id` on this item. */
const counterKey = (sequence: 'subscriber' | 'newsletter') => ({
  [KEY.partition]: `COUNTER#${sequence}`,
  [KEY.sort]: 'counter',
});

/**
 * Fills a table for the listings: `subscribers` 1 KB subscribers (ids 1…n, loaded with
 * BatchWriteItem in the store's item shape) and 40 newsletter issues, with both id counters
 * where the store would have left them.
 */
export async function seedListings(
  clients: LocalClients,
  store: DynamoStore,
  table: string,
  settings: Settings,
  subscribers: number,
  from = 1,
): Promise<void> {
  await batchPut(clients, table, subscribers, (index) =>
    subscriberItem(
      storedRecord(
        kilobyteSubscriber(benchEmail('list', from + index), settings),
        settings,
        from + index,
      ),
    ),
  );
  await setCounter(clients, table, 'subscriber', from + subscribers - 1);
  if (from === 1) {
    for (const issue of newsletterIssues(40, new Date('2026-11-22T10:00:00.000Z'))) {
      await store.putNewsletterIssue(issue);
    }
    await setCounter(clients, table, 'newsletter', 40);
  }
}

async function setCounter(
  clients: LocalClients,
  table: string,
  sequence: 'subscriber' | 'newsletter',
  value: number,
): Promise<void> {
  await clients.doc.send(
    new UpdateCommand({
      TableName: table,
      Key: counterKey(sequence),
      UpdateExpression: 'SET next_id = :value',
      ExpressionAttributeValues: { ':value': value },
    }),
  );
}

/** The raw token of the newest link of `kind` the recording mailer saw for `email`. */
function tokenFrom(mailer: RecordingMailer, email: string, kind: 'confirm' | 'unsubscribe') {
  const mails = mailer.sent.filter((mail) => mail.to === email);
  const urls = mails
    .map((mail) => (kind === 'confirm' ? mail.confirmUrl : mail.unsubscribeUrl))
    .filter((url): url is string => url !== undefined);
  const url = urls.at(-1);
  const token = url ? new URL(url).searchParams.get('token') : null;
  if (!token) throw new Error(`bench: no ${kind} link mailed to ${email}`);
  return token;
}

/**
 * Runs each operation once through the function class against DynamoDB Local with
 * ReturnConsumedCapacity=INDEXES and records requests and capacity units, table and each
 * index apart. Public-form calls are keyless with a client IP, as a signup form sends them.
 */
export async function measureCapacity(
  clients: LocalClients,
  table: string,
  settings: Settings,
): Promise<CapacityResult> {
  await createBenchTable(clients, table);
  const meter = new CapacityMeter(clients);
  const store = new DynamoStore(clients.doc, table, meter.listener);
  const mailer = new RecordingMailer();
  const clock = new TestClock();
  const logger = new RecordingLogger();
  const deps = {
    store,
    settings: async () => settings,
    now: clock.now,
    log: logger,
    metrics: NO_METRICS,
  };
  const newsletter = createNewsletter(deps);
  // The stream's consumers (keyless requests, the outbox), run in-process on demand. The
  // scans that stand for the stream's delivery go through clients of their own: on AWS the
  // records arrive without a request, so they are neither counted nor metered.
  const delivery = localClients(clients.endpoint);
  const stream = streamWorker(delivery.doc, table, { ...deps, mailer });
  await seedListings(clients, store, table, settings, 20);

  const publicForm: CallContext = {
    trusted: false,
    apiRoot: 'https://news.example.com/api/newsletter/v1',
    clientIp: '203.0.113.7',
  };
  const rows: CapacityRow[] = [];
  const measure = async (operation: string, run: () => Promise<unknown>): Promise<void> => {
    meter.reset();
    const result = await run();
    if (isNewsletterError(result) || result === 'invalid' || result === false) {
      // The function class logs the cause of a 503 or 500; it is the useful part.
      const log = logger.lines.map((line) => JSON.stringify(line)).join('\n');
      throw new Error(`bench: ${operation} failed: ${JSON.stringify(result)}\n${log}`);
    }
    rows.push({ operation, use: meter.snapshot() });
    // What the stream's consumers then do for it, as a row of its own.
    meter.reset();
    const worked = await stream.settle();
    if (worked.failed.length > 0) throw new Error(`bench: ${operation}: a mail failed`);
    const work = [
      ...(worked.settled ? ['request settled'] : []),
      ...(worked.sent ? [`${worked.sent} mail${worked.sent > 1 ? 's' : ''} sent`] : []),
      ...(worked.skipped ? [`${worked.skipped} skipped`] : []),
    ];
    if (work.length > 0) {
      rows.push({ operation: `  then on the stream: ${work.join(', ')}`, use: meter.snapshot() });
    }
  };

  const ada = 'ada@example.com';
  await measure('subscribe: new address, public form (double opt-in)', () =>
    newsletter.subscribe({ email: ada, name: 'Ada', lists: [1] }, publicForm),
  );
  await measure('subscribe: new address, trusted (function class)', () =>
    newsletter.subscribe({ email: 'grace@example.com', name: 'Grace', lists: [1, 2] }),
  );
  await measure('subscribe: existing, pending, within cooldown', () =>
    newsletter.subscribe({ email: ada }, publicForm),
  );
  clock.advance(11 * 60_000);
  await measure('subscribe: existing, pending, resend after cooldown', () =>
    newsletter.subscribe({ email: ada }, publicForm),
  );
  const confirmToken = tokenFrom(mailer, ada, 'confirm');
  await measure('confirmation link: GET (check)', () =>
    newsletter.check_link({ token: confirmToken, purpose: 'confirm' }),
  );
  await measure('confirmation link: POST (confirm)', () =>
    newsletter.confirm_subscription({ token: confirmToken }, publicForm),
  );
  await measure('subscribe: existing, confirmed, public form', () =>
    newsletter.subscribe({ email: ada, name: 'Ada' }, publicForm),
  );

  const kilobyte = benchEmail('kb', 1);
  await measure('add_subscriber: 1 KB subscriber', () =>
    newsletter.add_subscriber({ ...kilobyteSubscriber(kilobyte, settings) }),
  );
  const written = await clients.doc.send(
    new GetCommand({
      TableName: table,
      Key: { [KEY.partition]: `SUBSCRIBER#${kilobyte}`, [KEY.sort]: 'subscriber' },
    }),
  );
  if (!written.Item) throw new Error('bench: add_subscriber wrote nothing');
  // The loader must write what the store writes, or the scaling figures describe other items.
  checkItemShape(
    written.Item,
    subscriberItem(
      storedRecord(
        kilobyteSubscriber(kilobyte, settings),
        settings,
        Number(written.Item.id),
        new Date(String(written.Item.created)),
      ),
    ),
  );
  await measure('unsubscribe: 1 KB subscriber', () => newsletter.unsubscribe({ email: kilobyte }));
  const unsubscribeToken = tokenFrom(mailer, ada, 'unsubscribe');
  await measure('unsubscribe link: POST', () =>
    newsletter.unsubscribe_link({ token: unsubscribeToken }),
  );
  await measure('delete_subscriber: 1 KB subscriber, no tokens', () =>
    newsletter.delete_subscriber({ email: kilobyte }),
  );
  await measure('delete_subscriber: subscriber with its link tokens', () =>
    newsletter.delete_subscriber({ email: ada }),
  );
  await measure('subscribers: newest 20 of 1 KB each', () => newsletter.subscribers());
  await measure('newsletters: keyless (public index)', () =>
    newsletter.newsletters({}, { trusted: false }),
  );
  await measure('newsletters: with key (all issues)', () => newsletter.newsletters());
  delivery.raw.destroy();
  return { rows, kilobyteItemBytes: dynamoItemSize(written.Item) };
}
