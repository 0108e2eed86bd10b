/**
 * Lambda's asynchronous invocation, as SNS and EventBridge invoke a function: an attempt, and
 * on a function error the retries the function's EventInvokeConfig allows (two by default),
 * then the event goes to its on-failure destination, or is dropped when it has none.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { InvocationResult } from './lambda-host.ts';

/** An event whose function failed on every attempt. */
export interface FailedDelivery {
  /** What sent it: the topic's or the rule's ARN. */
  readonly sourceArn: string;
  readonly functionLogicalId: string;
  readonly attempts: number;
  readonly error: string;
}

/** How one asynchronous invocation went. */
export interface AsyncInvocationOutcome {
  readonly attempts: number;
  /** The last attempt's result. */
  readonly result: InvocationResult;
}

/** Lambda's part in an asynchronous invocation. */
export interface AsyncInvocation {
  readonly invoke: (functionLogicalId: string, event: unknown) => Promise<InvocationResult>;
  /**
   * Waits before the retries. Lambda waits about a minute, then two; locally a second and
   * two by default, so a run does not stall. A third retry waits as long as the last.
   */
  readonly retryWaitsMs?: readonly number[];
  /** Retries after the first attempt (EventInvokeConfig's MaximumRetryAttempts; default 2). */
  readonly maximumRetryAttemptsOf?: (functionLogicalId: string) => number;
  /** An event that failed every attempt (sent to its on-failure queue, if any). */
  readonly onGaveUp?: (failure: FailedDelivery) => void;
  /**
   * Sends what Lambda sends to a function's on-failure destination when it gives up on an
   * event; absent, or resolving false, when the function has none (the event is dropped).
   */
  readonly sendToOnFailure?: (
    functionLogicalId: string,
    event: unknown,
    failure: FailedDelivery,
  ) => Promise<boolean>;
}

/** Invokes `functionLogicalId` with `event` as Lambda runs an asynchronous invocation. */
export async function invokeAsynchronously(
  lambda: AsyncInvocation,
  functionLogicalId: string,
  event: unknown,
  sourceArn: string,
  isStopped: () => boolean,
): Promise<AsyncInvocationOutcome | undefined> {
  const waits = lambda.retryWaitsMs ?? [1_000, 2_000];
  const retries = lambda.maximumRetryAttemptsOf?.(functionLogicalId) ?? 2;
  let result: InvocationResult | undefined;
  let attempts = 0;
  for (let attempt = 0; attempt <= retries; attempt += 1) {
    if (attempt > 0) await sleep(waits[Math.min(attempt, waits.length) - 1] ?? 0);
    if (isStopped()) return undefined;
    attempts += 1;
    result = await lambda.invoke(functionLogicalId, event).catch(
      (thrown: unknown): InvocationResult => ({
        ok: false,
        error: { errorType: 'InvokeFailed', errorMessage: String(thrown), trace: [] },
      }),
    );
    if (result.ok) return { attempts, result };
  }
  if (!result || result.ok || isStopped()) return result && { attempts, result };
  const failure: FailedDelivery = {
    sourceArn,
    functionLogicalId,
    attempts,
    error: `${result.error.errorType}: ${result.error.errorMessage}`,
  };
  lambda.onGaveUp?.(failure);
  await lambda.sendToOnFailure?.(functionLogicalId, event, failure);
  return { attempts, result };
}
