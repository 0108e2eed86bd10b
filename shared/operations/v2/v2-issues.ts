import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import type { NewsletterInput, SavedNewsletter } from '../campaign/save-newsletter.ts';

/**
 * Issues over HTTP, our extension of v2 ([v2.issues]): the HTTP shapes of the operations the
 * CLI and the function class run (shared/operations/campaign/), so there is one implementation
 * of every rule and only the parsing of a request and the shape of an answer live here.
 */

/** An issue as the v2 management routes answer it. */
export interface V2Issue {
  readonly id: number;
  readonly subject: string;
  readonly status: CampaignRecord['status'];
  readonly private: boolean;
  readonly lists: readonly number[];
  readonly url?: string;
  readonly scheduled_at?: string;
  readonly sent_on: string | null;
  readonly total: number;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  /** What the operator should know of the content (a save's answer only). */
  readonly warnings?: readonly string[];
}

/** An issue record as the management routes show it. */
export function toV2Issue(record: CampaignRecord, warnings?: readonly string[]): V2Issue {
  return {
    id: record.id,
    subject: record.subject,
    status: record.status,
    private: record.private,
    lists: record.lists,
    ...(record.url ? { url: record.url } : {}),
    ...(record.scheduled_at ? { scheduled_at: record.scheduled_at } : {}),
    sent_on: record.sent_at,
    total: record.total,
    sent: record.sent,
    skipped: record.skipped,
    failed: record.failed,
    ...(warnings ? { warnings } : {}),
  };
}

/** A saved issue as answered: the issue and its content warnings. */
export function savedAnswer(saved: SavedNewsletter | NewsletterError): V2Issue | NewsletterError {
  return isNewsletterError(saved) ? saved : toV2Issue(saved.issue, saved.warnings);
}

/** An issue id from the path: digits, no sign, no leading zero. */
export function issueIdOf(raw: unknown): number | NewsletterError {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,14}$/.test(raw))
    return newsletterError('not_found', 'Newsletter does not exist');
  return Number(raw);
}

const invalid = (message: string): NewsletterError => newsletterError('invalid_parameter', message);

/** A flag as JSON or a form sends it. */
function flag(name: string, value: unknown): boolean | NewsletterError {
  if (typeof value === 'boolean') return value;
  const word = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(word)) return true;
  if (['false', '0', 'no', 'off'].includes(word)) return false;
  return invalid(`${name} must be true or false`);
}

/**
 * The body of `POST /issues` and `PUT /issues/{id}` as the save operations take it:
 * `subject`, `html`, `text`, `lists` (ids), `private`, `url` ("" or null on an edit removes it).
 * The content's own rules (tags, size, lists that exist) are the save operation's.
 */
export function issueInput(raw: RawParameters): NewsletterInput | NewsletterError {
  const input: { -readonly [K in keyof NewsletterInput]: NewsletterInput[K] } = {};
  for (const name of ['subject', 'html', 'text'] as const) {
    const value = raw[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return invalid(`${name} must be a string`);
    input[name] = value;
  }
  const lists = raw.lists ?? raw['lists[]'];
  if (lists !== undefined && lists !== null && lists !== '') {
    const ids = (Array.isArray(lists) ? lists : [lists]).map((each) =>
      typeof each === 'string' && /^\s*\d{1,9}\s*$/.test(each) ? Number(each) : each,
    );
    if (!ids.every((id) => typeof id === 'number' && Number.isInteger(id) && id > 0))
      return invalid('lists must be list ids');
    input.lists = ids as number[];
  }
  if (raw.private !== undefined && raw.private !== null && raw.private !== '') {
    const value = flag('private', raw.private);
    if (isNewsletterError(value)) return value;
    input.private = value;
  }
  if (raw.url !== undefined) {
    if (raw.url !== null && typeof raw.url !== 'string') return invalid('url must be a string');
    input.url = raw.url === null || raw.url === '' ? null : raw.url;
  }
  return input;
}

/** `new_only` and `accept_quota` of a send, as flags. */
export function sendFlags(
  raw: RawParameters,
): { newOnly: boolean; acceptQuota: boolean } | NewsletterError {
  const read = (name: string): boolean | NewsletterError =>
    raw[name] === undefined || raw[name] === null || raw[name] === ''
      ? false
      : flag(name, raw[name]);
  const newOnly = read('new_only');
  if (isNewsletterError(newOnly)) return newOnly;
  const acceptQuota = read('accept_quota');
  if (isNewsletterError(acceptQuota)) return acceptQuota;
  return { newOnly, acceptQuota };
}

/** The addresses of a test send: `to` as a list, or one address, or several form fields. */
export function testAddresses(raw: RawParameters): unknown[] {
  const to = raw.to ?? raw['to[]'];
  return Array.isArray(to) ? to : to === undefined ? [] : [to];
}
