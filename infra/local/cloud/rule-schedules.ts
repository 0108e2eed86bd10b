/**
 * EventBridge's side of the template's scheduled rules: at each time the rule's schedule
 * expression names (`rate(...)`, or `cron(...)` in UTC), every target function gets the event
 * EventBridge sends (`Scheduled Event` from `aws.events`, the rule's ARN in `resources`), or
 * the target's constant `Input` instead, only when a Lambda permission lets
 * `events.amazonaws.com` invoke it for that rule; otherwise the firing is refused and
 * reported as AWS's would be. The invocation is asynchronous, as EventBridge invokes Lambda:
 * retried on a function error as the function's asynchronous invocation config says.
 *
 * Under `npm start` the rules fire on their schedule; tests fire a rule when they choose.
 */
import { randomUUID } from 'node:crypto';
import awsCronParser from 'aws-cron-parser';
import { type AsyncInvocation, invokeAsynchronously } from './async-invocation.ts';
import type { Denial } from './aws-endpoint.ts';
import type { DeployedScheduleRule, InvokePermission } from './deployed-stack.ts';
import { InFlightWork } from './in-flight-work.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION, TemplateError } from './intrinsics.ts';
import type { InvocationResult } from './lambda-host.ts';

/** How to run the rules; the invocations are Lambda's asynchronous ones. */
export interface RuleSchedulesOptions extends AsyncInvocation {
  readonly rules: readonly DeployedScheduleRule[];
  /** Lambda permissions for `events.amazonaws.com`. */
  readonly permissions: readonly InvokePermission[];
  /** Fire every enabled rule on its schedule (npm start), or only when `fire` is called. */
  readonly runSchedules: boolean;
  /** A firing refused as AWS would refuse it. */
  readonly onDenied?: (denial: Denial) => void;
  /** A failure of the local EventBridge itself (a bug here, not the function's). */
  readonly onError?: (error: unknown) => void;
  /** The clock (tests). */
  readonly now?: () => Date;
}

/** What one firing did for one target. */
export interface RuleTargetOutcome {
  readonly targetId: string;
  readonly functionLogicalId: string;
  /** No Lambda permission lets this rule invoke the function: nothing was invoked. */
  readonly denied: boolean;
  /** Attempts made (Lambda retries a failed asynchronous invocation). */
  readonly attempts: number;
  /** The last attempt's result; absent when denied. */
  readonly result?: InvocationResult;
}

/** The running rules. */
export interface RuleSchedules {
  /**
   * Fires a rule now, as its schedule would, and resolves once every target's invocation
   * (with its retries) is over.
   */
  fire(logicalId: string): Promise<RuleTargetOutcome[]>;
  /** Resolves once every firing so far is over; true when there was any to wait for. */
  settled(): Promise<boolean>;
  stop(): void;
}

/** A schedule: the next time it fires strictly after `after`. */
export type Schedule = (after: Date) => Date | undefined;

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/**
 * A schedule expression as EventBridge reads it, or a TemplateError for one it refuses:
 * `rate(1 minute)` / `rate(5 minutes)` (singular for 1, plural otherwise), counted from
 * `since` (when the rule was created); `cron(minutes hours day-of-month month day-of-week
 * year)` in UTC, with `?` in exactly one of the two day fields.
 */
export function parseSchedule(expression: string, since: Date): Schedule {
  const rate = RATE.exec(expression);
  if (rate) {
    const value = Number(rate[1]);
    const unit = rate[2] ?? '';
    const singular = !unit.endsWith('s');
    if (value < 1 || singular !== (value === 1)) {
      throw new TemplateError(`invalid schedule expression ${expression}`);
    }
    const period = value * (UNIT_MS[unit.replace(/s$/, '')] ?? 0);
    return (after) => {
      const periods = Math.floor((after.getTime() - since.getTime()) / period) + 1;
      return new Date(since.getTime() + Math.max(1, periods) * period);
    };
  }
  const cron = /^cron\((.*)\)$/.exec(expression)?.[1]?.trim();
  const fields = cron?.split(/\s+/) ?? [];
  if (!cron || fields.length !== 6 || (fields[2] === '?') === (fields[4] === '?')) {
    throw new TemplateError(`invalid schedule expression ${expression}`);
  }
  let parsed: ReturnType<typeof awsCronParser.parse>;
  try {
    parsed = awsCronParser.parse(cron);
  } catch {
    throw new TemplateError(`invalid schedule expression ${expression}`);
  }
  return (after) => {
    // The parser answers the first time at or after a moment, to the second.
    const next = awsCronParser.next(parsed, new Date(after.getTime() + 1000));
    return next ?? undefined;
  };
}

