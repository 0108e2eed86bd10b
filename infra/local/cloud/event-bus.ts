/**
 * EventBridge's buses for the local cloud, sized to what the stack calls: PutEvents (AWS JSON
 * 1.1) on the stack's own buses, and the template's rules on an event pattern delivering to
 * the stack's queues. No npm package emulates a bus with the rules of a template (checked:
 * `serverless-offline-aws-eventbridge` is a Serverless Framework plugin for its own YAML, with
 * no IAM; LocalStack is not on npm), hence this stand-in, in the style of scheduler.ts.
 *
 * The caller's right to put on a bus (`events:PutEvents` on the bus ARN) is checked by the AWS
 * endpoint before the call reaches here. Delivery is checked as AWS checks it: a queue target
 * only when the queue's policy lets `events.amazonaws.com` send for that rule (`aws:SourceArn`),
 * evaluated with the same IAM evaluator; a refusal is reported as a denial and the event is not
 * delivered (EventBridge drops it after its retries, or sends it to the target's dead-letter
 * queue, which the stack does not give). Patterns are matched with the syntax the stack's
 * rules use (exact values and `prefix`); another operator fails loudly. Entries are checked as
 * PutEvents checks them (10 at most, `Source`, `DetailType` and a JSON object `Detail` each,
 * 256 KB in all). Tests add rules of their own (`addRule`), matched the same way.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../read-body.ts';
import type { Denial } from './aws-endpoint.ts';
import type { DeployedPatternRule, DeployedQueue } from './deployed-stack.ts';
import { evaluateServicePrincipal } from './iam-evaluator.ts';
import { InFlightWork } from './in-flight-work.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';
import { matchesPattern } from './stream-mappings.ts';

/** An event as EventBridge hands it to a target. */
export interface BusEvent {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: Record<string, unknown>;
}

/** A rule a test adds: its pattern and what receives the matching events. */
export interface TestRule {
  readonly bus: string;
  readonly pattern: unknown;
  readonly deliver: (event: BusEvent) => void;
}

/** How to run the buses. */
export interface EventBusesOptions {
  /** Names of the stack's buses. */
  readonly buses: readonly string[];
  readonly rules: readonly DeployedPatternRule[];
  readonly queues: readonly DeployedQueue[];
  /** Sends a message to a queue of the stack, as EventBridge does (a service, not a role). */
  readonly sendToQueue: (queueArn: string, body: string) => Promise<void>;
  readonly onDenied?: (denial: Denial) => void;
  readonly onError?: (error: unknown) => void;
}

/** The running buses. */
export interface EventBuses {
  /** Where PutEvents is served (the AWS endpoint forwards to it). */
  readonly url: string;
  /** Every event put, in order. */
  readonly events: readonly BusEvent[];
  addRule(rule: TestRule): () => void;
  /**
   * Holds every PutEvents call until the returned release is called: the caller waits as on a
   * slow bus (tests kill a publisher mid-call with it). What was held is then put as usual.
   */
  hold(): () => void;
  /** Resolves once every delivery so far is over; true when there was any. */
  settled(): Promise<boolean>;
  stop(): Promise<void>;
}

/** PutEvents' limits. */
const MAX_ENTRIES = 10;
const MAX_BYTES = 256 * 1024;

