/**
 * The campaign engine's operations over a real DynamoDB Local table, with the queues in memory
 * (FIFO planner queue with deduplication, workers' queue with delays and redelivery), a fake
 * SES that records every mail and can throttle, fail or be away, and a virtual clock: tests
 * decide when each message is handled, twice if they like, or by a worker that dies.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type {
  CampaignMail,
  CampaignMailer,
  CampaignSendFailure,
  SendQuota,
} from '../../shared/adapters/mail/campaign-mailer-port.ts';
import { CampaignSendError } from '../../shared/adapters/mail/campaign-mailer-port.ts';
import type { CampaignQueue } from '../../shared/adapters/queue/campaign-queue-port.ts';
import {
  type ChunkClaim,
  recordSpaceOf,
  type StoredContent,
} from '../../shared/adapters/store/campaign-store-port.ts';
import { DynamoCampaignStore } from '../../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoEngagementStore } from '../../shared/adapters/store/dynamo-engagement-store.ts';
import { DynamoSendBudget } from '../../shared/adapters/store/dynamo-send-budget.ts';
import type { CapacityListener, DynamoStore } from '../../shared/adapters/store/dynamo-store.ts';
import type { AccountRefusal, CampaignRecord } from '../../shared/domain/campaign/campaign.ts';
import type {
  ChunkMessage,
  PlannerMessage,
  TestMessage,
} from '../../shared/domain/campaign/work-messages.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import type { Settings, SettingsInput } from '../../shared/domain/settings-schema.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import type {
  Clock,
  PlannerDependencies,
} from '../../shared/operations/campaign/campaign-dependencies.ts';
import { sendNewsletter } from '../../shared/operations/campaign/control-campaign.ts';
import { planPage, walkPage } from '../../shared/operations/campaign/plan-recipients.ts';
import {
  createNewsletterIssue,
  type NewsletterInput,
} from '../../shared/operations/campaign/save-newsletter.ts';
import {
  type ChunkOutcome,
  type SenderDependencies,
  sendChunk,
} from '../../shared/operations/campaign/send-recipients.ts';
import type { SweeperDependencies } from '../../shared/operations/campaign/sweep-campaigns.ts';
import { sendTestMail } from '../../shared/operations/campaign/test-send.ts';
import { RecordingLogger, RecordingMetrics, testSettings } from './fixtures.ts';
import { freshStore } from './local-dynamo.ts';

/**
 * Time that moves only when someone waits: pacing without waiting. Sleepers at once (a
 * worker's lanes, each waiting for its slot) wake in the order of their wake times, one per
 * turn of the event loop, and the clock moves to each one's: not to the sum of their waits.
 */
export class VirtualClock implements Clock {
  readonly #sleepers: { readonly wake: number; readonly resolve: () => void }[] = [];
  #scheduled = false;
  constructor(public t = Date.parse('2026-11-22T10:00:00.000Z')) {}
  now = (): number => this.t;
  sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      this.#sleepers.push({ wake: this.t + Math.max(0, ms), resolve });
      this.#wakeNext();
    });

  #wakeNext(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#sleepers.sort((a, b) => a.wake - b.wake);
      const next = this.#sleepers.shift();
      if (!next) return;
      this.t = Math.max(this.t, next.wake);
      next.resolve();
      if (this.#sleepers.length > 0) this.#wakeNext();
    });
  }
}

/** SES as the engine sees it: records what it takes, refuses as told. */
export class FakeSes implements CampaignMailer {
  readonly mails: (CampaignMail & { readonly at: number; readonly messageId: string })[] = [];
  /**
   * How the next sends fail; checked before each send. `unknown` takes the mail and then
   * answers nothing (a call that timed out after SES took it).
   */
  failWith:
    | ((
        mail: CampaignMail,
      ) =>
        | CampaignSendFailure
        | { readonly failure: CampaignSendFailure; readonly refusal: AccountRefusal }
        | undefined)
    | undefined;
  rate = 100;
  constructor(private readonly clock: VirtualClock) {}

  async send(mail: CampaignMail): Promise<string> {
    const verdict = this.failWith?.(mail);
    const messageId = `msg-${randomUUID()}`;
    if (verdict) {
      const { failure, refusal } = typeof verdict === 'string' ? { failure: verdict } : verdict;
      if (failure === 'unknown') this.mails.push({ ...mail, at: this.clock.now(), messageId });
      throw new CampaignSendError(failure, `fake SES: ${failure}`, {
        cause: failure,
        ...(refusal ? { refusal } : {}),
      });
    }
    this.mails.push({ ...mail, at: this.clock.now(), messageId });
    return messageId;
  }

  async maxSendRate(): Promise<number> {
    return this.rate;
  }

  /** The daily quota GetSendQuota reports; `sentLast24Hours` counts the mails taken. */
  max24HourSend = 50_000;
  async sendQuota(): Promise<SendQuota> {
    return {
      maxSendRate: this.rate,
      max24HourSend: this.max24HourSend,
      sentLast24Hours: this.mails.filter((mail) => mail.at > this.clock.now() - 86_400_000).length,
    };
  }

