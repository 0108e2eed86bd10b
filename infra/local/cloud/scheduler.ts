/**
 * EventBridge Scheduler for the local cloud, sized to what the service calls: CreateSchedule,
 * GetSchedule and DeleteSchedule of one-time `at()` schedules (UTC, no flexible window) in the
 * stack's schedule groups, invoking a function of the stack. No npm package emulates the
 * Scheduler and fires its schedules (LocalStack's only stores them), hence this stand-in.
 *
 * Who creates a schedule is the operator (the CLI), unchecked here as DynamoDB Local leaves the
 * operator unchecked, or a function of the stack (v2's schedule route), whose calls come through
 * the AWS endpoint like every other call of a function: there its role must allow
 * scheduler:CreateSchedule or DeleteSchedule on the schedule and iam:PassRole of the schedule's
 * role. What is checked here is the firing, as AWS checks it: the schedule's role must
 * be a role of the stack that trusts scheduler.amazonaws.com, and its policy must allow
 * lambda:InvokeFunction on the target, evaluated by the same IAM evaluator as every other call.
 * A refused firing is reported as a denial and invokes nothing. The invocation is Lambda's
 * asynchronous one, as the Scheduler's is (a function that fails is Lambda's to retry, then its
 * on-failure destination's). A delivery the Scheduler cannot make is tried again as the
 * schedule's `RetryPolicy` allows (`MaximumRetryAttempts`, 185 when not given; locally without
 * waiting, as nothing changes in between), then, when the schedule has a `DeadLetterConfig`,
 * the Scheduler sends its input to that queue with the schedule's role, as AWS does: the role
 * must be allowed sqs:SendMessage on it, or that refusal is reported as a denial too. Once
 * fired, a schedule with `ActionAfterCompletion: DELETE` is deleted; one with `NONE` stays,
 * completed.
 *
 * Time is the cloud's clock: under `npm start` due schedules fire within a second; tests move
 * their clock and call `fireDue`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../read-body.ts';
import { type AsyncInvocation, invokeAsynchronously } from './async-invocation.ts';
import type { Authorization, Denial, RecordedCall } from './aws-endpoint.ts';
import type { DeployedFunction, DeployedRole } from './deployed-stack.ts';
import { evaluate } from './iam-evaluator.ts';
import { InFlightWork } from './in-flight-work.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics.ts';
import type { InvocationResult } from './lambda-host.ts';

/** A schedule as the stand-in holds it. */
export interface LocalSchedule {
  readonly name: string;
  readonly group: string;
  readonly arn: string;
  readonly at: Date;
  readonly expression: string;
  readonly targetArn: string;
  readonly roleArn: string;
  readonly input: string;
  readonly deleteAfterCompletion: boolean;
  readonly state: 'ENABLED' | 'COMPLETED';
  /** Deliveries tried again after the first (its RetryPolicy's MaximumRetryAttempts). */
  readonly retries?: number;
  /** The queue a delivery given up on goes to (its DeadLetterConfig), if any. */
  readonly deadLetterArn?: string;
}

/** What one firing did. */
export interface ScheduleFiring {
  readonly schedule: string;
  /** The role may not invoke the target (or is not one the Scheduler may assume). */
  readonly denied: boolean;
  readonly attempts: number;
  readonly result?: InvocationResult;
  /**
   * Whether a refused firing reached the schedule's dead-letter queue; absent when nothing was
   * refused or the schedule has none.
   */
  readonly deadLettered?: boolean;
}

