/**
 * The deployed stack, proven offline: the scenario below runs every route of the API through
 * what `cdk synth` wrote (the bundles, the template's routes and environment, each function
 * with its own role), across every subscriber state, both link pages, one-click unsubscribe,
 * wrong keys, and SES's feedback (the mailbox simulator's bounce and complaint, a soft bounce). Every AWS call is checked against the calling function's role policy as
 * synthesized. What must hold: no call refused, no 5xx, and least privilege in both
 * directions: every grant is needed by some recorded call, and removing any one grant makes
 * some recorded call fail.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../infra/local/cloud/aws-endpoint.ts';
import type { DeployedFunction } from '../../infra/local/cloud/deployed-stack.ts';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { DynamoRequests } from '../../shared/adapters/store/dynamo-requests.ts';
import { DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import { DynamoWebhookStore } from '../../shared/adapters/store/dynamo-webhook-store.ts';
import { memberItems } from '../../shared/adapters/store/list-index.ts';
import { toSubscriberItem } from '../../shared/adapters/store/subscriber-item.ts';
import { keys } from '../../shared/adapters/store/table-design.ts';
import { newSubscriberRecord } from '../../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { parseSettings } from '../../shared/domain/parse-settings.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import { mintToken } from '../../shared/domain/tokens.ts';
import { newSigningSecret } from '../../shared/domain/webhooks/webhook-signing.ts';
import type { CampaignDependencies } from '../../shared/operations/campaign/campaign-dependencies.ts';
import { sendNewsletter } from '../../shared/operations/campaign/control-campaign.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { runCli } from '../cli/cli-harness.ts';
import { until } from '../e2e/support/campaign-operator.ts';
import {
  type ApiResponse,
  BASELINE_SETTINGS,
  type LocalService,
  linksIn,
  listUnsubscribeUrl,
  startLocalService,
  tokenOf,
} from '../e2e/support/local-service.ts';
import { adminIdToken } from '../support/console-admin.ts';
import { RecordingLogger, RecordingMetrics } from '../support/fixtures.ts';
import {
  callsFailingWithout,
  describeGrant,
  grantsOf,
  unusedGrants,
} from '../support/grant-coverage.ts';
import { documentClient } from '../support/local-dynamo.ts';

let service: LocalService;
let db: DynamoDBDocumentClient;

let operatorDir: string;
/** The local EventBridge Scheduler's clock. */
let schedulerTime = new Date();

beforeAll(async () => {
  // The sweeper runs when the scenario fires its rule, not by the clock in the middle of a step;
  // a scheduled send fires when the scenario moves the Scheduler's clock to its time.
  service = await startLocalService({ runSchedules: false, schedulerNow: () => schedulerTime });
  db = documentClient(service.stack.dynamo.endpoint);
  operatorDir = await mkdtemp(join(tmpdir(), 'deployed-operator-'));
  await writeFile(
    join(operatorDir, 'local-endpoints.json'),
    JSON.stringify(service.stack.endpoints),
  );
});

afterAll(async () => {
  db?.destroy();
  await service?.stop();
  if (operatorDir) await rm(operatorDir, { recursive: true, force: true });
});

/** The operator's `npx newsletter --local ...`: its calls are the operator's, not a function's. */
async function operator(...argv: string[]): Promise<void> {
  const result = await runCli(['--local', '--data-dir', operatorDir, ...argv], {
    cwd: operatorDir,
  });
  if (result.code !== 0) throw new Error(`newsletter ${argv.join(' ')}: ${result.stderr}`);
}

/** SES's event for a hard bounce of a campaign mail: the issue's message tag comes with it. */
function publishCampaignBounce(messageId: string, email: string, newsletterId: number): void {
  const [set] = service.stack.cloud.stack.configurationSets();
  const [destination] = set?.destinations ?? [];
  if (!set || !destination) throw new Error('no configuration set with a destination');
  service.stack.cloud.publishSesEvent({
    configurationSet: set.name,
    topicArn: destination.topicArn,
    message: JSON.stringify({
      eventType: 'Bounce',
      mail: { messageId, destination: [email], tags: { newsletter: [String(newsletterId)] } },
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: email }],
      },
    }),
  });
}

/**
 * Confirmed subscribers of the campaign's list whom an earlier run of the issue reached, as an
 * import and that run left them: the send to the new reads them all and skips them, so its
 * planning takes a second page.
 */
async function seedReached(
  count: number,
  list: number,
  issue: number,
): Promise<SubscriberRecord[]> {
  const store = new DynamoStore(db, service.stack.tableName);
  const first = await store.reserveIds('subscriber', count);
  const settings = parseSettings(JSON.stringify(BASELINE_SETTINGS));
  const now = new Date();
  const records = Array.from({ length: count }, (_, index) => {
    const record: SubscriberRecord = {
      ...newSubscriberRecord(
        `reached-${index}@example.com`,
        { name: '', lists: [list], profile: {} },
        'C',
        settings,
        now,
        { preassigned: false },
      ),
      id: first + index,
      version: 1,
    };
    return record;
  });
  await batchWrite(
    records.flatMap((record, index) => [
      toSubscriberItem(record),
      ...memberItems(record),
      { ...keys.recipient(issue, record.id), state: 'sent', run: 1, message_id: `m-${index}` },
    ]),
    [],
  );
  return records;
}

/** Confirmed subscribers of a list, written as an import writes them (the list index too). */
async function seedConfirmed(count: number, list: number, prefix: string) {
  const store = new DynamoStore(db, service.stack.tableName);
  const first = await store.reserveIds('subscriber', count);
  const settings = parseSettings(JSON.stringify(BASELINE_SETTINGS));
  const now = new Date();
  const records = Array.from(
    { length: count },
    (_, index): SubscriberRecord => ({
      ...newSubscriberRecord(
        `${prefix}-${index}@example.com`,
        { name: '', lists: [list], profile: {} },
        'C',
        settings,
        now,
        { preassigned: false },
      ),
      id: first + index,
      version: 1,
    }),
  );
  await batchWrite(
    records.flatMap((record) => [toSubscriberItem(record), ...memberItems(record)]),
    [],
  );
  return records;
}

/** The reached subscribers leave again (status U, out of the list index), as an import would. */
async function retireReached(records: readonly SubscriberRecord[]): Promise<void> {
  await batchWrite(
    records.map((record) => toSubscriberItem({ ...record, status: 'U', version: 2 })),
    records.flatMap((record) => memberItems(record).map((item) => ({ pk: item.pk, sk: item.sk }))),
  );
}

async function batchWrite(
  puts: readonly Record<string, unknown>[],
  deletes: readonly Record<string, unknown>[],
): Promise<void> {
  const all = [
    ...puts.map((Item) => ({ PutRequest: { Item } })),
    ...deletes.map((Key) => ({ DeleteRequest: { Key } })),
  ];
  for (let start = 0; start < all.length; start += 25) {
    let requests: Record<string, unknown>[] = all.slice(start, start + 25);
    while (requests.length > 0) {
      const output = await db.send(
        new BatchWriteCommand({ RequestItems: { [service.stack.tableName]: requests } }),
      );
      requests = (output.UnprocessedItems?.[service.stack.tableName] ?? []) as Record<
        string,
        unknown
      >[];
    }
  }
}