/** The event EventBridge sends a target for a scheduled rule. */
export function scheduledEvent(rule: DeployedScheduleRule, at: Date): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT,
    time: `${at.toISOString().slice(0, 19)}Z`,
    region: LOCAL_REGION,
    resources: [rule.arn],
    detail: {},
  };
}

/** The longest a Node timer waits (about 24.8 days); a later firing is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Starts EventBridge for the stack's scheduled rules. */
export function startRuleSchedules(options: RuleSchedulesOptions): RuleSchedules {
  const now = options.now ?? (() => new Date());
  const started = now();
  const inFlight = new InFlightWork(options.onError);
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  // Every schedule is read at start, as EventBridge refuses a bad one when the rule is created.
  const schedules = new Map(
    options.rules.map((rule) => [rule.logicalId, parseSchedule(rule.scheduleExpression, started)]),
  );

  const permitted = (functionLogicalId: string, ruleArn: string): boolean =>
    options.permissions.some(
      (permission) =>
        permission.functionLogicalId === functionLogicalId && permission.sourceArn === ruleArn,
    );

  const fireRule = async (rule: DeployedScheduleRule, at: Date): Promise<RuleTargetOutcome[]> =>
    Promise.all(
      rule.targets.map(async (target): Promise<RuleTargetOutcome> => {
        const base = { targetId: target.id, functionLogicalId: target.functionLogicalId };
        if (!permitted(target.functionLogicalId, rule.arn)) {
          const resource = target.functionLogicalId;
          options.onDenied?.({
            caller: 'events.amazonaws.com',
            action: 'lambda:InvokeFunction',
            resource,
            message: `events.amazonaws.com is not authorized to perform: lambda:InvokeFunction on resource: ${resource} for ${rule.arn} because no Lambda permission allows it`,
          });
          return { ...base, denied: true, attempts: 0 };
        }
        const event = target.input === undefined ? scheduledEvent(rule, at) : target.input;
        const outcome = await invokeAsynchronously(
          options,
          target.functionLogicalId,
          event,
          rule.arn,
          () => stopped,
        );
        return {
          ...base,
          denied: false,
          attempts: outcome?.attempts ?? 0,
          ...(outcome ? { result: outcome.result } : {}),
        };
      }),
    );

  const track = <T>(work: Promise<T>): Promise<T> => inFlight.track(work);

  const arm = (rule: DeployedScheduleRule, after: Date): void => {
    const at = schedules.get(rule.logicalId)?.(after);
    if (!at || stopped) return;
    const wait = at.getTime() - now().getTime();
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (stopped) return;
        if (wait > MAX_TIMER_MS) {
          arm(rule, after);
          return;
        }
        void track(fireRule(rule, at)).catch(() => undefined);
        arm(rule, at);
      },
      Math.max(0, Math.min(wait, MAX_TIMER_MS)),
    );
    timers.add(timer);
  };

  if (options.runSchedules) {
    for (const rule of options.rules) if (rule.enabled) arm(rule, started);
  }

  return {
    fire: (logicalId) => {
      const rule = options.rules.find((candidate) => candidate.logicalId === logicalId);
      if (!rule) return Promise.reject(new Error(`no scheduled rule ${logicalId} in the stack`));
      if (!rule.enabled) return Promise.reject(new Error(`rule ${logicalId} is disabled`));
      return track(fireRule(rule, now()));
    },
    settled: () => inFlight.settled(),
    stop: () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