  /** How many mails each address got. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const mail of this.mails) counts.set(mail.to, (counts.get(mail.to) ?? 0) + 1);
    return counts;
  }
}

/** SQS as the engine uses it, in memory: FIFO deduplication and per-message delays. */
export class MemoryQueues implements CampaignQueue {
  readonly plans: PlannerMessage[] = [];
  readonly sends: { chunk: ChunkMessage | TestMessage; visibleAt: number }[] = [];
  readonly #seen = new Set<string>();
  constructor(private readonly clock: VirtualClock) {}

  async plan(message: PlannerMessage): Promise<void> {
    const id =
      message.kind === 'plan'
        ? `${message.newsletter_id}-plan-${message.run}-${message.walk}-${message.page}`
        : message.kind === 'walk'
          ? `${message.newsletter_id}-walk-${message.run}-${message.walk}-${message.after}`
          : `${message.newsletter_id}-test-${message.nonce}`;
    if (this.#seen.has(id)) return;
    this.#seen.add(id);
    this.plans.push(message);
  }

  async send(chunks: readonly (ChunkMessage | TestMessage)[], delaySeconds = 0): Promise<void> {
    for (const chunk of chunks)
      this.sends.push({ chunk, visibleAt: this.clock.now() + delaySeconds * 1000 });
  }

  /** The next send message that is visible, moving the clock to it if all are delayed. */
  takeSend(): ChunkMessage | TestMessage | undefined {
    if (this.sends.length === 0) return undefined;
    this.sends.sort((a, b) => a.visibleAt - b.visibleAt);
    const next = this.sends.shift();
    if (!next) return undefined;
    if (next.visibleAt > this.clock.now()) this.clock.t = next.visibleAt;
    return next.chunk;
  }
}

/** Everything a campaign test needs. */
export interface CampaignWorld {
  readonly store: DynamoStore;
  /** The table behind both stores, for what a test does behind the engine's back. */
  readonly table: { readonly client: DynamoDBDocumentClient; readonly name: string };
  readonly campaigns: DynamoCampaignStore;
  /** Opens and clicks, in the same table. */
  readonly engagement: DynamoEngagementStore;
  readonly queues: MemoryQueues;
  readonly ses: FakeSes;
  readonly clock: VirtualClock;
  readonly log: RecordingLogger;
  readonly metrics: RecordingMetrics;
  readonly current: { settings: Settings };
  readonly deps: PlannerDependencies & SenderDependencies & SweeperDependencies;
  /** Subscribers written directly: `C` on `lists` unless told otherwise. */
  subscribe(
    count: number,
    fields?: Partial<
      Pick<SubscriberRecord, 'lists' | 'status' | 'name' | 'confirmed_at' | 'transient_bounces'>
    >,
    prefix?: string,
  ): Promise<SubscriberRecord[]>;
  /** A draft issue with content. */
  issue(input?: NewsletterInput): Promise<CampaignRecord>;
  /** Handles one planner message; undefined when there was none. */
  planOne(): Promise<string | undefined>;
  /** Handles one workers' message, as a worker invocation would. */
  sendOne(options?: { workers?: number; inFlight?: number }): Promise<ChunkOutcome | undefined>;
  /** Handles everything queued (planner first) until both queues are empty. */
  drain(options?: { workers?: number; inFlight?: number; rounds?: number }): Promise<void>;
  campaign(id: number): Promise<CampaignRecord>;
}

/** A fresh table and engine. */
export async function campaignWorld(
  settings: Partial<SettingsInput> = {},
  pageSizes: { plan?: number; walk?: number; chunk?: number } = {},
  /** Told of every request the campaign store makes, by its operation's name. */
  onCapacity?: CapacityListener,
  /** `stream`: the table's stream, for a test that counts subscribers from it. */
  options: { readonly stream?: boolean } = {},
): Promise<CampaignWorld> {
  const fresh = await freshStore(undefined, options);
  const campaigns = new DynamoCampaignStore(fresh.client, fresh.tableName, onCapacity);
  const clock = new VirtualClock();
  const queues = new MemoryQueues(clock);
  const ses = new FakeSes(clock);
  const log = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const current = { settings: testSettings(settings) };
  const deps: PlannerDependencies & SenderDependencies & SweeperDependencies = {
    campaigns,
    queue: queues,
    quota: ses,
    mailer: ses,
    clock,
    contents: new Map<number, StoredContent>(),
    budget: new DynamoSendBudget(fresh.client, fresh.tableName),
    slots: new Map<string, number[]>(),
    sendSamples: new Map(),
    settings: async () => current.settings,
    now: () => new Date(clock.now()),
    log,
    metrics,
    pageSizes,
  };
  let next = 0;
  const world: CampaignWorld = {
    store: fresh.store,
    table: { client: fresh.client, name: fresh.tableName },
    campaigns,
    engagement: new DynamoEngagementStore(fresh.client, fresh.tableName, { onCapacity }),
    queues,
    ses,
    clock,
    log,
    metrics,
    current,
    deps,
    subscribe: async (count, fields = {}, prefix = 'reader') => {
      const made: SubscriberRecord[] = [];
      for (let i = 0; i < count; i += 1) {
        next += 1;
        const id = await fresh.store.reserveIds('subscriber', 1);
        const stamp = new Date(clock.now() - 86_400_000).toISOString();
        const record: SubscriberRecord = {
          id,
          email: `${prefix}${next}@example.com`,
          name: `Reader ${next}`,
          surname: '',
          gender: '',
          lists: fields.lists ?? [1],
          profile: {},
          status: fields.status ?? 'C',
          created: stamp,
          updated: stamp,
          version: 1,
          tokens: {},
          ...((fields.status ?? 'C') === 'C' ? { confirmed_at: fields.confirmed_at ?? stamp } : {}),
          ...(fields.name !== undefined ? { name: fields.name } : {}),
          ...(fields.transient_bounces !== undefined
            ? { transient_bounces: fields.transient_bounces }
            : {}),
        };
        if (!(await fresh.store.createSubscriber(record))) throw new Error('subscriber exists');
        made.push(record);
      }
      return made;
    },
    issue: async (input = {}) => {
      const saved = await createNewsletterIssue(
        { campaigns, store: fresh.store, settings: deps.settings, now: deps.now },
        {
          subject: 'November issue',
          html: '<p>Hello {name},</p><p>News.</p><p><a href="{unsubscription_url}">Unsubscribe</a></p>',
          lists: [1],
          ...input,
        },
      );
      if (isNewsletterError(saved)) throw new Error(saved.message);
      return saved.issue;
    },
    planOne: async () => {
      const message = queues.plans.shift();
      if (!message) return undefined;
      if (message.kind === 'test') {
        await queues.send([message]);
        return 'test_queued';
      }
      return message.kind === 'plan' ? planPage(deps, message) : walkPage(deps, message);
    },
    sendOne: async ({ workers = 1, inFlight = 4 } = {}) => {
      const chunk = queues.takeSend();
      if (!chunk) return undefined;
      if ('kind' in chunk) {
        const { sent } = await sendTestMail(deps, chunk);
        return { sent, skipped: 0, failed: 0, requeued: 0 };
      }
      return sendChunk(deps, chunk, {
        workers,
        owner: randomUUID(),
        deadline: clock.now() + 60_000,
        inFlight,
      });
    },
    drain: async ({ workers = 1, inFlight = 4, rounds = 10_000 } = {}) => {
      for (let round = 0; round < rounds; round += 1) {
        if (queues.plans.length > 0) await world.planOne();
        else if (queues.sends.length > 0) await world.sendOne({ workers, inFlight });
        else return;
      }
      throw new Error('the queues did not drain');
    },
    campaign: async (id) => {
      const campaign = await campaigns.getCampaign(id);
      if (!campaign) throw new Error(`no newsletter ${id}`);
      return campaign;
    },
  };
  return world;
}

/** Starts a send as the operator would; a refusal fails the test with its message. */
export async function started(world: CampaignWorld, id: number, newOnly = false) {
  const result = await sendNewsletter(world.deps, { id, newOnly });
  if (isNewsletterError(result)) throw new Error(result.message);
  return result;
}

/** The lines the engine logged for one event, in order. */
export const linesOf = (world: CampaignWorld, event: string) =>
  world.log.lines.filter((line) => line.event === event);

/**
 * The world's campaign store with some calls replaced, the others going to the store itself:
 * how a test puts a race or a fault between two of an operation's calls.
 */
export function storeWith(
  world: CampaignWorld,
  overrides: Partial<CampaignWorld['campaigns']>,
): CampaignWorld['campaigns'] {
  return new Proxy(world.campaigns, {
    get: (target, name) => {
      if (name in overrides) return overrides[name as keyof CampaignWorld['campaigns']];
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A chunk claim by the worker `dead`, made at `now` with a lease to `leaseUntil` (a minute). */
export const deadClaim = (now: number, leaseUntil = now + 60_000): ChunkClaim => ({
  owner: 'dead',
  now,
  leaseUntil,
  linkExpiresAt: 2e9,
  entries: [],
});

/**
 * What became of an issue's run so far: its settled records counted, and `pending` the planned
 * recipients it has not reached yet (they have no record until their turn ends).
 */
export async function recipientStates(world: CampaignWorld, id: number) {
  const campaign = await world.campaign(id);
  const counts = await world.campaigns.countSettled(recordSpaceOf(campaign), campaign.run);
  return { ...counts, pending: campaign.total - (counts.sent + counts.skipped + counts.failed) };
}
