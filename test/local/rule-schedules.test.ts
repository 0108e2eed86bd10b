/**
 * The local EventBridge of the template's scheduled rules: schedule expressions read as
 * EventBridge reads them, the scheduled event as it sends it, the Lambda permission it needs,
 * a target's constant input, Lambda's asynchronous retries, and firing on the schedule.
 */
import type { EventBridgeEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Denial } from '../../infra/local/cloud/aws-endpoint.ts';
import type { DeployedScheduleRule } from '../../infra/local/cloud/deployed-stack.ts';
import { TemplateError } from '../../infra/local/cloud/intrinsics.ts';
import type { InvocationResult } from '../../infra/local/cloud/lambda-host.ts';
import { parseSchedule, startRuleSchedules } from '../../infra/local/cloud/rule-schedules.ts';

const RULE_ARN = 'arn:aws:events:us-east-1:123456789012:rule/Newsletter-Tick';
const RULE: DeployedScheduleRule = {
  logicalId: 'Tick',
  name: 'Newsletter-Tick',
  arn: RULE_ARN,
  scheduleExpression: 'rate(5 minutes)',
  enabled: true,
  targets: [{ id: 'Target0', functionLogicalId: 'Ticker' }],
};

function rulesWith(
  options: {
    rule?: DeployedScheduleRule;
    permitted?: boolean;
    results?: InvocationResult[];
    runSchedules?: boolean;
  } = {},
) {
  const invocations: unknown[] = [];
  const denials: Denial[] = [];
  const results = [...(options.results ?? [])];
  const rules = startRuleSchedules({
    rules: [options.rule ?? RULE],
    permissions:
      options.permitted === false ? [] : [{ functionLogicalId: 'Ticker', sourceArn: RULE_ARN }],
    invoke: async (_fn, event) => {
      invocations.push(event);
      return results.shift() ?? { ok: true, result: null };
    },
    retryWaitsMs: [1, 1],
    runSchedules: options.runSchedules ?? false,
    onDenied: (denial) => denials.push(denial),
  });
  return { rules, invocations, denials };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('schedule expressions', () => {
  const since = new Date('2026-01-01T00:00:00Z');

  it('counts a rate from when the rule was created', () => {
    const every5 = parseSchedule('rate(5 minutes)', since);
    expect(every5(since)?.toISOString()).toBe('2026-01-01T00:05:00.000Z');
    expect(every5(new Date('2026-01-01T00:05:00Z'))?.toISOString()).toBe(
      '2026-01-01T00:10:00.000Z',
    );
    expect(parseSchedule('rate(1 day)', since)(since)?.toISOString()).toBe(
      '2026-01-02T00:00:00.000Z',
    );
  });

  it('reads cron in UTC, with its six fields', () => {
    const noonWeekdays = parseSchedule('cron(0 12 ? * MON-FRI *)', since);
    // 2026-01-01 is a Thursday.
    expect(noonWeekdays(since)?.toISOString()).toBe('2026-01-01T12:00:00.000Z');
    expect(noonWeekdays(new Date('2026-01-02T12:00:00Z'))?.toISOString()).toBe(
      '2026-01-05T12:00:00.000Z',
    );
  });

  it('refuses what EventBridge refuses', () => {
    for (const expression of [
      'rate(1 minutes)',
      'rate(5 minute)',
      'rate(0 minutes)',
      'rate(5 seconds)',
      'cron(0 12 * * * *)',
      'cron(0 12 * *)',
      'every 5 minutes',
    ]) {
      expect(() => parseSchedule(expression, since), expression).toThrow(TemplateError);
    }
  });
});

describe('the local EventBridge', () => {
  it('invokes the target with the scheduled event EventBridge sends', async () => {
    const { rules, invocations } = rulesWith();
    const outcomes = await rules.fire('Tick');
    expect(outcomes).toEqual([
      {
        targetId: 'Target0',
        functionLogicalId: 'Ticker',
        denied: false,
        attempts: 1,
        result: { ok: true, result: null },
      },
    ]);
    const event = invocations[0] as EventBridgeEvent<'Scheduled Event', Record<string, never>>;
    expect(event).toMatchObject({
      version: '0',
      id: expect.any(String),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      region: 'us-east-1',
      resources: [RULE_ARN],
      detail: {},
    });
    expect(event.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('gives a target its constant input instead of the event', async () => {
    const { rules, invocations } = rulesWith({
      rule: { ...RULE, targets: [{ id: 'T', functionLogicalId: 'Ticker', input: { job: 'due' } }] },
    });
    await rules.fire('Tick');
    expect(invocations).toEqual([{ job: 'due' }]);
  });

  it('does not invoke a function no Lambda permission lets the rule invoke, and says so', async () => {
    const { rules, invocations, denials } = rulesWith({ permitted: false });
    const [outcome] = await rules.fire('Tick');
    expect(outcome).toMatchObject({ denied: true, attempts: 0 });
    expect(invocations).toEqual([]);
    expect(denials.map((denial) => [denial.caller, denial.action])).toEqual([
      ['events.amazonaws.com', 'lambda:InvokeFunction'],
    ]);
  });

  it('retries a failing target as Lambda retries an asynchronous invocation', async () => {
    const failure: InvocationResult = {
      ok: false,
      error: { errorType: 'Error', errorMessage: 'busy', trace: [] },
    };
    const { rules, invocations } = rulesWith({ results: [failure] });
    const [outcome] = await rules.fire('Tick');
    expect(outcome).toMatchObject({ attempts: 2, result: { ok: true } });
    expect(invocations).toHaveLength(2);
  });

  it('fires on its schedule when asked to run the schedules, and not when disabled', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const { rules, invocations } = rulesWith({ runSchedules: true });
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(invocations).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(11 * 60_000);
    expect(invocations).toHaveLength(3);
    expect((invocations[2] as { time: string }).time).toBe('2026-01-01T00:15:00Z');
    rules.stop();
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(invocations).toHaveLength(3);

    const disabled = rulesWith({ rule: { ...RULE, enabled: false }, runSchedules: true });
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(disabled.invocations).toEqual([]);
    await expect(disabled.rules.fire('Tick')).rejects.toThrow(/disabled/);
    disabled.rules.stop();
  });
});
