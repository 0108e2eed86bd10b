/**
 * `npm run bench:sender` (also the last part of `npm run bench`): the campaign worker's own CPU
 * per mail, alone. `sendChunk` runs in this process with real AWS SDK v3 clients (DynamoDB
 * DocumentClient, SES) whose endpoints answer at once (bench/instant-aws.ts): the SDK's
 * serialising, signing and parsing count, no emulator, network or IAM check does. Pacing is off
 * (a rate no worker reaches). Then each piece is timed again alone on what the run did, in the
 * same process: the render, the MIME composition, the SES calls and the DynamoDB calls; the
 * rest is the engine itself. Prints a table; docs/benchmarks.md keeps the figures by commit.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESClient } from '@aws-sdk/client-ses';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildMime } from '../shared/adapters/mail/build-mime.ts';
import type { CampaignMail } from '../shared/adapters/mail/campaign-mailer-port.ts';
import { PreparedMime } from '../shared/adapters/mail/prepared-mime.ts';
import { SesCampaignMailer } from '../shared/adapters/mail/ses-campaign-mailer.ts';
import { DynamoCampaignStore } from '../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoSendBudget } from '../shared/adapters/store/dynamo-send-budget.ts';
import { toSubscriberItem } from '../shared/adapters/store/subscriber-item.ts';
import { keys } from '../shared/adapters/store/table-design.ts';
import { parseCampaignContent } from '../shared/domain/campaign/campaign-content.ts';
import {
  type PreparedCampaign,
  prepareCampaign,
} from '../shared/domain/campaign/prepared-campaign.ts';
import { webVersionUrlOf } from '../shared/domain/campaign/web-version.ts';
import { CHUNK_SIZE, chunkMessages } from '../shared/domain/campaign/work-messages.ts';
import { newSubscriberRecord } from '../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import type { Settings } from '../shared/domain/settings-schema.ts';
import type { SubscriberRecord } from '../shared/domain/subscriber.ts';
import { SYSTEM_CLOCK } from '../shared/operations/campaign/campaign-dependencies.ts';
import {
  SENDS_IN_FLIGHT,
  type SenderDependencies,
  sendChunk,
} from '../shared/operations/campaign/send-recipients.ts';
import { NO_METRICS } from '../shared/operations/dependencies.ts';
import { testSettings } from '../test/support/fixtures.ts';
import { realisticHtml } from '../test/support/realistic-issue.ts';
import { instantAws } from './instant-aws.ts';
import { loadAverage } from './machine.ts';

const USAGE = `Usage: tsx bench/sender-cpu.ts [--recipients N] [--warm N]
  --recipients N  mails timed (default 3000)
  --warm N        mails sent first, untimed, so the JIT has compiled the path (default 500)`;

const NEWSLETTER = 1;
const LINK_BASE = 'https://news.example.com/api/newsletter/v1';

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** CPU ms of running `each` over `items` one after the other. */
async function timed<T>(
  items: readonly T[],
  each: (item: T, index: number) => unknown,
): Promise<number> {
  const start = process.cpuUsage();
  for (const [index, item] of items.entries()) await each(item, index);
  return cpuMs(start);
}

/** A recorded SDK call: its command's class and input, to send again. */
interface Call {
  readonly constructor: unknown;
  readonly input: unknown;
}

/** Wraps a client's `send` so that calls are kept while `recording()` says so. */
function recordCalls(
  client: { send: (...args: never[]) => unknown },
  into: Call[],
  recording: () => boolean,
): void {
  const send = client.send.bind(client) as (command: never) => unknown;
  client.send = ((command: Call) => {
    if (recording()) into.push(command);
    return send(command as never);
  }) as never;
}

/** A subscriber on list 1; every fifth has no name, so the fallback renders. */
function subscriber(id: number, settings: Settings): SubscriberRecord {
  const email = `reader-${String(id).padStart(7, '0')}@example.com`;
  const fields = { name: id % 5 === 0 ? '' : 'Ada', surname: 'Lovelace', lists: [1] };
  const record = newSubscriberRecord(
    email,
    { ...fields, profile: { city: 'Lyon' } },
    'C',
    settings,
    new Date('2026-10-01T00:00:00.000Z'),
  );
  return { ...record, id };
}