/** What the Scheduler sends to a schedule's dead-letter queue: the input, errors as attributes. */
export interface DeadLetterEvent {
  readonly queueArn: string;
  /** The role the Scheduler sends with (the schedule's, already found allowed). */
  readonly roleArn: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** How to run the Scheduler. */
export interface LocalSchedulerOptions extends AsyncInvocation {
  /** Names of the stack's schedule groups (`default` is not one: the stack makes its own). */
  readonly groups: readonly string[];
  readonly functions: readonly DeployedFunction[];
  readonly roleOf: (roleArn: string) => DeployedRole | undefined;
  /** Fire due schedules by themselves (npm start), or only when `fireDue` is called. */
  readonly runSchedules: boolean;
  readonly now?: () => Date;
  readonly onDenied?: (denial: Denial) => void;
  readonly onError?: (error: unknown) => void;
  /** Puts a dead-letter event on its queue (the SQS stand-in); absent, nothing is sent. */
  readonly sendToDeadLetters?: (event: DeadLetterEvent) => Promise<void>;
  /**
   * Where schedules are kept across restarts (npm start's DATA_DIR), as the Scheduler keeps
   * them through an outage: one whose time passed while the service was down fires at start,
   * late, and the starter decides what a late firing does.
   */
  readonly file?: string;
}

/** The running Scheduler. */
export interface LocalScheduler {
  /** Where the Scheduler API listens (the CLI's endpoint). */
  readonly url: string;
  /** The schedules there are now. */
  schedules(): LocalSchedule[];
  /** The invocations the Scheduler made with a role, as the endpoint records a call. */
  readonly calls: readonly RecordedCall[];
  /** Fires every enabled schedule whose time has come, and resolves once they are over. */
  fireDue(): Promise<ScheduleFiring[]>;
  /** Resolves once every firing so far is over; true when there was any to wait for. */
  settled(): Promise<boolean>;
  stop(): Promise<void>;
}

/** `at(2026-12-01T09:00:00)`: the one form of expression the service creates. */
const AT = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;
/** The Scheduler takes a standard queue of SQS as a dead-letter queue, by ARN. */
const QUEUE_ARN = /^arn:aws(-[a-z]+)?:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9_-]+$/;
/** MaximumRetryAttempts when a schedule's RetryPolicy gives none (AWS's default). */
const DEFAULT_RETRIES = 185;
const NAME = /^[0-9a-zA-Z-_.]{1,64}$/;