/** Starts the buses on a free loopback port. */
export async function startEventBuses(options: EventBusesOptions): Promise<EventBuses> {
  const events: BusEvent[] = [];
  const testRules = new Set<TestRule>();
  const inFlight = new InFlightWork(options.onError);
  let gate: Promise<void> | undefined;
  const busOf = (name: string): string | undefined => {
    const bare = name.startsWith('arn:') ? (name.split('/').at(-1) ?? '') : name;
    return options.buses.includes(bare) ? bare : undefined;
  };
  // Every pattern is read at start, as EventBridge refuses a bad one when the rule is created.
  for (const rule of options.rules) matchesPattern(rule.pattern, {});

  const deliver = async (rule: DeployedPatternRule, event: BusEvent): Promise<void> => {
    for (const target of rule.targets) {
      if (!target.queueArn) {
        throw new Error(`${rule.logicalId}: the local bus delivers to queues only`);
      }
      const queue = options.queues.find((candidate) => candidate.arn === target.queueArn);
      const verdict = await evaluateServicePrincipal('events.amazonaws.com', queue?.policy, {
        action: 'sqs:SendMessage',
        resource: target.queueArn,
        context: {
          'aws:SourceArn': rule.arn,
          'aws:SourceAccount': LOCAL_ACCOUNT,
          'aws:SecureTransport': 'true',
        },
      });
      if (!verdict.allowed) {
        options.onDenied?.({
          caller: 'events.amazonaws.com',
          action: 'sqs:SendMessage',
          resource: target.queueArn,
          message: `events.amazonaws.com is not authorized to perform: sqs:SendMessage on resource: ${target.queueArn} for ${rule.arn} because no queue policy allows it`,
        });
        continue;
      }
      await options.sendToQueue(target.queueArn, JSON.stringify(event));
    }
  };

  const put = (body: Record<string, unknown>): Record<string, unknown> => {
    const entries = Array.isArray(body.Entries) ? (body.Entries as Record<string, unknown>[]) : [];
    if (entries.length === 0 || entries.length > MAX_ENTRIES)
      throw new BusError('ValidationException', `Entries must hold 1 to ${MAX_ENTRIES} entries`);
    if (Buffer.byteLength(JSON.stringify(entries)) > MAX_BYTES)
      throw new BusError('ValidationException', 'Total size of the entries exceeds 256 KB');
    const answers = entries.map((entry) => {
      const bus = busOf(typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default');
      let detail: unknown;
      try {
        detail = JSON.parse(String(entry.Detail ?? ''));
      } catch {
        detail = undefined;
      }
      if (!bus) return { ErrorCode: 'NotFoundException', ErrorMessage: 'Event bus not found.' };
      if (typeof entry.Source !== 'string' || typeof entry.DetailType !== 'string')
        return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType required.' };
      if (detail === null || typeof detail !== 'object' || Array.isArray(detail))
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
      const time = entry.Time === undefined ? new Date() : new Date(Number(entry.Time) * 1000);
      const event: BusEvent = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: LOCAL_ACCOUNT,
        time: `${(Number.isNaN(time.getTime()) ? new Date() : time).toISOString().slice(0, 19)}Z`,
        region: LOCAL_REGION,
        resources: Array.isArray(entry.Resources) ? (entry.Resources as string[]) : [],
        detail: detail as Record<string, unknown>,
      };
      events.push(event);
      for (const rule of options.rules) {
        if (rule.enabled && rule.busName === bus && matchesPattern(rule.pattern, event))
          void inFlight.track(deliver(rule, event)).catch(() => undefined);
      }
      for (const rule of testRules) {
        if (rule.bus === bus && matchesPattern(rule.pattern, event)) rule.deliver(event);
      }
      return { EventId: event.id };
    });
    return {
      FailedEntryCount: answers.filter((answer) => 'ErrorCode' in answer).length,
      Entries: answers,
    };
  };

  const server: Server = createServer((incoming, response) => {
    void (async () => {
      const target = String(incoming.headers['x-amz-target'] ?? '');
      const raw = await readBody(incoming, 1024 * 1024);
      await gate;
      const answer = (status: number, body: unknown) =>
        response
          .writeHead(status, { 'content-type': 'application/x-amz-json-1.1' })
          .end(JSON.stringify(body));
      try {
        if (target !== 'AWSEvents.PutEvents')
          throw new BusError('UnknownOperationException', `The local bus serves PutEvents only`);
        answer(200, put(JSON.parse(raw?.toString('utf8') || '{}') as Record<string, unknown>));
      } catch (error) {
        if (!(error instanceof BusError)) throw error;
        answer(400, { __type: error.type, message: error.message });
      }
    })().catch((error: unknown) => {
      options.onError?.(error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    addRule: (rule) => {
      testRules.add(rule);
      return () => testRules.delete(rule);
    },
    hold: () => {
      let release = (): void => undefined;
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
    settled: () => inFlight.settled(),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

class BusError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}
