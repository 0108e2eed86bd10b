import {
  isNewsletterError,
  type NewsletterError,
  newsletterError,
  unavailable,
} from '../domain/errors.ts';
import type { RawParameters } from '../domain/parameters/normalise-parameters.ts';
import { parseEmailParameters } from '../domain/parameters/parse-parameters.ts';
import { type Subscriber, type SubscriberRecord, toSubscriber } from '../domain/subscriber.ts';
import { backoff, MAX_ATTEMPTS } from './commit-change.ts';
import type { Dependencies } from './dependencies.ts';

/** The outcome of unsubscribing a known subscriber. */
export type UnsubscribeOutcome = { readonly record: SubscriberRecord } | NewsletterError;

/**
 * Moves a subscriber to `U`: `S` and `C` become `U`; `U` stays (a success); `B` and `P` stay,
 * since they already block every mail and are stronger facts than an unsubscription.
 */
export async function unsubscribeAddress(
  deps: Dependencies,
  email: string,
): Promise<UnsubscribeOutcome | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const current = await deps.store.getSubscriber(email);
    if (!current) return undefined;
    if (current.status !== 'S' && current.status !== 'C') return { record: current };
    const next: SubscriberRecord = {
      ...current,
      status: 'U',
      updated: deps.now().toISOString(),
      version: current.version + 1,
      pending_mails: [],
    };
    if (await deps.store.replaceSubscriber(next, current.version, { put: [], delete: [] }))
      return { record: next };
    await backoff(attempt);
  }
  return unavailable();
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
