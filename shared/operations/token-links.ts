import type { TokenPurpose } from '../adapters/store/store-port.ts';
import { isNewsletterError, type NewsletterError } from '../domain/errors.ts';
import type { SubscriberRecord } from '../domain/subscriber.ts';
import { hashToken, isWellFormedToken, sameHash } from '../domain/tokens.ts';
import { commitChange } from './commit-change.ts';
import type { CallContext, Dependencies } from './dependencies.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';
import { unsubscribeAddress } from './unsubscribe.ts';

/** What following a link in a mail achieved; `invalid` covers unknown, expired and superseded. */
export type LinkOutcome = 'confirmed' | 'already_confirmed' | 'unsubscribed' | 'invalid';

/**
 * Finds the subscriber a raw token belongs to, or nothing. The token must be well formed, known,
 * of the right purpose, not expired (DynamoDB TTL deletes late, so expiry is checked here), and
 * still listed on the subscriber, compared in constant time.
 */
async function holderOf(
  deps: Pick<Dependencies, 'store' | 'now'>,
  raw: unknown,
  purpose: TokenPurpose,
): Promise<SubscriberRecord | undefined> {
  if (!isWellFormedToken(raw)) return undefined;
  const hash = hashToken(raw);
  const token = await deps.store.getToken(hash);
  if (!token || token.purpose !== purpose || token.expires_at * 1000 <= deps.now().getTime())
    return undefined;
  const subscriber = await deps.store.getSubscriber(token.email);
  if (!subscriber) return undefined;
  const listed = Object.keys(subscriber.tokens).some((stored) => sameHash(stored, hash));
  if (!listed) return undefined;
  if (
    purpose === 'confirm' &&
    !(subscriber.confirm_token && sameHash(subscriber.confirm_token, hash))
  )
    return undefined;
  return subscriber;
}

/** Whether a link is worth showing its button for (GET of a page); changes nothing. */
export async function checkLink(
  deps: Pick<Dependencies, 'store' | 'now'>,
  raw: unknown,
  purpose: TokenPurpose,
): Promise<boolean> {
  const holder = await holderOf(deps, raw, purpose);
  if (!holder) return false;
  return purpose === 'unsubscribe' || holder.status === 'S' || holder.status === 'C';
}

/**
 * Confirms through an activation link: `S` becomes `C` and the welcome and admin mails are
 * queued with it. Confirming again is a success; racing confirmations commit once and queue
 * once.
 */
export async function confirmByLink(
  deps: Pick<Dependencies, 'store' | 'settings' | 'now' | 'log' | 'metrics'>,
  raw: unknown,
  context: CallContext,
): Promise<LinkOutcome | NewsletterError> {
  const settings = await deps.settings();
  return retryOnConflict('confirm_subscription', deps.log, async () => {
    const current = await holderOf(deps, raw, 'confirm');
    if (!current) return 'invalid';
    if (current.status === 'C') return 'already_confirmed';
    if (current.status !== 'S') return 'invalid';
    const draft: SubscriberRecord = {
      ...current,
      status: 'C',
      updated: deps.now().toISOString(),
    };
    const mails = ['welcome', ...(settings.admin_address ? (['admin'] as const) : [])] as const;
    const result = await commitChange(deps, settings, context, current, draft, mails);
    if (result.kind === 'conflict') return CONFLICT;
    if (result.kind === 'failed') return result.error;
    deps.metrics.count('Confirmations');
    return 'confirmed';
  });
}

/** Unsubscribes through the link in a mail (a button POST or an RFC 8058 one-click POST). */
export async function unsubscribeByLink(
  deps: Pick<Dependencies, 'store' | 'now' | 'log' | 'metrics'>,
  raw: unknown,
): Promise<LinkOutcome | NewsletterError> {
  const holder = await holderOf(deps, raw, 'unsubscribe');
  if (!holder) return 'invalid';
  const outcome = await unsubscribeAddress(deps, holder.email);
  if (!outcome) return 'invalid';
  return isNewsletterError(outcome) ? outcome : 'unsubscribed';
}
