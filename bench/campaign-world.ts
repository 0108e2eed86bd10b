/**
 * The local stack as bench/campaigns.ts drives it: subscribers seeded straight into the table,
 * issues created and sends started in-process with the operations an operator's CLI runs, and
 * the probes read past the engine (the local SES's accepted sends, the campaign record, the
 * AWS calls each function made, the wall time of each invocation).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RecordedCall } from '../infra/local/cloud/aws-endpoint.ts';
import { LOCAL_REGION } from '../infra/local/cloud/intrinsics.ts';
import { DEMO_SETTINGS } from '../infra/local/demo-data.ts';
import type { LocalStack } from '../infra/local/local-stack.ts';
import { SqsCampaignQueue } from '../shared/adapters/queue/sqs-campaign-queue.ts';
import { DynamoCampaignStore } from '../shared/adapters/store/dynamo-campaign-store.ts';
import { DynamoStore } from '../shared/adapters/store/dynamo-store.ts';
import { memberItems } from '../shared/adapters/store/list-index.ts';
import { toSubscriberItem } from '../shared/adapters/store/subscriber-item.ts';
import type { CampaignRecord } from '../shared/domain/campaign/campaign.ts';
import { parseCampaignContent } from '../shared/domain/campaign/campaign-content.ts';
import { newSubscriberRecord } from '../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { parseSettings } from '../shared/domain/parse-settings.ts';
import type { SettingsInput } from '../shared/domain/settings-schema.ts';
import type { CampaignDependencies } from '../shared/operations/campaign/campaign-dependencies.ts';
import {
  cancelNewsletter,
  pauseNewsletter,
  resumeNewsletter,
  sendNewsletter,
} from '../shared/operations/campaign/control-campaign.ts';
import { NO_METRICS } from '../shared/operations/dependencies.ts';
import { ENV_DEFAULTS } from '../shared/runtime/environment.ts';

/** One invocation of a campaign function, timed around the local Lambda host's invoke. */
export interface Invocation {
  readonly logicalId: string;
  readonly ms: number;
  readonly memoryMb: number;
}

/** A sample of the local SES's accepted sends. */
export interface Sample {
  readonly t: number;
  readonly count: number;
}

export interface CampaignWorld {
  readonly stack: LocalStack;
  readonly campaigns: DynamoCampaignStore;
  readonly invocations: Invocation[];
  /** Recipients SES accepted since the stack started (all sends). */
  accepted(): number;
  /** Puts the settings (demo settings plus `patch`) where the functions read them. */
  setSettings(patch?: Partial<SettingsInput>): void;
  /** `count` confirmed subscribers on `list`, addresses `${prefix}-N@example.com`. */
  seed(prefix: string, count: number, list: number): Promise<void>;
  /** A new issue to `lists`; its id. */
  createIssue(subject: string, lists: readonly number[]): Promise<number>;
  send(id: number): Promise<void>;
  pause(id: number): Promise<void>;
  resume(id: number): Promise<void>;
  cancel(id: number): Promise<void>;
  campaign(id: number): Promise<CampaignRecord | undefined>;
  /** Mails per address of the issue with `subject`, as the SES store holds them. */
  mailsPerAddress(subject: string): Promise<Map<string, number>>;
  /** Logical id of the workers' function. */
  readonly senderId: string;
  close(): void;
}

