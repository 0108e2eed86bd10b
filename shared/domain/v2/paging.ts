import { type NewsletterError, newsletterError } from '../errors.ts';
import type { RawParameters } from '../parameters/normalise-parameters.ts';

/** A page of a v2 collection (decisions part 11: 1 and 10 by default, at most 100). */
export interface Page {
  readonly page: number;
  readonly perPage: number;
}

/** Largest `per_page`, as WordPress's collections. */
export const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 10;

function whole(
  params: RawParameters,
  name: string,
  fallback: number,
  max: number,
): number | NewsletterError {
  const value = params[name];
  if (value === undefined || value === null || value === '') return fallback;
  const text = String(Array.isArray(value) ? value[0] : value).trim();
  const number = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(number) || number < 1 || number > max)
    return newsletterError('invalid_parameter', `${name} must be a whole number from 1 to ${max}`);
  return number;
}

/**
 * `page` and `per_page` of a v2 collection ([v2.paging]). Unlike the original, whose
 * `/subscribers` registered no defaults (an empty answer without `per_page`), both default.
 */
export function parsePage(params: RawParameters): Page | NewsletterError {
  const page = whole(params, 'page', 1, 1_000_000);
  if (typeof page !== 'number') return page;
  const perPage = whole(params, 'per_page', DEFAULT_PER_PAGE, MAX_PER_PAGE);
  if (typeof perPage !== 'number') return perPage;
  return { page, perPage };
}

/** WordPress's collection headers: the number of items and of pages in all. */
export function pageHeaders(total: number, page: Page): Record<string, string> {
  return {
    'X-WP-Total': String(total),
    'X-WP-TotalPages': String(Math.ceil(total / page.perPage)),
  };
}