/**
 * An issue's send whose first plan message never reached the queue, 20 minutes ago: the
 * operator's send through a queue that loses what it is given, on a clock that long ago.
 */
async function sendWithLostPlan(id: number): Promise<void> {
  const lost: CampaignDependencies = {
    campaigns: new DynamoCampaignStore(db, service.stack.tableName),
    queue: { plan: async () => undefined, send: async () => undefined },
    settings: async () => parseSettings(JSON.stringify(BASELINE_SETTINGS)),
    now: () => new Date(Date.now() - 20 * 60_000),
    log: new RecordingLogger(),
    metrics: new RecordingMetrics(),
  };
  const started = await sendNewsletter(lost, { id }, { apiRoot: service.apiRoot });
  if (isNewsletterError(started)) throw new Error(started.message);
}

/** One request of the scenario and the AWS calls it caused. */
interface Step {
  readonly name: string;
  /** The API's answer; undefined for what happens beside the API (an operator's write). */
  readonly status: number | undefined;
  readonly calls: readonly RecordedCall[];
  /** Whether docs/storage.md lists it (the retry rounds of a dead-lettered mail are not). */
  readonly documented: boolean;
}

const steps: Step[] = [];

/**
 * The callers that are the Lambda service reading a stream or polling a queue for a function
 * (an event source mapping), not a function.
 */
const isEventSourcePoller = (call: RecordedCall): boolean =>
  call.caller.endsWith('(event source mapping)');

/**
 * Runs one request, waits for the work it queued on the stream (a keyless subscribe settled,
 * the mails sent), and keeps the calls the functions made for it, the consumers' included.
 */
async function step<T extends ApiResponse | undefined>(
  name: string,
  request: () => Promise<T>,
  { documented = true }: { documented?: boolean } = {},
): Promise<T> {
  const before = service.stack.cloud.endpoint.calls.length;
  const response = await request();
  await service.stack.settled();
  steps.push({
    name,
    status: response?.status,
    calls: service.stack.cloud.endpoint.calls
      .slice(before)
      .filter((call) => !isEventSourcePoller(call)),
    documented,
  });
  return response;
}

const key = () => service.apiKey;

const subscriberKey = (email: string) => ({ pk: `SUBSCRIBER#${email}`, sk: 'subscriber' });

/** Publishes a soft bounce of `email` as SES's configuration set publishes it to its topic. */
function publishSoftBounce(messageId: string, email: string): void {
  // The stack's set, the one the subscription mail names (the campaign one reports no deliveries).
  const set = service.stack.cloud.stack
    .configurationSets()
    .find((each) => each.destinations.some((d) => d.eventTypes.includes('delivery')));
  const [destination] = set?.destinations ?? [];
  if (!set || !destination) throw new Error('no configuration set with a destination');
  service.stack.cloud.publishSesEvent({
    configurationSet: set.name,
    topicArn: destination.topicArn,
    message: JSON.stringify({
      eventType: 'Bounce',
      mail: { messageId, destination: [email] },
      bounce: {
        bounceType: 'Transient',
        bounceSubType: 'MailboxFull',
        bouncedRecipients: [{ emailAddress: email }],
      },
    }),
  });
}

/** As an operator would: set a stored subscriber's attributes directly. */
async function setAttributes(email: string, values: Record<string, unknown>): Promise<void> {
  const names = Object.keys(values);
  await db.send(
    new UpdateCommand({
      TableName: service.stack.tableName,
      Key: subscriberKey(email),
      UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :v${i}`).join(', ')}, #version = #version + :one`,
      ExpressionAttributeNames: {
        ...Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
        '#version': 'version',
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(names.map((name, i) => [`:v${i}`, values[name]])),
        ':one': 1,
      },
    }),
  );
  // The change is counted from the stream: worked off here, not in the next step's calls.
  await service.stack.settled();
}

/** A request that arranges the scenario, its stream work done before the next step. */
async function arrange(request: () => Promise<unknown>): Promise<void> {
  await request();
  await service.stack.settled();
}

async function lastMailLinks(email: string) {
  const mails = await service.mails(email);
  const last = mails.at(-1);
  if (!last) throw new Error(`no mail to ${email}`);
  return { ...linksIn(last), listUnsubscribe: listUnsubscribeUrl(last) };
}

/**
 * [webhooks.delivery] [webhooks.retries] An endpoint on a receiver on loopback (the local
 * world's http allowance) that verifies each POST with `standardwebhooks`: down at first, so the
 * deliverer logs the delivery for retry; back, the retry sweep delivers it. The endpoint is
 * written as the store writes it (no route registers one yet) and removed after.
 */
