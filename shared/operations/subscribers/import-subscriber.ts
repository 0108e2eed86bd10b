import type { Store } from '../../adapters/store/store-port.ts';
import { newSubscriberRecord } from '../../domain/decide-subscribe.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import { parseAddSubscriberParameters } from '../../domain/parameters/parse-parameters.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import { type Subscriber, type SubscriberStatus, toSubscriber } from '../../domain/subscriber.ts';

/** Statuses a bulk import may write. */
export const IMPORT_STATUSES: readonly SubscriberStatus[] = ['S', 'C', 'U', 'B', 'P'];

/** What importing one subscriber did. */
export type ImportOutcome =
  | { readonly kind: 'created'; readonly subscriber: Subscriber }
  | { readonly kind: 'exists'; readonly error: NewsletterError }
  | { readonly kind: 'rejected'; readonly error: NewsletterError };

/** What one import call needs; settings are read once per run, not once per row. */
export interface ImportContext {
  readonly store: Store;
  readonly settings: Settings;
  readonly now: () => Date;
  /** Where ids come from; default `store.nextId('subscriber')`. Bulk imports reserve blocks. */
  readonly nextId?: () => Promise<number>;
}

/**
 * Adds one subscriber the way `add_subscriber` does (same parameter rules, same record, one
 * conditional write, no mail), with two differences, both because an import moves existing
 * data: the status may also be `U`, `B` or `P` (importing an unsubscribed or bounced address
 * as confirmed would mail people who asked not to be mailed), and the lists are exactly the
 * row's (no pre-assigned lists added), so an export of the import reads back the same.
 *
 * An existing address is never touched; a row processed twice (a resumed import) therefore
 * cannot create a duplicate. DependencyError (DynamoDB unavailable) is thrown to the caller,
 * which must stop rather than mark the row as bad.
 */
export async function importSubscriber(
  context: ImportContext,
  raw: RawParameters,
  status: string,
): Promise<ImportOutcome> {
  const wanted = IMPORT_STATUSES.find((known) => known === status.trim().toUpperCase());
  if (!wanted) {
    return {
      kind: 'rejected',
      error: newsletterError('invalid_parameter', 'status must be one of S, C, U, B, P'),
    };
  }
  // The parser knows only S and C; the other statuses pass it as C and are applied after.
  const call = parseAddSubscriberParameters(
    { ...raw, status: wanted === 'S' ? 'S' : 'C' },
    context.settings,
  );
  if (isNewsletterError(call)) return { kind: 'rejected', error: call };
  const now = context.now();
  const draft = newSubscriberRecord(call.email, call, wanted, context.settings, now, {
    preassigned: false,
  });
  const id = await (context.nextId ? context.nextId() : context.store.nextId('subscriber'));
  // The file says nothing of how each person joined elsewhere: the evidence is the import.
  const consent = { channel: 'import' as const, subscribed: { at: now.toISOString() } };
  const record = { ...draft, consent, id, version: 1 };
  if (!(await context.store.createSubscriber(record))) {
    return {
      kind: 'exists',
      error: newsletterError(
        'email_exists',
        `A subscriber with the address ${call.email} already exists.`,
      ),
    };
  }
  return { kind: 'created', subscriber: toSubscriber(record) };
}
