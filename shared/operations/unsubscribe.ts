import { isNewsletterError, type NewsletterError, newsletterError } from '../domain/errors.ts';
import type { ChangeVia } from '../domain/events/event-catalogue.ts';
import type { RawParameters } from '../domain/parameters/normalise-parameters.ts';
import { parseEmailParameters } from '../domain/parameters/parse-parameters.ts';
import { type Subscriber, type SubscriberRecord, toSubscriber } from '../domain/subscriber.ts';
import type { Dependencies } from './dependencies.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';

/** The outcome of unsubscribing a known subscriber. */
export type UnsubscribeOutcome = { readonly record: SubscriberRecord } | NewsletterError;

/**
 * Moves a subscriber to `U`: `S` and `C` become `U`; `U` stays (a success); `B` and `P` stay,
 * since they already block every mail and are stronger facts than an unsubscription. Any
 * pending activation link dies with it.
 */
export async function unsubscribeAddress(
  deps: Pick<Dependencies, 'store' | 'now' | 'log' | 'metrics'>,
  email: string,
  via: ChangeVia = 'api',
): Promise<UnsubscribeOutcome | undefined> {
  return retryOnConflict('unsubscribe', deps.log, async () => {
    const current = await deps.store.getSubscriber(email);
    if (!current) return undefined;
    if (current.status === 'B' || current.status === 'P') return { record: current };
    const leaving = current.status !== 'U';
    // An activation link sent before the unsubscribe must not bring the address back: it is
    // retired with it. A `U` has one only when a keyless call asked it back since: a link
    // already sent (`confirm_token`), or a mail still queued (`activation_outbox`; its token is
    // minted when it goes out), which the mailer then drops.
    if (!leaving && current.confirm_token === undefined && current.activation_outbox === undefined)
      return { record: current };
    const {
      confirm_token: retired,
      activation_outbox: _superseded,
      expires_at: _expiry,
      ...kept
    } = current;
    const tokens = { ...current.tokens };
    if (retired !== undefined) delete tokens[retired];
    const next: SubscriberRecord = {
      ...kept,
      status: 'U',
      tokens,
      ...(leaving ? { updated: deps.now().toISOString() } : {}),
      version: current.version + 1,
      last_change: { via, version: current.version + 1 },
    };
    // Mails still in the outbox are not withdrawn: the mailer reads the subscriber before
    // sending, and no activation of it is current any more.
    const writes = retired === undefined ? {} : { tokens: { put: [], delete: [retired] } };
    if (!(await deps.store.replaceSubscriber(next, current, writes))) return CONFLICT;
    if (leaving) deps.metrics.count('Unsubscriptions');
    return { record: next };
  });
}

/** `unsubscribe`: the subscriber as it is afterwards; an unknown address is a 404. */
export async function unsubscribe(
  deps: Dependencies,
  raw: RawParameters,
): Promise<Subscriber | NewsletterError> {
  const call = parseEmailParameters(raw);
  if (isNewsletterError(call)) return call;
  const outcome = await unsubscribeAddress(deps, call.email);
  if (!outcome) return newsletterError('not_found', `No subscriber has the address ${call.email}.`);
  return isNewsletterError(outcome) ? outcome : toSubscriber(outcome.record);
}
