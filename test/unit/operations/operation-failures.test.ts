/**
 * What a caller gets, and what the log keeps, when an operation fails by a throw
 * (shared/operations/run-operation.ts): errors come back as values, the cause goes to the log.
 */
import { describe, expect, it } from 'vitest';
import {
  DependencyError,
  isNewsletterError,
  newsletterError,
} from '../../../shared/domain/errors.ts';
import { MissingDependency } from '../../../shared/operations/dependencies.ts';
import { runOperation } from '../../../shared/operations/run-operation.ts';
import { RecordingLogger } from '../../support/fixtures.ts';

/** Runs an operation named `unsubscribe` whose body throws `thrown`. */
async function failing(thrown: unknown) {
  const log = new RecordingLogger();
  const answer = await runOperation({ log }, 'unsubscribe', async () => {
    throw thrown;
  });
  return { answer, lines: log.lines };
}

describe('an operation that throws answers with an error value, never a throw', () => {
  it('[http.error-shape] a dependency that failed is the 503, and the log names the operation, the dependency and the cause', async () => {
    const { answer, lines } = await failing(
      new DependencyError('dynamodb', { cause: new Error('ProvisionedThroughputExceeded') }),
    );
    expect(answer).toEqual({
      code: 'unavailable',
      message: 'The service is temporarily unavailable; please try again shortly.',
      status: 503,
    });
    expect(lines).toEqual([
      {
        level: 'error',
        event: 'dependency_unavailable',
        fields: {
          operation: 'unsubscribe',
          dependency: 'dynamodb',
          cause: 'DependencyError: dynamodb unavailable <- Error: ProvisionedThroughputExceeded',
        },
      },
    ]);
  });

  it('[http.error-shape] a bug is the generic 500 that says nothing of it; [ops.log-lines] the cause is in the log only', async () => {
    const { answer, lines } = await failing(new TypeError('a bug with a secret in it'));
    expect(answer).toEqual({
      code: 'internal_error',
      message: 'Something went wrong on our side. Please try again later.',
      status: 500,
    });
    expect(lines).toEqual([
      {
        level: 'error',
        event: 'operation_failed',
        fields: { operation: 'unsubscribe', cause: 'TypeError: a bug with a secret in it' },
      },
    ]);
  });

  it('[http.error-shape] a dependency the composition root did not wire is a 500 naming it; [ops.log-lines] logged as a failure', async () => {
    const { answer, lines } = await failing(new MissingDependency('the campaign scheduler'));
    expect(answer).toEqual({
      code: 'internal_error',
      message: 'The service is misconfigured: the campaign scheduler is not configured.',
      status: 500,
    });
    expect(lines).toEqual([
      {
        level: 'error',
        event: 'operation_failed',
        fields: {
          operation: 'unsubscribe',
          cause: 'MissingDependency: the campaign scheduler is not configured',
        },
      },
    ]);
  });

  it('[http.error-shape] an error value thrown from deep inside reaches the caller as it is, with nothing logged', async () => {
    const notFound = newsletterError('not_found', 'No subscriber has the address a@example.com.');
    const { answer, lines } = await failing(notFound);
    expect(isNewsletterError(answer) && answer).toBe(notFound);
    expect(lines).toEqual([]);
  });
});