class SchedulerError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Starts the Scheduler on a free loopback port. */
export async function startLocalScheduler(options: LocalSchedulerOptions): Promise<LocalScheduler> {
  const now = options.now ?? (() => new Date());
  const schedules = new Map<string, LocalSchedule>();
  const calls: RecordedCall[] = [];
  const inFlight = new InFlightWork(options.onError);
  const firing = new Set<string>();
  let stopped = false;
  const key = (group: string, name: string) => `${group}/${name}`;
  const functionByArn = new Map(options.functions.map((fn) => [fn.functionArn, fn]));
  if (options.file) {
    let kept: (Omit<LocalSchedule, 'at'> & { at: string })[] = [];
    try {
      kept = JSON.parse(readFileSync(options.file, 'utf8')) as typeof kept;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const schedule of kept)
      schedules.set(key(schedule.group, schedule.name), { ...schedule, at: new Date(schedule.at) });
  }
  const save = (): void => {
    if (options.file) writeFileSync(options.file, JSON.stringify([...schedules.values()], null, 2));
  };

  const create = (name: string, body: Record<string, unknown>): LocalSchedule => {
    const group = typeof body.GroupName === 'string' ? body.GroupName : 'default';
    if (!NAME.test(name)) throw new SchedulerError('ValidationException', 400, 'invalid Name');
    if (!options.groups.includes(group))
      throw new SchedulerError(
        'ResourceNotFoundException',
        404,
        `Schedule group ${group} does not exist.`,
      );
    if (schedules.has(key(group, name)))
      throw new SchedulerError('ConflictException', 409, `Schedule ${name} already exists.`);
    const expression = String(body.ScheduleExpression ?? '');
    const at = AT.exec(expression)?.[1];
    const zone = body.ScheduleExpressionTimezone ?? 'UTC';
    if (!at || zone !== 'UTC')
      throw new SchedulerError(
        'ValidationException',
        400,
        'The local Scheduler takes one-time at() schedules in UTC only',
      );
    const window = body.FlexibleTimeWindow as { Mode?: string } | undefined;
    if (window?.Mode !== 'OFF')
      throw new SchedulerError('ValidationException', 400, 'FlexibleTimeWindow Mode OFF only');
    const target = (body.Target ?? {}) as Record<string, unknown>;
    const targetArn = String(target.Arn ?? '');
    if (!functionByArn.has(targetArn))
      throw new SchedulerError(
        'ValidationException',
        400,
        `Target ${targetArn} is not a function of the stack`,
      );
    const retryPolicy = (target.RetryPolicy ?? {}) as { MaximumRetryAttempts?: unknown };
    const retries = retryPolicy.MaximumRetryAttempts ?? DEFAULT_RETRIES;
    if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > 185)
      throw new SchedulerError('ValidationException', 400, 'invalid MaximumRetryAttempts');
    const deadLetter = target.DeadLetterConfig as { Arn?: unknown } | undefined;
    const deadLetterArn = deadLetter === undefined ? undefined : String(deadLetter.Arn ?? '');
    if (deadLetterArn !== undefined && !QUEUE_ARN.test(deadLetterArn))
      throw new SchedulerError('ValidationException', 400, 'invalid DeadLetterConfig Arn');
    const schedule: LocalSchedule = {
      name,
      group,
      arn: `arn:aws:scheduler:${LOCAL_REGION}:${LOCAL_ACCOUNT}:schedule/${group}/${name}`,
      at: new Date(`${at}Z`),
      expression,
      targetArn,
      roleArn: String(target.RoleArn ?? ''),
      input: typeof target.Input === 'string' ? target.Input : '{}',
      deleteAfterCompletion: body.ActionAfterCompletion === 'DELETE',
      state: 'ENABLED',
      retries,
      ...(deadLetterArn !== undefined ? { deadLetterArn } : {}),
    };
    schedules.set(key(group, name), schedule);
    save();
    return schedule;
  };

  const found = (group: string, name: string): LocalSchedule => {
    const schedule = schedules.get(key(group, name));
    if (!schedule)
      throw new SchedulerError(
        'ResourceNotFoundException',
        404,
        `Schedule ${name} does not exist.`,
      );
    return schedule;
  };

  /**
   * What IAM decides when the Scheduler assumes the schedule's role and calls `operation`
   * (invoking the target, or sending to the dead letters): recorded as a call, and a refusal
   * reported as a denial when `report` (once per firing, not per retry) and returned.
   */
  const authorize = async (
    schedule: LocalSchedule,
    call: {
      readonly service: string;
      readonly operation: string;
      readonly action: string;
      readonly resource: string;
      readonly summary: string;
      readonly attempt: number;
    },
    report: boolean,
  ): Promise<{
    readonly allowed: boolean;
    readonly trusted: boolean;
    readonly message: string;
  }> => {
    const role = options.roleOf(schedule.roleArn);
    const request = { action: call.action, resource: call.resource };
    const trusted = role?.trustedServices.includes('scheduler.amazonaws.com') === true;
    const verdict =
      role && trusted ? await evaluate(role.roleArn, role.policy, request) : undefined;
    const allowed = verdict?.allowed === true;
    const authorization: Authorization = {
      ...request,
      allowed,
      statements: verdict?.statements ?? [],
    };
    calls.push({
      caller: `scheduler (${schedule.roleArn})`,
      service: call.service,
      operation: call.operation,
      summary: call.summary,
      attempt: call.attempt,
      authorizations: [authorization],
      allowed,
    });
    const message = trusted
      ? `${schedule.roleArn} is not authorized to perform: ${call.action} on resource: ${call.resource} because no identity-based policy allows the ${call.action} action`
      : `scheduler.amazonaws.com is not authorized to perform: sts:AssumeRole on resource: ${schedule.roleArn}`;
    // A role the Scheduler cannot assume is not tried again: its refusal is reported at once.
    if (!allowed && (report || !trusted))
      options.onDenied?.({
        caller: `scheduler.amazonaws.com (${schedule.roleArn})`,
        action: call.action,
        resource: call.resource,
        message,
      });
    return { allowed, trusted, message };
  };

  /** Invoking the target, tried as the RetryPolicy allows; the last refusal is reported. */
  const deliver = async (schedule: LocalSchedule) => {
    const retries = schedule.retries ?? DEFAULT_RETRIES;
    for (let attempt = 1; ; attempt += 1) {
      const verdict = await authorize(
        schedule,
        {
          service: 'lambda',
          operation: 'Invoke',
          action: 'lambda:InvokeFunction',
          resource: schedule.targetArn,
          summary: `Invoke ${functionByArn.get(schedule.targetArn)?.functionName ?? schedule.targetArn}`,
          attempt,
        },
        attempt > retries,
      );
      // A role the Scheduler cannot assume is not retried: nothing can be sent with it.
      if (verdict.allowed || !verdict.trusted || attempt > retries)
        return { ...verdict, attempts: attempt };
    }
  };

  /**
   * A delivery given up on goes to the schedule's dead-letter queue with the schedule's role:
   * the input as the body, what failed as message attributes. True once the queue has it.
   */
  const deadLetter = async (
    schedule: LocalSchedule,
    failure: { readonly code: string; readonly message: string; readonly attempts: number },
  ): Promise<boolean> => {
    const queueArn = schedule.deadLetterArn;
    if (!queueArn) return false;
    const verdict = await authorize(
      schedule,
      {
        service: 'sqs',
        operation: 'SendMessage',
        action: 'sqs:SendMessage',
        resource: queueArn,
        summary: `SendMessage ${queueArn.split(':').at(-1) ?? queueArn}`,
        attempt: 1,
      },
      true,
    );
    if (!verdict.allowed || !options.sendToDeadLetters) return false;
    try {
      await options.sendToDeadLetters({
        queueArn,
        roleArn: schedule.roleArn,
        body: schedule.input,
        attributes: {
          ERROR_CODE: failure.code,
          ERROR_MESSAGE: failure.message,
          EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttempts',
          RETRY_ATTEMPTS: String(failure.attempts - 1),
          SCHEDULE_ARN: schedule.arn,
          TARGET_ARN: schedule.targetArn,
        },
      });
      return true;
    } catch (error) {
      options.onError?.(error);
      return false;
    }
  };

  const fire = async (schedule: LocalSchedule): Promise<ScheduleFiring> => {
    const id = key(schedule.group, schedule.name);
    firing.add(id);
    try {
      const fn = functionByArn.get(schedule.targetArn);
      let outcome: ScheduleFiring = { schedule: schedule.name, denied: true, attempts: 0 };
      const delivery = fn ? await deliver(schedule) : undefined;
      if (delivery && !delivery.allowed && delivery.trusted && schedule.deadLetterArn)
        outcome = {
          ...outcome,
          deadLettered: await deadLetter(schedule, {
            code: 'AccessDeniedException',
            message: delivery.message,
            attempts: delivery.attempts,
          }),
        };
      if (fn && delivery?.allowed) {
        const invoked = await invokeAsynchronously(
          options,
          fn.logicalId,
          JSON.parse(schedule.input) as unknown,
          schedule.arn,
          () => stopped,
        );
        outcome = {
          schedule: schedule.name,
          denied: false,
          attempts: invoked?.attempts ?? 0,
          ...(invoked ? { result: invoked.result } : {}),
        };
      }
      // One-time: done once fired, whatever the target made of it.
      if (schedule.deleteAfterCompletion) schedules.delete(id);
      else schedules.set(id, { ...schedule, state: 'COMPLETED' });
      save();
      return outcome;
    } finally {
      firing.delete(id);
    }
  };

  const track = <T>(work: Promise<T>): Promise<T> => inFlight.track(work);

  const fireDue = (): Promise<ScheduleFiring[]> => {
    const time = now().getTime();
    const due = [...schedules.values()].filter(
      (schedule) =>
        schedule.state === 'ENABLED' &&
        schedule.at.getTime() <= time &&
        !firing.has(key(schedule.group, schedule.name)),
    );
    return track(Promise.all(due.map(fire)));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://scheduler');
    const name = decodeURIComponent(/^\/schedules\/([^/]+)$/.exec(url.pathname)?.[1] ?? '');
    const group = url.searchParams.get('groupName') ?? 'default';
    const body = (await readBody(request, 256 * 1024)) ?? '';
    const reply = (status: number, content: unknown, type?: string): void => {
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(type ? { 'x-amzn-errortype': type } : {}),
      });
      response.end(JSON.stringify(content));
    };
    try {
      if (!name) throw new SchedulerError('ValidationException', 400, 'unsupported operation');
      if (request.method === 'POST') {
        const schedule = create(
          name,
          JSON.parse(body.toString() || '{}') as Record<string, unknown>,
        );
        reply(200, { ScheduleArn: schedule.arn });
      } else if (request.method === 'GET') {
        const s = found(group, name);
        reply(200, {
          Arn: s.arn,
          Name: s.name,
          GroupName: s.group,
          ScheduleExpression: s.expression,
          ScheduleExpressionTimezone: 'UTC',
          State: 'ENABLED',
          ActionAfterCompletion: s.deleteAfterCompletion ? 'DELETE' : 'NONE',
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: {
            Arn: s.targetArn,
            RoleArn: s.roleArn,
            Input: s.input,
            RetryPolicy: { MaximumRetryAttempts: s.retries ?? DEFAULT_RETRIES },
            ...(s.deadLetterArn ? { DeadLetterConfig: { Arn: s.deadLetterArn } } : {}),
          },
        });
      } else if (request.method === 'DELETE') {
        const schedule = found(group, name);
        schedules.delete(key(schedule.group, schedule.name));
        save();
        reply(200, {});
      } else {
        throw new SchedulerError('ValidationException', 400, 'unsupported operation');
      }
    } catch (error) {
      if (error instanceof SchedulerError)
        reply(error.status, { Message: error.message }, error.type);
      else reply(400, { Message: String(error) }, 'ValidationException');
    }
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.onError?.(error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  const timer = options.runSchedules
    ? setInterval(() => void fireDue().catch(() => undefined), 1_000)
    : undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    schedules: () => [...schedules.values()],
    calls,
    fireDue,
    settled: () => inFlight.settled(),
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}