/**
 * One worker's world: the issue sending, its subscribers, the store and the SES mailer over
 * clients whose endpoints answer at once, and what they were asked while recording.
 */
function senderWorld(count: number) {
  const settings = testSettings({
    profile_fields: [{ id: 'city', name: 'City' }],
    campaign: { tag_fallbacks: { name: 'reader' } },
  });
  const parsed = parseCampaignContent(
    { subject: 'November news', html: realisticHtml(), lists: [1] },
    settings,
  );
  if (isNewsletterError(parsed)) throw new Error(parsed.message);
  const content = parsed.content;
  const startedAt = '2026-11-01T00:00:00.000Z';
  const campaign = {
    ...keys.newsletter(NEWSLETTER),
    ...{ id: NEWSLETTER, subject: content.subject, status: 'sending', created: startedAt },
    ...{ private: false, lists: [1], run: 1, started_at: startedAt, rate: 100_000 },
    link_base: LINK_BASE,
  };
  const stored = { ...keys.newsletterContent(NEWSLETTER), html: content.html, text: content.text };
  const subscribers = new Map<string, SubscriberRecord>();
  for (let id = 1; id <= count; id += 1) {
    const record = subscriber(id, settings);
    subscribers.set(record.email, record);
  }
  const handler = instantAws((pk, sk) => {
    if (sk === 'subscriber') {
      const found = subscribers.get(pk.slice('SUBSCRIBER#'.length));
      return found && toSubscriberItem(found);
    }
    if (pk !== campaign.pk) return undefined;
    return sk === 'newsletter' ? campaign : sk === 'content' ? stored : undefined;
  });
  const clientOptions = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench', sessionToken: 'bench' },
    requestHandler: handler,
  };
  // As the sender builds them (shared/runtime): the document client, SES without retries.
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...clientOptions, maxAttempts: 10 }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const ses = new SESClient({ ...clientOptions, maxAttempts: 1 });
  const recorded = {
    on: false,
    dynamo: [] as Call[],
    ses: [] as Call[],
    mails: [] as CampaignMail[],
  };
  recordCalls(db, recorded.dynamo, () => recorded.on);
  recordCalls(ses, recorded.ses, () => recorded.on);
  const mailer = new SesCampaignMailer(ses, {
    ...{ withDeliveries: 'all', withoutDeliveries: 'some' },
    ...{ trackedWithDeliveries: 'tracked-all', trackedWithoutDeliveries: 'tracked' },
  });
  const deps: SenderDependencies = {
    campaigns: new DynamoCampaignStore(db, 'bench'),
    budget: new DynamoSendBudget(db, 'bench'),
    queue: {
      plan: async () => undefined,
      send: async () => {
        throw new Error('bench: the sender put recipients back on the queue');
      },
    },
    settings: async () => settings,
    now: () => new Date(),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    metrics: NO_METRICS,
    mailer: {
      send: (mail, sender) => {
        if (recorded.on) recorded.mails.push(mail);
        return mailer.send(mail, sender);
      },
    },
    clock: SYSTEM_CLOCK,
    contents: new Map(),
    slots: new Map(),
  };
  /** Sends to subscribers `from` to `to` (ids, inclusive) in chunks, as the queue hands them. */
  const send = async (from: number, to: number): Promise<number> => {
    const recipients = [...subscribers.values()].slice(from - 1, to);
    let sent = 0;
    for (const chunk of chunkMessages(NEWSLETTER, 1, recipients)) {
      const invocation = { workers: 1, owner: 'bench', deadline: Date.now() + 900_000 };
      sent += (await sendChunk(deps, chunk, { ...invocation, inFlight: SENDS_IN_FLIGHT })).sent;
    }
    return sent;
  };
  return { settings, content, subscribers, db, ses, recorded, send };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      recipients: { type: 'string', default: '3000' },
      warm: { type: 'string', default: '500' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const timedCount = Number(values.recipients);
  const warmCount = Number(values.warm);
  if (!(timedCount >= 100 && warmCount >= 0)) throw new Error(USAGE);

  const world = senderWorld(warmCount + timedCount);
  await world.send(1, warmCount);
  world.recorded.on = true;
  const runStart = process.cpuUsage();
  const wallStart = performance.now();
  const sent = await world.send(warmCount + 1, warmCount + timedCount);
  const totalMs = cpuMs(runStart);
  const wallMs = performance.now() - wallStart;
  world.recorded.on = false;
  if (sent !== timedCount) throw new Error(`bench: ${sent} of ${timedCount} sent`);

  // Each piece again, alone, on what the run did.
  const { content, settings, recorded } = world;
  // As a chunk does it: the issue prepared once per chunk of CHUNK_SIZE, then each mail.
  const webVersionUrl = webVersionUrlOf({ id: NEWSLETTER, private: false }, LINK_BASE);
  let prepared: PreparedCampaign | undefined;
  const renderMs = await timed(recorded.mails, (mail, index) => {
    if (prepared === undefined || index % CHUNK_SIZE === 0)
      prepared = prepareCampaign(
        content,
        webVersionUrl ? { webVersionUrl } : {},
        settings.campaign.tag_fallbacks,
      );
    return prepared.render(world.subscribers.get(mail.to) as SubscriberRecord, mail.unsubscribeUrl);
  });
  const mime = new PreparedMime();
  const mimeMs = await timed(recorded.mails, (mail) =>
    mail.pieces
      ? mime.build({ sender: settings.sender, ...mail, pieces: mail.pieces })
      : buildMime({ sender: settings.sender, ...mail }),
  );
  const again = (client: unknown) => (call: Call) =>
    (client as { send: (command: unknown) => Promise<unknown> }).send(
      new (call.constructor as new (input: unknown) => unknown)(call.input),
    );
  const sesMs = await timed(recorded.ses, again(world.ses));
  const dynamoMs = await timed(recorded.dynamo, again(world.db));

  const perMail = (ms: number) => (ms / sent).toFixed(3);
  const dynamoCounts = new Map<string, number>();
  for (const call of recorded.dynamo) {
    const name = (call.constructor as { name: string }).name.replace(/Command$/, '');
    dynamoCounts.set(name, (dynamoCounts.get(name) ?? 0) + 1);
  }
  const htmlKb = recorded.mails.reduce((sum, mail) => sum + mail.html.length, 0) / sent / 1024;
  const rows = [
    [
      'all of sendChunk',
      totalMs,
      `${sent} mails; ${(sent / (wallMs / 1000)).toFixed(0)} a second on one worker`,
    ],
    [
      'render (prepareCampaign once a chunk, then render)',
      renderMs,
      'the parts of each mail sent, rendered again',
    ],
    ['MIME composition (PreparedMime)', mimeMs, `${htmlKb.toFixed(1)} KB of HTML a mail`],
    [
      'SES SDK call (SendRawEmail)',
      sesMs,
      `${(recorded.ses.length / sent).toFixed(2)} calls a mail`,
    ],
    [
      'DynamoDB SDK calls',
      dynamoMs,
      [...dynamoCounts].map(([name, count]) => `${name} ${(count / sent).toFixed(2)}`).join(', '),
    ],
    [
      'the rest: engine, lanes, links',
      totalMs - renderMs - mimeMs - sesMs - dynamoMs,
      'all of it less the pieces above',
    ],
  ] as const;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  process.stdout.write(
    `Sender CPU per mail at ${commit}, Node ${process.version}, load average ${loadAverage().toFixed(2)}\n\n` +
      `| Piece | CPU ms a mail | Notes |\n| --- | ---: | --- |\n` +
      `${rows.map(([piece, ms, notes]) => `| ${piece} | ${perMail(ms)} | ${notes} |`).join('\n')}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
