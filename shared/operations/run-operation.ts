import {
  DependencyError,
  describeError,
  isNewsletterError,
  type NewsletterError,
  newsletterError,
  unavailable,
} from '../domain/errors.ts';
import { type Dependencies, MissingDependency, misconfigured } from './dependencies.ts';

/**
 * Runs an operation so that nothing escapes as a throw: a dependency failure becomes the 503
 * error value, anything else (a bug, a broken setting) the generic 500 with its cause in the
 * log only.
 */
export async function runOperation<T>(
  deps: Pick<Dependencies, 'log'>,
  name: string,
  body: () => Promise<T | NewsletterError>,
): Promise<T | NewsletterError> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof DependencyError) {
      deps.log.error('dependency_unavailable', {
        operation: name,
        dependency: error.dependency,
        cause: describeError(error),
      });
      return unavailable();
    }
    if (isNewsletterError(error)) return error;
    deps.log.error('operation_failed', { operation: name, cause: describeError(error) });
    if (error instanceof MissingDependency) return misconfigured(error);
    return newsletterError(
      'internal_error',
      'Something went wrong on our side. Please try again later.',
    );
  }
}
