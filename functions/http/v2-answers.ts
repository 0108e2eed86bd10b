import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import { pageHeaders } from '../../shared/domain/v2/paging.ts';
import type { V2Collection } from '../../shared/operations/v2/v2-settings-reads.ts';
import type { V2Answer } from './v2-handler.ts';

/** A result as a 200 answer; an error stays an error. */
export function ok(result: unknown | NewsletterError): V2Answer | NewsletterError {
  return isNewsletterError(result) ? result : { body: result };
}

/** A page of a collection as its items with WordPress's `X-WP-Total` headers ([v2.paging]). */
export function collection<T>(
  result: V2Collection<T> | NewsletterError,
): V2Answer | NewsletterError {
  if (isNewsletterError(result)) return result;
  return { body: result.items, headers: pageHeaders(result.total, result.page) };
}