async function webhookSteps(): Promise<void> {
  const secret = newSigningSecret();
  let up = false;
  const accepted: string[] = [];
  const receiver = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      if (!up) return response.writeHead(503).end('down');
      new Webhook(secret).verify(
        Buffer.concat(chunks).toString('utf8'),
        incoming.headers as Record<string, string>,
      );
      accepted.push(String(incoming.headers['webhook-id']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const webhooks = new DynamoWebhookStore(new DynamoRequests(db), service.stack.tableName);
  const now = new Date().toISOString();
  try {
    await webhooks.saveEndpoint({
      id: 'whe_0123456789abcdef',
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      // Every type: whichever events the add makes (subscribed or confirmed, list.joined).
      event_types: [],
      secrets: [{ secret, created: now }],
      state: 'enabled',
      created: now,
    });
    await step(
      'webhooks: an event to an endpoint that is down, logged for retry',
      () => service.post('/subscribers/add', { email: 'wendy@example.com', api_key: key() }),
      { documented: false },
    );
    const pending = await webhooks.deliveriesOf('whe_0123456789abcdef', 10);
    expect(pending.length).toBeGreaterThan(0);
    for (const each of pending)
      expect(each).toMatchObject({ status: 'pending', attempts: 1, last_status: 503 });
    up = true;
    // The first retry is due 5 s after the failed attempt.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const retry = service.stack.cloud.stack
      .scheduleRules()
      .find((rule) => rule.logicalId.includes('WebhooksRetrySchedule'));
    if (!retry) throw new Error('no webhook retry rule');
    await step(
      'webhooks: the retry sweep delivers it, signed',
      async () => {
        await service.stack.cloud.fireRule(retry.logicalId);
        return undefined;
      },
      { documented: false },
    );
    expect(accepted.sort()).toEqual(pending.map((each) => each.event_id).sort());
    for (const each of await webhooks.deliveriesOf('whe_0123456789abcdef', 10))
      expect(each).toMatchObject({ status: 'delivered', attempts: 2 });
  } finally {
    await webhooks.deleteEndpoint('whe_0123456789abcdef');
    await new Promise((resolve) => receiver.close(resolve));
  }
}

describe('the whole scenario, from cdk.out', () => {
  beforeAll(async () => {
    // Work started before (the set-up's events on their way to the bus) is no step's.
    await service.stack.settled();
    const ada = 'ada@example.com';
    // subscribe: new address, keyless, double opt-in.
    await step('subscribe, new, keyless (double opt-in)', () =>
      service.post('/subscribe', { email: ada, name: 'Ada', lists: [1] }),
    );
    await step('subscribe, pending, keyless, inside the cooldown', () =>
      service.post('/subscribe', { email: ada, name: 'Ada', lists: [1] }),
    );
    await step('subscribe, pending, keyed, new fields', () =>
      service.post('/subscribe', { email: ada, surname: 'Lovelace', api_key: key() }),
    );
    // The activation link: page, then the button; an expired link of another mail is retired.
    const { confirm } = await lastMailLinks(ada);
    if (!confirm) throw new Error('no activation link');
    const stale = mintToken();
    const expired = Math.floor(Date.now() / 1000) - 60;
    await db.send(
      new PutCommand({
        TableName: service.stack.tableName,
        Item: {
          pk: `TOKEN#${stale.hash}`,
          sk: 'token',
          email: ada,
          purpose: 'unsubscribe',
          expires_at: expired,
        },
      }),
    );
    const stored = await db.send(
      new GetCommand({ TableName: service.stack.tableName, Key: subscriberKey(ada) }),
    );
    await setAttributes(ada, {
      tokens: { ...(stored.Item?.tokens as Record<string, number>), [stale.hash]: expired },
    });
    await step('confirm page (GET)', () => service.get(confirm));
    await step('confirm (POST of the button)', () =>
      service.post(confirm, { token: tokenOf(confirm) }, { type: 'form' }),
    );
    await step('confirm again', () =>
      service.post(confirm, { token: tokenOf(confirm) }, { type: 'form' }),
    );
    await step('subscribe, confirmed, keyless', () =>
      service.post('/subscribe', { email: ada, name: 'Mallory' }),
    );
    await step('subscribe, confirmed, keyed, adds a private list', () =>
      service.post('/subscribe', { email: ada, lists: [3], api_key: key() }),
    );
    // The unsubscribe link of the welcome mail: page, then RFC 8058 one-click.
    const { unsubscribe, listUnsubscribe } = await lastMailLinks(ada);
    if (!unsubscribe || !listUnsubscribe) throw new Error('no unsubscribe link');
    await step('unsubscribe page (GET)', () => service.get(unsubscribe));
    await step('one-click unsubscribe (RFC 8058)', () =>
      service.post(listUnsubscribe, { 'List-Unsubscribe': 'One-Click' }, { type: 'form' }),
    );
    await step('unsubscribe link again', () =>
      service.post(unsubscribe, { token: tokenOf(unsubscribe) }, { type: 'form' }),
    );
    // Back from U after the cooldown: a fresh activation retires the old link's token.
    await setAttributes(ada, { activation_sent_at: Date.now() - 24 * 3600 * 1000 });
    await step('subscribe, unsubscribed, keyless, after the cooldown', () =>
      service.post('/subscribe', { email: ada }),
    );
    await step('unsubscribe, U asked back by a keyless call (pending activation)', () =>
      service.post('/unsubscribe', { email: ada, api_key: key() }),
    );
    await step('unsubscribe, already unsubscribed', () =>
      service.post('/unsubscribe', { email: ada, api_key: key() }),
    );
    await step('unsubscribe, unknown address', () =>
      service.post('/unsubscribe', { email: 'nobody@example.com', api_key: key() }),
    );

    // Management.
    const bob = 'bob@example.com';
    await step('add_subscriber, new', () =>
      service.post('/subscribers/add', { email: bob, name: 'Bob', lists: [3], api_key: key() }),
    );
    await step('add_subscriber, existing', () =>
      service.post('/subscribers/add', { email: bob, api_key: key() }),
    );
    const cleo = 'cleo@example.com';
    await arrange(() =>
      service.post('/subscribers/add', { email: cleo, lists: [3], api_key: key() }),
    );
    await step('unsubscribe, confirmed', () =>
      service.post('/unsubscribe', { email: cleo, api_key: key() }),
    );
    for (const status of ['B', 'P'] as const) {
      const email = `blocked-${status.toLowerCase()}@example.com`;
      await arrange(() => service.post('/subscribers/add', { email, api_key: key() }));
      await setAttributes(email, { status });
      await step(`subscribe, ${status}, keyless`, () => service.post('/subscribe', { email }));
      await step(`subscribe, ${status}, keyed`, () =>
        service.post('/subscribe', { email, api_key: key() }),
      );
      await step(`unsubscribe, ${status}`, () =>
        service.post('/unsubscribe', { email, api_key: key() }),
      );
    }
    // A keyed subscribe of a new address, then again while it carries an expired token.
    const erin = 'erin@example.com';
    await step('subscribe, new, keyed', () =>
      service.post('/subscribe', { email: erin, name: 'Erin', api_key: key() }),
    );
    const erinItem = await db.send(
      new GetCommand({ TableName: service.stack.tableName, Key: subscriberKey(erin) }),
    );
    await setAttributes(erin, {
      tokens: { ...(erinItem.Item?.tokens as Record<string, number>), [stale.hash]: expired },
    });
    await step('subscribe, pending, keyed, with an expired token', () =>
      service.post('/subscribe', { email: erin, surname: 'Example', api_key: key() }),
    );
    // What the stream's consumers give up on goes to their dead-letter queues.
    await service.stack.stopSes();
    await step(
      'subscribe, new, keyed, while SES refuses every send (dead-lettered)',
      () => service.post('/subscribe', { email: 'frank@example.com', api_key: key() }),
      { documented: false },
    );
    await service.stack.restartSes();
    await step(
      'a request item that cannot be processed (dead-lettered)',
      async () => {
        await db.send(
          new PutCommand({
            TableName: service.stack.tableName,
            Item: { pk: 'REQUEST#broken', sk: 'request', params: {}, received_at: 'now' },
          }),
        );
        return undefined;
      },
      { documented: false },
    );
    await step('subscribers', () => service.post('/subscribers', { api_key: key() }));
    await step('newsletters, keyless', () => service.get('/newsletters'));
    await step('newsletters, keyed', () => service.get('/newsletters', { api_key: key() }));
    // SES's feedback, through the configuration set's topic to the feedback function.
    await step('subscribe, keyless, an address that bounces (SES: Permanent)', () =>
      service.post('/subscribe', { email: 'bounce@simulator.amazonses.com' }),
    );
    await step('subscribe, keyed, an address on the suppression list', () =>
      service.post('/subscribe', {
        email: 'suppressionlist@simulator.amazonses.com',
        api_key: key(),
      }),
    );
    // Delivered, then a complaint: two notifications the function handles at once, whose calls
    // interleave by chance, so the table below leaves this one out.
    await step(
      'subscribe, keyed, an address that complains (SES: Delivery, Complaint)',
      () =>
        service.post('/subscribe', { email: 'complaint@simulator.amazonses.com', api_key: key() }),
      { documented: false },
    );
    await step(
      'SES reports a soft bounce (Transient), as its event destination publishes it',
      async () => {
        publishSoftBounce('soft-1', erin);
        return undefined;
      },
    );

    // An event the function cannot apply (its settings unreadable) goes, after Lambda's two
    // retries, to the feedback function's on-failure queue instead of being dropped.
    await step(
      'SES reports a soft bounce while the parameter store is unreachable (dead-lettered)',
      async () => {
        service.stack.cloud.endpoint.setFault('ssm', { kind: 'unreachable' });
        try {
          publishSoftBounce('soft-2', erin);
          await service.stack.settled();
        } finally {
          service.stack.cloud.endpoint.setFault('ssm', undefined);
        }
        return undefined;
      },
      { documented: false },
    );

    // Campaigns: sending an issue through the engine as the operator's CLI starts it. Their
    // calls interleave across concurrent workers, so docs/storage.md describes them per
    // recipient ("Campaigns") instead of listing them here.
    const readers = ['reader-1@example.com', 'reader-2@example.com', 'reader-3@example.com'];
    for (const email of readers)
      await service.post('/subscribers/add', { email, lists: [4], api_key: key() });
    // A reader with a soft bounce counted: their campaign mail names the stack's configuration
    // set, whose delivery event ends the run; the others' name the campaign set.
    await setAttributes('reader-3@example.com', { transient_bounces: 1 });
    await writeFile(
      join(operatorDir, 'issue.html'),
      '<h1>Hello {name}</h1><p><a href="https://example.org/story">The story</a></p>' +
        '<p><a href="{unsubscription_url}">Unsubscribe</a></p>',
    );
    await operator(
      'newsletters',
      'create',
      '--subject',
      'Campaign',
      '--html',
      'issue.html',
      '--lists',
      '4',
    );
    const campaignId = 13;
    await step(
      'campaign: send while SES throttles a moment (planner plans, workers mail and requeue)',
      async () => {
        // Long enough to meet the first send wherever the workers start: they requeue.
        service.ses.throttleStorm(8_000);
        await operator('newsletters', 'send', String(campaignId));
        return undefined;
      },
      { documented: false },
    );
    const campaignMail = (await service.mails('reader-1@example.com')).find(
      (mail) => mail.subject === 'Campaign',
    );
    if (!campaignMail) throw new Error('no campaign mail');
    // [campaign.feedback-cost] reader-3's mail reported its delivery, which ended their run of
    // soft bounces: the sender named the stack's set for them, the campaign set for the others.
    await service.stack.settled();
    const reader3 = await db.send(
      new GetCommand({
        TableName: service.stack.tableName,
        Key: subscriberKey('reader-3@example.com'),
      }),
    );
    expect(reader3.Item?.status).toBe('C');
    expect(reader3.Item?.transient_bounces).toBeUndefined();
    await step(
      'campaign: SES reports a hard bounce of a campaign mail (recorded on its recipient)',
      async () => {
        publishCampaignBounce(campaignMail.messageId, 'reader-2@example.com', campaignId);
        return undefined;
      },
      { documented: false },
    );
    // [engagement.local] The reader opens the tracked mail: the local SES's pixel publishes
    // SES's Open event, SNS puts it on the engagement queue, the recorder records it.
    const pixel = /src="([^"]*\/track\/open\/[^"]+)"/.exec(campaignMail.body.html ?? '')?.[1];
    if (!pixel) throw new Error('the campaign mail was not tracked');
    await step(
      'campaign: a reader opens the mail (SES Open, engagement queue, recorder)',
      async () => {
        await (await fetch(pixel)).arrayBuffer();
        return undefined;
      },
    );
    // [engagement.recording] ... and follows its link: a Click event, with the click's own item.
    const link = /href="([^"]*\/track\/click\/[^"]+)"/.exec(campaignMail.body.html ?? '')?.[1];
    if (!link) throw new Error('the campaign mail has no tracked link');
    await step(
      'campaign: a reader clicks a link (SES Click, engagement queue, recorder)',
      async () => {
        await (await fetch(link, { redirect: 'manual' })).arrayBuffer();
        return undefined;
      },
    );
    await step(
      'campaign: one-click unsubscribe from a campaign mail',
      () =>
        service.post(
          listUnsubscribeUrl(campaignMail) ?? '',
          { 'List-Unsubscribe': 'One-Click' },
          { type: 'form' },
        ),
      { documented: false },
    );
    await service.post('/subscribers/add', {
      email: 'reader-4@example.com',
      lists: [4],
      api_key: key(),
    });
    // [engagement.untracked-mail] With tracking off, the sender names the untracked sets: the
    // stack's for reader-4, who has a soft bounce counted; a test send names the campaign one.
    await setAttributes('reader-4@example.com', { transient_bounces: 1 });
    service.setSettings({ campaign: { tracking: 'off' } });
    const reached = await seedReached(1_000, 4, campaignId);
    await step(
      'campaign: send to the new (planner skips who has a record), tracking off',
      async () => {
        await operator('newsletters', 'send', String(campaignId), '--new-only');
        return undefined;
      },
      { documented: false },
    );
    await service.stack.settled();
    await retireReached(reached);
    await step(
      'campaign: a test send (untracked)',
      async () => {
        await operator('newsletters', 'test', String(campaignId), '--to', 'ops@example.com');
        return undefined;
      },
      { documented: false },
    );
    service.resetSettings();
    const newMail = (await service.mails('reader-4@example.com')).find(
      (mail) => mail.subject === 'Campaign',
    );
    expect(newMail?.body.html ?? '').not.toContain('/track/');
    // [engagement.switch] Tracking is not `individual`, and has not been for long (the state
    // says so, as a table from before this rule has never been erased): the eraser, fired by
    // its rule, walks every issue that went out and erases what is stored per person. Its calls
    // (a Query per record partition and issue) are described in docs/storage.md, not listed.
    await db.send(
      new UpdateCommand({
        TableName: service.stack.tableName,
        Key: keys.personalEngagement(),
        UpdateExpression: 'SET away_since = :then',
        ExpressionAttributeValues: { ':then': '2026-01-01T00:00:00.000Z' },
      }),
    );
    const erasure = service.stack.cloud.stack
      .scheduleRules()
      .find((rule) => rule.logicalId.includes('Erasure'));
    if (!erasure) throw new Error('no erasure rule');
    await step(
      'engagement: the eraser, tracking not individual, erases per-person opens and clicks',
      async () => {
        const [fired] = await service.stack.cloud.fireRule(erasure.logicalId);
        expect(fired?.result).toMatchObject({ ok: true, result: { status: 'erased' } });
        return undefined;
      },
      { documented: false },
    );
    // The web version of the sent issue, keyless; an unknown issue and a segment that is no id.
    await step('web version of a sent, public issue', () =>
      service.get(`/newsletters/${campaignId}/view`),
    );
    await step('web version of an unknown issue', () => service.get('/newsletters/999/view'));
    await step('web version, a path segment that is no id', () =>
      service.get('/newsletters/abc/view'),
    );
    // A send whose plan message is lost: the sweeper finds it stalled and repairs it.
    await operator('newsletters', 'copy', String(campaignId));
    await sendWithLostPlan(campaignId + 1);
    const [sweep] = service.stack.cloud.stack
      .scheduleRules()
      .filter((rule) => rule.logicalId.includes('Sweep'));
    if (!sweep) throw new Error('no sweep rule');
    await step(
      'campaign: the sweeper repairs a stalled send (the planner plans it again)',
      async () => {
        await service.stack.cloud.fireRule(sweep.logicalId);
        return undefined;
      },
      { documented: false },
    );
    // [campaign.complete] A worker that died took a count with it: the run, quiet, is short of
    // its total. The sweeper recounts its records (Query of the table) and ends it.
    const repairedKey = { pk: `NEWSLETTER#${campaignId + 1}`, sk: 'newsletter' };
    const repaired = (
      await db.send(
        new GetCommand({
          TableName: service.stack.tableName,
          Key: repairedKey,
          ConsistentRead: true,
        }),
      )
    ).Item;
    expect(repaired).toMatchObject({ status: 'sent', plan_done: true });
    const short = Number(repaired?.sent ?? 0) > 0 ? 'sent' : 'skipped';
    expect(Number(repaired?.[short] ?? 0)).toBeGreaterThan(0);
    await db.send(
      new UpdateCommand({
        TableName: service.stack.tableName,
        Key: repairedKey,
        UpdateExpression:
          'SET #status = :sending, #short = #short - :one, progress_at = :then, active_at = :now REMOVE sent_at',
        ExpressionAttributeNames: { '#status': 'status', '#short': short },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':one': 1,
          ':then': new Date(Date.now() - 60_000).toISOString(),
          ':now': new Date().toISOString(),
        },
      }),
    );
    await step(
      'campaign: the sweeper recounts a run a dead worker left short, and ends it',
      async () => {
        await service.stack.cloud.fireRule(sweep.logicalId);
        return undefined;
      },
      { documented: false },
    );
    const recounted = (
      await db.send(
        new GetCommand({
          TableName: service.stack.tableName,
          Key: repairedKey,
          ConsistentRead: true,
        }),
      )
    ).Item;
    expect(recounted).toMatchObject({ status: 'sent', [short]: repaired?.[short] });

    // A scheduled send: the operator schedules a copy, the Scheduler fires it at its time with
    // the stack's scheduler role, and the campaign starter starts the send.
    await operator('newsletters', 'copy', String(campaignId));
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    await operator('newsletters', 'schedule', String(campaignId + 2), '--at', at.toISOString());
    await step(
      'campaign: a schedule fires and the starter starts the send',
      async () => {
        schedulerTime = at;
        const fired = await service.stack.cloud.scheduler?.fireDue();
        if (fired?.length !== 1 || fired[0]?.denied) throw new Error('the schedule did not fire');
        return undefined;
      },
      { documented: false },
    );

    // [campaign.quota] A send the daily quota paused: a day later the sweeper asks SES
    // (GetSendQuota, its grant) and resumes it.
    await operator('newsletters', 'copy', String(campaignId));
    const quotaId = campaignId + 3;
    const { sentLast24Hours } = service.ses.sendQuota();
    service.ses.setQuota({ max24HourSend: sentLast24Hours + 1 });
    service.ses.enforceQuota(true);
    await operator('newsletters', 'send', String(quotaId), '--yes');
    await service.stack.settled();
    const paused = await db.send(
      new GetCommand({
        TableName: service.stack.tableName,
        Key: { pk: `NEWSLETTER#${quotaId}`, sk: 'newsletter' },
        ConsistentRead: true,
      }),
    );
    expect(paused.Item).toMatchObject({ status: 'paused', pause_reason: 'quota' });
    service.ses.ageSends(86_400_000);
    service.ses.enforceQuota(false);
    service.ses.setQuota({ max24HourSend: 50_000 });
    await db.send(
      new UpdateCommand({
        TableName: service.stack.tableName,
        Key: { pk: `NEWSLETTER#${quotaId}`, sk: 'newsletter' },
        UpdateExpression: 'SET quota_checked_at = :then',
        ExpressionAttributeValues: { ':then': new Date(Date.now() - 600_000).toISOString() },
      }),
    );
    await step(
      'campaign: the sweeper resumes a send the daily quota paused',
      async () => {
        await service.stack.cloud.fireRule(sweep.logicalId);
        return undefined;
      },
      { documented: false },
    );

    // API v2: each function with a good key (one read of it per container), a change of each
    // kind, and a wrong key (counted toward the client's rate limit, which reads the settings).
    // The keyless rate limit on, so a wrong key's count is made (the baseline turns it off).
    service.setSettings({ public_rate_limit: { max_requests: 50, window_minutes: 10 } });
    const keyStore = new DynamoClientKeyStore(db, service.stack.tableName);
    const made = await createClientKey({ keys: keyStore, now: () => new Date() }, 'ops', 'write');
    if (isNewsletterError(made)) throw new Error(made.message);
    const good = `client_key=${made.record.client_key}&client_secret=${made.clientSecret}`;
    const wrong = `client_key=${'0'.repeat(40)}&client_secret=${'0'.repeat(40)}`;
    const v2 = service.apiRoot.replace(/\/v1$/, '/v2');
    const v2call = (
      method: string,
      path: string,
      query: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) =>
      service.request(method, `${v2}${path}${query ? `?${query}` : ''}`, {
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // [campaign.feed] A send larger than its share of the workers' queue (about half a minute
    // of sending): its workers ask the planner for the rest as theirs are done. A reader moves
    // to another address meanwhile (v2 PUT /subscribers/{id}): [campaign.recheck] the worker
    // finds them by id and mails the new address. Cancelled once the feed was asked for.
    const crowd = await seedConfirmed(500, 3, 'crowd');
    const mover = crowd[150];
    if (!mover) throw new Error('no mover');
    await operator('newsletters', 'copy', String(campaignId));
    const crowdId = quotaId + 1;
    await operator('newsletters', 'edit', String(crowdId), '--lists', '3');
    await step(
      'campaign: a send larger than its queue, a reader moving meanwhile (workers ask for more)',
      async () => {
        await operator('newsletters', 'send', String(crowdId));
        const moved = await v2call('PUT', `/subscribers/${mover.id}`, good, {
          email: 'crowd-moved@example.com',
        });
        expect(moved.status).toBe(200);
        const read = async (key: Record<string, unknown>) =>
          (
            await db.send(
              new GetCommand({
                TableName: service.stack.tableName,
                Key: key,
                ConsistentRead: true,
              }),
            )
          ).Item;
        await until(
          async () =>
            Number((await read(keys.newsletter(crowdId)))?.fed_chunks ?? 0) > 4 &&
            (await read(keys.recipient(crowdId, mover.id)))?.state === 'sent',
          'the feed asked for and the moved reader mailed',
        );
        await operator('newsletters', 'cancel', String(crowdId));
        return undefined;
      },
      { documented: false },
    );
    expect(await service.mails(mover.email)).toEqual([]);
    expect(await service.mails('crowd-moved@example.com')).toHaveLength(1);
    await step('v2 GET /test', () => v2call('GET', '/test', good));
    await step('v2 GET /account', () => v2call('GET', '/account', good));
    const shownSettings = await step('v2 GET /settings', () => v2call('GET', '/settings', good));
    const { settings: document, version } = shownSettings.json as {
      settings: unknown;
      version: number;
    };
    const putSettings = await step('v2 PUT /settings, the same document at its version', () =>
      v2call('PUT', '/settings', good, { settings: document, version }),
    );
    expect(putSettings.status, putSettings.text).toBe(200);
    await step('v2 GET /lists', () => v2call('GET', '/lists', good));
    await step('v2 GET /lists/{id}', () => v2call('GET', '/lists/1', good));
    const v2List = await step('v2 POST /lists', () =>
      v2call('POST', '/lists', good, { name: 'v2 list' }),
    );
    await step('v2 PUT /lists/{id}', () =>
      v2call('PUT', '/lists/1', good, { name: 'Weekly digest' }),
    );
    // No issue names the new list: it goes (the issues naming it looked for in `recent`).
    const listDeleted = await step('v2 DELETE /lists/{id}', () =>
      v2call('DELETE', `/lists/${(v2List.json as { id: number }).id}`, good),
    );
    expect(listDeleted.status, listDeleted.text).toBe(200);
    await step('v2 GET /extrafields', () => v2call('GET', '/extrafields', good));
    await step('v2 GET /extrafields/{id}', () => v2call('GET', '/extrafields/city', good));
    await step('v2 POST /subscribers, new address', () =>
      v2call('POST', '/subscribers', good, { email: 'v2-erin@example.com', country: 'de' }),
    );
    await step('v2 GET /subscribers, a page', () => v2call('GET', '/subscribers', good));
    await step('v2 GET /subscribers, a search by address', () =>
      v2call('GET', '/subscribers', `${good}&search=v2-`),
    );
    await step('v2 GET /subscribers, CSV', () =>
      v2call('GET', '/subscribers', good, undefined, { Accept: 'text/csv' }),
    );
    const imported = await step('v2 POST /subscribers/import, a part of two rows', () =>
      service.request('POST', `${v2}/subscribers/import?${good}`, {
        headers: { 'Content-Type': 'text/csv' },
        body: 'email,name,lists\nv2-ivy@example.com,Ivy,1\nv2-erin@example.com,Erin,1\n',
      }),
    );
    expect(imported.json).toMatchObject({ imported: 1, existing: 1 });
    const erinV2 = await v2call('GET', '/subscribers/v2-erin@example.com', good);
    const erinId = (erinV2.json as { id: number }).id;
    await step('v2 GET /subscribers/{id}', () => v2call('GET', `/subscribers/${erinId}`, good));
    await step('v2 GET /subscribers/{id}/issues', () =>
      v2call('GET', `/subscribers/${erinId}/issues`, good),
    );
    await step('v2 PUT /subscribers/{id}, a change', () =>
      v2call('PUT', `/subscribers/${erinId}`, good, { city: 'Berlin' }),
    );
    await step('v2 PUT /subscribers/{id}, a new address', () =>
      v2call('PUT', `/subscribers/${erinId}`, good, { email: 'v2-erin.b@example.com' }),
    );
    await step('v2 DELETE /subscribers/{id}', () =>
      v2call('DELETE', `/subscribers/${erinId}`, good),
    );
    await step('v2 GET /newsletters, keyless', () => v2call('GET', '/newsletters', ''));
    await step('v2 GET /newsletters, keyed', () => v2call('GET', '/newsletters', good));
    await step('v2 GET /newsletters/{id}, keyless', () =>
      v2call('GET', `/newsletters/${campaignId}`, ''),
    );
    await step('v2 POST /subscriptions, keyless', () =>
      v2call('POST', '/subscriptions', '', { email: 'v2-fay@example.com', first_name: 'Fay' }),
    );
    // Keyed, while the pending address carries an expired token: the write drops it.
    const fayItem = await db.send(
      new GetCommand({
        TableName: service.stack.tableName,
        Key: subscriberKey('v2-fay@example.com'),
      }),
    );
    await setAttributes('v2-fay@example.com', {
      tokens: { ...(fayItem.Item?.tokens as Record<string, number>), [stale.hash]: expired },
    });
    await step('v2 POST /subscriptions, keyed, pending, with an expired token', () =>
      v2call('POST', '/subscriptions', good, { email: 'v2-fay@example.com', last_name: 'Ng' }),
    );
    await step('v2 POST /subscriptions, wrong key', () =>
      v2call('POST', '/subscriptions', wrong, { email: 'v2-gus@example.com' }),
    );
    // Our extension: an issue's life over v2, each function once, then a wrong key on each.
    // The steps that start the engine are not in docs/storage.md: the planner's and senders'
    // calls of one step and the next interleave by chance.
    const issueHtml = '<p>Hi {name}</p><p><a href="{unsubscription_url}">Leave</a></p>';
    const createdIssue = await step('v2 POST /issues', () =>
      v2call('POST', '/issues', good, { subject: 'v2 issue', html: issueHtml, lists: [4] }),
    );
    const issueId = (createdIssue.json as { id: number }).id;
    await step('v2 PUT /issues/{id}', () =>
      v2call('PUT', `/issues/${issueId}`, good, { subject: 'v2 issue, edited', html: issueHtml }),
    );
    const engine = { documented: false };
    await step(
      'v2 POST /issues/{id}/test',
      () => v2call('POST', `/issues/${issueId}/test`, good, { to: ['v2-tester@example.com'] }),
      engine,
    );
    // [campaign.quota] With no room left today the send asks SES (GetSendQuota, its grant),
    // counts the recipients (Query `recent`) and is refused until accept_quota.
    const { max24HourSend } = service.ses.sendQuota();
    const noRoom = () =>
      service.ses.setQuota({ max24HourSend: service.ses.sendQuota().sentLast24Hours });
    noRoom();
    const overQuota = await step('v2 POST /issues/{id}/send, over the quota', () =>
      v2call('POST', `/issues/${issueId}/send`, good, {}),
    );
    expect(overQuota.status, overQuota.text).toBe(409);
    service.ses.setQuota({ max24HourSend });
    await step(
      'v2 POST /issues/{id}/send',
      () => v2call('POST', `/issues/${issueId}/send`, good),
      engine,
    );
    await step('v2 GET /issues/{id}/report, CSV', () =>
      v2call('GET', `/issues/${issueId}/report`, good, undefined, { Accept: 'text/csv' }),
    );
    // The console's audience of a send to the new: SES's quota, the list index (Query), and
    // which members already have a record (BatchGetItem).
    await step('v2 GET /issues/{id}/audience, new_only', () =>
      v2call('GET', `/issues/${issueId}/audience`, `${good}&new_only=true`),
    );
    // A send to the new with no room left counts only those without a record (BatchGetItem):
    // everyone has one, so it fits and starts.
    noRoom();
    const newOnly = await step(
      'v2 POST /issues/{id}/send, new_only over the quota',
      () => v2call('POST', `/issues/${issueId}/send`, good, { new_only: true }),
      engine,
    );
    expect(newOnly.status, newOnly.text).toBe(200);
    service.ses.setQuota({ max24HourSend });
    const copied = await step('v2 POST /issues/{id}/copy', () =>
      v2call('POST', `/issues/${issueId}/copy`, good),
    );
    const copyId = (copied.json as { id: number }).id;
    // A send of the copy, paused, resumed, cancelled.
    await v2call('POST', `/issues/${copyId}/send`, good);
    await step(
      'v2 POST /issues/{id}/pause',
      () => v2call('POST', `/issues/${copyId}/pause`, good),
      engine,
    );
    // Paused for sure: a small send may have ended before the pause, and the resume must queue.
    await db.send(
      new UpdateCommand({
        TableName: service.stack.tableName,
        Key: { pk: `NEWSLETTER#${copyId}`, sk: 'newsletter' },
        UpdateExpression: 'SET #status = :paused, pause_reason = :operator',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':paused': 'paused', ':operator': 'operator' },
      }),
    );
    await step(
      'v2 POST /issues/{id}/resume',
      () => v2call('POST', `/issues/${copyId}/resume`, good),
      engine,
    );
    await step(
      'v2 POST /issues/{id}/cancel',
      () => v2call('POST', `/issues/${copyId}/cancel`, good),
      engine,
    );
    // A draft scheduled and taken back over HTTP: the function creates and deletes the
    // one-time schedule with its own role (scheduler grants, the scheduler role passed).
    const draft = (await v2call('POST', `/issues/${issueId}/copy`, good)).json as { id: number };
    const scheduledAt = `${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}Z`;
    const scheduled = await step('v2 POST /issues/{id}/schedule', () =>
      v2call('POST', `/issues/${draft.id}/schedule`, good, { at: scheduledAt }),
    );
    expect(scheduled.status, scheduled.text).toBe(200);
    const unscheduled = await step('v2 DELETE /issues/{id}/schedule', () =>
      v2call('DELETE', `/issues/${draft.id}/schedule`, good),
    );
    expect(unscheduled.status, unscheduled.text).toBe(200);
    for (const [method, path] of [
      ['POST', '/issues'],
      ['PUT', '/issues/1'],
      ['POST', '/issues/1/copy'],
      ['POST', '/issues/1/test'],
      ['POST', '/issues/1/send'],
      ['POST', '/issues/1/pause'],
      ['POST', '/issues/1/resume'],
      ['POST', '/issues/1/cancel'],
      ['POST', '/issues/1/schedule'],
      ['DELETE', '/issues/1/schedule'],
      ['GET', '/issues/1/report'],
      ['GET', '/issues/1/audience'],
      ['POST', '/subscribers/import'],
    ] as const) {
      await step(`v2 ${method} ${path}, wrong key`, () =>
        v2call(method, path, wrong, method === 'GET' ? undefined : {}),
      );
    }
    for (const path of [
      '/test',
      '/account',
      '/settings',
      '/lists',
      '/lists/1',
      '/extrafields',
      '/extrafields/city',
      '/subscribers',
      '/subscribers/1',
      '/subscribers/1/issues',
      '/newsletters',
      '/newsletters/1',
    ]) {
      await step(`v2 GET ${path}, wrong key`, () => v2call('GET', path, wrong));
    }
    // The console's people: an admin signed in with Cognito adds, lists and removes someone
    // (the people functions' Cognito grants), and a bad token on each (counted, as a wrong key).
    const admin = 'operator-admin@example.com';
    const adminToken = await adminIdToken(service.stack, admin, 'Operator-Pass-123!');
    const asAdmin = { Authorization: `Bearer ${adminToken}` };
    await step('v2 POST /people', () =>
      v2call('POST', '/people', '', { email: 'editor@example.com', role: 'editor' }, asAdmin),
    );
    await step('v2 GET /people', () => v2call('GET', '/people', '', undefined, asAdmin));
    await step('v2 DELETE /people/{email}', () =>
      v2call('DELETE', '/people/editor%40example.com', '', undefined, asAdmin),
    );
    for (const [method, path] of [
      ['GET', '/people'],
      ['POST', '/people'],
      ['DELETE', '/people/editor%40example.com'],
    ] as const) {
      await step(`v2 ${method} ${path}, wrong token`, () =>
        v2call(method, path, '', method === 'POST' ? {} : undefined, {
          Authorization: 'Bearer not.a.token',
        }),
      );
    }
    service.resetSettings();

    await webhookSteps();

    await step('delete_subscriber', () =>
      service.post('/subscribers/delete', { email: ada, api_key: key() }),
    );
    await step('delete_subscriber, unknown address', () =>
      service.post('/subscribers/delete', { email: ada, api_key: key() }),
    );
    await step('link of a deleted subscriber', () => service.get(confirm));
    await step('API description', () => service.get('/openapi.json'));

    // Wrong keys on every route that takes one, and calls that never reach a function.
    for (const [path, body] of [
      ['/unsubscribe', { email: bob }],
      ['/subscribers/add', { email: 'carol@example.com' }],
      ['/subscribers/delete', { email: bob }],
      ['/subscribers', {}],
      ['/subscribe', { email: 'dave@example.com' }],
    ] as const) {
      await step(`${path}, wrong key`, () => service.post(path, { ...body, api_key: 'wrong' }));
    }
    await step('newsletters, wrong key', () => service.get('/newsletters', { api_key: 'wrong' }));
    await step('wrong method', () => service.get('/subscribe'));
    await step('unknown path', () => service.get('/nothing-here'));
  }, 300_000);

  it('answers every step without a 5xx', () => {
    expect(steps.filter((each) => (each.status ?? 0) >= 500).map((each) => each.name)).toEqual([]);
    expect(steps.length).toBeGreaterThan(40);
  });

  it('dead-letters exactly what exhausted its retries: one batch per consumer, one feedback event', () => {
    const queues = [...service.stack.cloud.queues.values()];
    const held = queues.map((queue) => ({
      queue: queue.name.replace(/^Newsletter-|[0-9A-F]{8}(?=(\.fifo)?$)/g, ''),
      batches: service.stack.sqs.messages(queue.name).map((body) => {
        const message = JSON.parse(body) as {
          DDBStreamBatchInfo?: { batchSize: number };
          requestPayload?: { Records: { Sns: { Message: string } }[] };
        };
        // A stream batch says its size; an asynchronous invocation carries its event.
        return message.DDBStreamBatchInfo
          ? message.DDBStreamBatchInfo.batchSize
          : (
              JSON.parse(message.requestPayload?.Records[0]?.Sns.Message ?? '{}') as {
                mail?: { messageId?: string };
              }
            ).mail?.messageId;
      }),
    }));
    const deadLetters = held.filter((each) => /DeadLetters/.test(each.queue));
    expect(deadLetters.sort((a, b) => a.queue.localeCompare(b.queue))).toEqual([
      // The campaign engine gives up on nothing in the scenario: throttles are requeued.
      { queue: 'CampaignsPlanDeadLetters.fifo', batches: [] },
      // Every firing of the scenario is delivered ([campaign.schedule-dead-letters]).
      { queue: 'CampaignsScheduleDeadLetters', batches: [] },
      { queue: 'CampaignsSendDeadLetters', batches: [] },
      // Nor does the engagement recorder.
      { queue: 'EngagementDeadLetters', batches: [] },
      // The bus refuses nothing in the scenario: every event is published.
      { queue: 'EventsDeadLetters', batches: [] },
      { queue: 'MailerDeadLetters', batches: [1] },
      { queue: 'SesFeedbackDeadLetters', batches: ['soft-2'] },
      { queue: 'TableChangesDeadLetters', batches: [1] },
      // Every webhook delivery is logged: none comes back to the queue.
      { queue: 'WebhooksDeadLetters', batches: [] },
    ]);
  });

  it('makes no call that a function role does not allow', () => {
    expect(service.stack.denials).toEqual([]);
    expect(steps.flatMap((each) => each.calls).every((call) => call.allowed)).toBe(true);
  });

  it('reached every function of the template', () => {
    const called = new Set(service.stack.cloud.endpoint.calls.map((call) => call.caller));
    const functions = service.stack.cloud.stack.functions();
    // The API description's function calls nothing, by design.
    const silent = functions.filter((fn) => !called.has(fn.functionName));
    expect(silent.map((fn) => fn.entry)).toEqual(['functions/openapi.ts']);
  });

  describe('least privilege in both directions', () => {
    const functions = (): DeployedFunction[] => service.stack.cloud.stack.functions();
    // A function's role is also what the Lambda service reads its stream or polls its queue
    // with (an SQS mapping needs sqs:ReceiveMessage, sqs:DeleteMessage and
    // sqs:GetQueueAttributes, nothing more), and sends an asynchronous invocation it gave up on
    // to the on-failure queue with.
    const callsOf = (fn: DeployedFunction): RecordedCall[] =>
      service.stack.cloud.endpoint.calls.filter(
        (call) =>
          call.caller === fn.functionName ||
          call.caller === `${fn.functionName} (event source mapping)` ||
          call.caller === `${fn.functionName} (asynchronous invocation)`,
      );

    it('every grant of every function is needed by some call of the scenario', async () => {
      const unused: string[] = [];
      for (const fn of functions()) {
        for (const grant of await unusedGrants(fn, fn.policy, callsOf(fn)))
          unused.push(`${fn.entry}: ${describeGrant(grant)}`);
      }
      expect(unused).toEqual([]);
    });

    it('removing any single grant makes a call of the scenario fail, naming it', async () => {
      const lines: string[] = [];
      const harmless: string[] = [];
      for (const fn of functions()) {
        for (const { grant, failing } of await callsFailingWithout(fn, fn.policy, callsOf(fn))) {
          if (failing.length === 0) harmless.push(`${fn.entry}: ${describeGrant(grant)}`);
          const first = failing[0];
          if (first)
            lines.push(
              `${fn.entry} without ${describeGrant(grant)}: ${failing.length} call(s) refused, first ${first.summary}`,
            );
        }
      }
      expect(harmless).toEqual([]);
      console.log(`[deployed] grant removal, one at a time:\n  ${lines.join('\n  ')}`);
      expect(lines.length).toBeGreaterThan(20);
    });

    it('a grant that nothing uses is found and named', async () => {
      const list = functions().find((fn) => fn.entry === 'functions/subscribers-list.ts');
      if (!list) throw new Error('no subscribers-list function');
      const table = grantsOf(service.stack.cloud.stack.functions()[0]?.policy ?? list.policy)
        .map((grant) => grant.resource)
        .find((resource) => /:table\/[^/]+$/.test(resource));
      if (!table) throw new Error('no table ARN in any policy');
      const widened = {
        ...list.policy,
        Statement: [
          ...list.policy.Statement,
          { Sid: 'Extra', Effect: 'Allow' as const, Action: 'dynamodb:Scan', Resource: table },
        ],
      };
      const unused = await unusedGrants(list, widened, callsOf(list));
      expect(unused.map(describeGrant)).toEqual([`Extra dynamodb:Scan ${table}`]);
    });
  });

  it('docs/storage.md lists exactly the calls each request of the scenario made', () => {
    const names = new Map(
      service.stack.cloud.stack.functions().map((fn) => [fn.functionName, fn.entry ?? '?']),
    );
    const rows = steps
      .filter((each) => each.documented)
      .map((each) => {
        // The request's own function first, then what follows from the table's stream in a
        // fixed order: the table-changes reader and the mailer start on the same write, so
        // which starts first is chance.
        const started = [...new Set(each.calls.map((call) => call.caller))];
        const rank = (caller: string): number => {
          const at = FOLLOWERS.indexOf(names.get(caller) ?? '');
          return at === -1 ? FOLLOWERS.length : at;
        };
        const callers = [
          ...started.slice(0, 1),
          ...started.slice(1).sort((a, b) => rank(a) - rank(b)),
        ];
        const fn = callers.map(
          (caller) => `\`${(names.get(caller) ?? '?').replace(/^functions\/|\.ts$/g, '')}\``,
        );
        // Each function's calls in order, the functions in the order they started: SES's
        // feedback runs beside the mailer's last calls, so across functions the order is chance.
        // A retried call shows once. On a loaded machine the SDK's 3 s timeout gives up on a
        // call and retries it: both attempts are recorded, or only the retry when the endpoint
        // had not read the first yet. The design makes neither.
        const calls = callers
          .flatMap((caller) =>
            parameterReadsTogether(
              oneInvocationAtATime(each.calls.filter((call) => call.caller === caller))
                .filter(
                  (call, index, own) =>
                    call.attempt === 1 || own[index - 1]?.summary !== call.summary,
                )
                .map((call) => call.summary),
            ),
          )
          .join(' → ');
        return `| ${each.name} | ${each.status ?? '—'} | ${fn.join(', ') || '—'} | ${calls || 'none'} |`;
      });
    const table = [
      '| request | status | function | AWS calls, in order per function |',
      '| --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
    const file = new URL('../../docs/storage.md', import.meta.url);
    const doc = readFileSync(file, 'utf8');
    const start = '<!-- recorded-calls:start -->';
    const end = '<!-- recorded-calls:end -->';
    const before = doc.slice(0, doc.indexOf(start) + start.length);
    const after = doc.slice(doc.indexOf(end));
    const current = doc.slice(before.length, doc.length - after.length).trim();
    // UPDATE_DOCS=1 rewrites the section from this run (then review the diff).
    if (process.env.UPDATE_DOCS) writeFileSync(file, `${before}\n${table}\n${after}`);
    expect(doc.indexOf(start)).toBeGreaterThan(0);
    expect(current).toBe(table);
  });
});

/** The functions that follow a request's writes, in the order the recorded calls name them. */
const FOLLOWERS = [
  'functions/streams/table-changes.ts',
  'functions/streams/mailer.ts',
  'functions/feedback/ses-feedback.ts',
  'functions/events/event-publisher.ts',
  'functions/events/webhook-deliverer.ts',
];

/**
 * A function's calls one invocation after another, in the order the invocations began: two
 * invocations of a queue's consumer may overlap, and how their calls interleave is chance. A
 * call without an invocation (the parameters extension's) goes with the call before it.
 */
function oneInvocationAtATime(calls: readonly RecordedCall[]): RecordedCall[] {
  let current: string | undefined;
  const owned = calls.map((call) => {
    current = call.invocation ?? current;
    return { call, invocation: current };
  });
  const order = [...new Set(owned.map((each) => each.invocation))];
  return owned
    .map((each, index) => ({ ...each, index }))
    .sort((a, b) => order.indexOf(a.invocation) - order.indexOf(b.invocation) || a.index - b.index)
    .map((each) => each.call);
}

/**
 * Consecutive SSM reads as one entry, names sorted: the extension reads the names of one
 * request in parallel, so their order on the wire is chance.
 */
function parameterReadsTogether(summaries: readonly string[]): string[] {
  const merged: string[] = [];
  let names: string[] = [];
  const flush = () => {
    if (names.length > 0) merged.push(`GetParameter(${names.sort().join(', ')})`);
    names = [];
  };
  for (const summary of summaries) {
    const read = /^GetParameter\((.*)\)$/.exec(summary);
    if (read?.[1]) names.push(read[1]);
    else {
      flush();
      merged.push(summary);
    }
  }
  flush();
  return merged;
}