export async function campaignWorld(stack: LocalStack): Promise<CampaignWorld> {
  const client = new DynamoDBClient({
    endpoint: stack.dynamo.endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
  const db = DynamoDBDocumentClient.from(client);
  const sqs = new SQSClient({
    endpoint: stack.sqs.endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
  const store = new DynamoStore(db, stack.tableName);
  const campaigns = new DynamoCampaignStore(db, stack.tableName);
  const plans = stack.endpoints.campaign_queue;
  if (!plans) throw new Error('the stack has no campaign queue');
  let settingsText = JSON.stringify(DEMO_SETTINGS);
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const deps: CampaignDependencies = {
    campaigns,
    queue: new SqsCampaignQueue(sqs, { plans }),
    settings: async () => parseSettings(settingsText),
    now: () => new Date(),
    log: silent,
    metrics: NO_METRICS,
  };
  const context = { apiRoot: stack.apiRoot };
  const must = async <T>(result: Promise<T>): Promise<T> => {
    const value = await result;
    if (isNewsletterError(value)) throw new Error(value.message);
    return value;
  };

  // Every invocation of a campaign function, and of the feedback function each mail's SES
  // delivery event invokes, timed as Lambda bills it (wall time).
  const invocations: Invocation[] = [];
  let senderId = '';
  for (const [logicalId, host] of stack.cloud.functions) {
    if (!/^(Campaigns|SesFeedback)/.test(logicalId)) continue;
    if (/CampaignSender/.test(logicalId)) senderId = logicalId;
    const invoke = host.invoke.bind(host);
    host.invoke = async (event) => {
      const started = performance.now();
      try {
        return await invoke(event);
      } finally {
        invocations.push({
          logicalId,
          ms: performance.now() - started,
          memoryMb: host.fn.memoryMb,
        });
      }
    };
  }
  if (!senderId) throw new Error('no campaign sender in the stack');

  return {
    stack,
    campaigns,
    invocations,
    senderId,
    accepted: () => stack.ses.sendQuota().sentLast24Hours,
    setSettings: (patch = {}) => {
      settingsText = JSON.stringify({ ...DEMO_SETTINGS, ...patch });
      stack.parameters.put(ENV_DEFAULTS.settingsParameter, settingsText);
    },
    seed: async (prefix, count, list) => {
      const first = await store.reserveIds('subscriber', count);
      const settings = parseSettings(settingsText);
      const now = new Date();
      const records = Array.from({ length: count }, (_, index) => ({
        ...newSubscriberRecord(
          `${prefix}-${index}@example.com`,
          { name: `Reader ${index}`, lists: [list], profile: {} },
          'C',
          settings,
          now,
          { preassigned: false },
        ),
        id: first + index,
        version: 1,
      }));
      const items = records.flatMap((record) => [toSubscriberItem(record), ...memberItems(record)]);
      const batches: Record<string, unknown>[][] = [];
      for (let start = 0; start < items.length; start += 25)
        batches.push(items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })));
      const lane = async (): Promise<void> => {
        for (let requests = batches.shift(); requests; requests = batches.shift()) {
          while (requests.length > 0) {
            const output = await db.send(
              new BatchWriteCommand({ RequestItems: { [stack.tableName]: requests } }),
            );
            requests = (output.UnprocessedItems?.[stack.tableName] ?? []) as Record<
              string,
              unknown
            >[];
          }
        }
      };
      await Promise.all(Array.from({ length: 4 }, lane));
    },
    createIssue: async (subject, lists) => {
      const settings = parseSettings(settingsText);
      const id = await store.nextId('newsletter');
      const content = parseCampaignContent(
        {
          subject,
          html: `<html><body><h1>Hello {name}</h1><p>${subject} went to {email}.</p><p><a href="{unsubscription_url}">Unsubscribe</a></p></body></html>`,
          lists: [...lists],
        },
        settings,
      );
      if (isNewsletterError(content)) throw new Error(content.message);
      await campaigns.createIssue(
        { id, subject, created: new Date().toISOString(), private: false, lists: [...lists] },
        { html: content.content.html, text: content.content.text, text_derived: true },
      );
      return id;
    },
    send: async (id) => {
      await must(sendNewsletter(deps, { id }, context));
    },
    pause: async (id) => {
      await must(pauseNewsletter(deps, id));
    },
    resume: async (id) => {
      await must(resumeNewsletter(deps, id));
    },
    cancel: async (id) => {
      await must(cancelNewsletter(deps, id));
    },
    campaign: (id) => campaigns.getCampaign(id),
    mailsPerAddress: async (subject) => {
      const counts = new Map<string, number>();
      for (const mail of await stack.ses.messages()) {
        if (mail.subject !== subject) continue;
        const address = (mail.destination.to[0] ?? '').replace(/^.*<|>$/g, '');
        counts.set(address, (counts.get(address) ?? 0) + 1);
      }
      return counts;
    },
    close: () => {
      client.destroy();
      sqs.destroy();
    },
  };
}

/** Samples the accepted sends every `everyMs` until stopped. */
export function sampler(world: CampaignWorld, everyMs = 25) {
  const samples: Sample[] = [];
  const base = world.accepted();
  const take = () => samples.push({ t: performance.now(), count: world.accepted() - base });
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    /** Sends since the sampler started, now. */
    now: () => world.accepted() - base,
    stop: () => {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** Waits until `check` holds, up to `limitMs`; whether it held. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  limitMs: number,
  everyMs = 100,
): Promise<boolean> {
  const until = performance.now() + limitMs;
  while (performance.now() < until) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return false;
}

/**
 * The AWS calls made since `from`, per caller kind, service and operation, and for a DynamoDB
 * call the kind of item or the index it names (`UpdateItem CHUNKS`, `Query recent`): the
 * items differ in size, so in units.
 */
export function callCounts(calls: readonly RecordedCall[], from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls.slice(from)) {
    const target =
      call.service === 'dynamodb' ? /^\w+ ([\w-]+)/.exec(call.summary)?.[1] : undefined;
    const key = `${callerKind(call.caller)} ${call.service}:${call.operation}${target ? `:${target}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** planner, sender, sweeper, "poller" (an event source mapping) or the function's name. */
export function callerKind(caller: string): string {
  const poller = caller.endsWith('(event source mapping)') ? ' poller' : '';
  const match = /Campaign(Planner|Sender|Sweeper)/i.exec(caller);
  return `${match ? (match[1] ?? '').toLowerCase() : caller.replace(/^Newsletter-/, '').slice(0, 40)}${poller}`;
}
