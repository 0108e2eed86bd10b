import type { CampaignStore } from '../adapters/store/campaign-store-port.ts';
import type { TokenPurpose, TokenRecord } from '../adapters/store/store-port.ts';
import { parseCampaignLink } from '../domain/campaign/campaign-link.ts';
import { consentEvent } from '../domain/consent.ts';
import { confirmationMails, isExpired, mergeFields } from '../domain/decide-subscribe.ts';
import { isNewsletterError, type NewsletterError } from '../domain/errors.ts';
import type { ChangeVia } from '../domain/events/event-catalogue.ts';
import type { SubscriberRecord } from '../domain/subscriber.ts';
import { hashToken, isWellFormedToken, sameHash } from '../domain/tokens.ts';
import { campaignLinkHolder } from './campaign/campaign-links.ts';
import { commitChange } from './commit-change.ts';
import type { CallContext, Dependencies } from './dependencies.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';
import { unsubscribeAddress } from './unsubscribe.ts';

/** What following a link in a mail achieved; `invalid` covers unknown, expired and superseded. */
export type LinkOutcome = 'confirmed' | 'already_confirmed' | 'unsubscribed' | 'invalid';

/** A link's token and the subscriber it belongs to. */
interface Holder {
  readonly subscriber: SubscriberRecord;
  readonly token: TokenRecord;
}

/**
 * Finds the subscriber a raw token belongs to, or nothing. The token must be well formed, known,
 * of the right purpose, not expired (DynamoDB TTL deletes late, so expiry is checked here), and
 * still listed on the subscriber, compared in constant time.
 */
async function holderOf(
  deps: Pick<Dependencies, 'store' | 'now'>,
  raw: unknown,
  purpose: TokenPurpose,
): Promise<Holder | undefined> {
  if (!isWellFormedToken(raw)) return undefined;
  const hash = hashToken(raw);
  const token = await deps.store.getToken(hash);
  if (!token || token.purpose !== purpose || token.expires_at * 1000 <= deps.now().getTime())
    return undefined;
  const subscriber = await deps.store.getSubscriber(token.email);
  if (!subscriber || isExpired(subscriber, deps.now())) return undefined;
  const listed = Object.keys(subscriber.tokens).some((stored) => sameHash(stored, hash));
  if (!listed) return undefined;
  if (
    purpose === 'confirm' &&
    !(subscriber.confirm_token && sameHash(subscriber.confirm_token, hash))
  )
    return undefined;
  return { subscriber, token };
}

/** Whether an activation link can still confirm (or has): `S`, a `U` asked back, or `C`. */
const confirmable = (status: SubscriberRecord['status']): boolean =>
  status === 'S' || status === 'U' || status === 'C';

/**
 * What the unsubscribe page needs: the subscriber store, and the campaign store where campaign
 * mails' links are checked (without it, such a link is unknown).
 */
export type LinkDependencies = Pick<Dependencies, 'store' | 'now'> & {
  readonly campaigns?: CampaignStore;
};

/** Whether a link is worth showing its button for (GET of a page); changes nothing. */
export async function checkLink(
  deps: LinkDependencies,
  raw: unknown,
  purpose: TokenPurpose,
): Promise<boolean> {
  if (purpose === 'unsubscribe' && parseCampaignLink(raw))
    return deps.campaigns
      ? (await campaignLinkHolder({ ...deps, campaigns: deps.campaigns }, raw)) !== undefined
      : false;
  const holder = await holderOf(deps, raw, purpose);
  if (!holder) return false;
  return purpose === 'unsubscribe' || confirmable(holder.subscriber.status);
}

/**
 * Confirms through an activation link: `S` (or a `U` that asked to come back) becomes `C`, with
 * what the activation carried (the fields and consent of a keyless call), the confirmation's
 * own evidence, and the welcome and admin mails queued with it. Confirming again is a
 * success; racing confirmations commit once and queue once.
 */
export async function confirmByLink(
  deps: Pick<Dependencies, 'store' | 'settings' | 'now' | 'log' | 'metrics'>,
  raw: unknown,
  context: CallContext,
): Promise<LinkOutcome | NewsletterError> {
  const settings = await deps.settings();
  return retryOnConflict('confirm_subscription', deps.log, async () => {
    const holder = await holderOf(deps, raw, 'confirm');
    if (!holder) return 'invalid';
    const { subscriber: current, token } = holder;
    if (current.status === 'C') return 'already_confirmed';
    if (current.status !== 'S' && current.status !== 'U') return 'invalid';
    const now = deps.now();
    const carried = token.on_confirm;
    const joined = carried?.consent ?? current.consent;
    const { expires_at: _expiry, ...kept } = carried?.fields
      ? mergeFields(current, carried.fields)
      : current;
    const draft: SubscriberRecord = {
      ...kept,
      status: 'C',
      updated: now.toISOString(),
      ...(joined ? { consent: { ...joined, confirmed: consentEvent(now, context) } } : {}),
    };
    const mails = confirmationMails(settings, carried?.welcome ?? true);
    const result = await commitChange(deps, settings, context, current, draft, mails);
    if (result.kind === 'conflict') return CONFLICT;
    if (result.kind === 'failed') return result.error;
    deps.metrics.count('Confirmations');
    return 'confirmed';
  });
}

/**
 * Unsubscribes through the link in a mail (a button POST or an RFC 8058 one-click POST). A
 * campaign mail's link also records on its recipient record that the person left through this
 * issue, for the report.
 */
export async function unsubscribeByLink(
  deps: Pick<Dependencies, 'store' | 'now' | 'log' | 'metrics'> & {
    readonly campaigns?: CampaignStore;
  },
  raw: unknown,
  via: Extract<ChangeVia, 'link' | 'one_click'> = 'link',
): Promise<LinkOutcome | NewsletterError> {
  if (parseCampaignLink(raw)) {
    const campaigns = deps.campaigns;
    if (!campaigns) return 'invalid';
    const found = await campaignLinkHolder({ ...deps, campaigns }, raw);
    if (!found) return 'invalid';
    const outcome = await unsubscribeAddress(deps, found.subscriber.email, via);
    if (!outcome) return 'invalid';
    if (isNewsletterError(outcome)) return outcome;
    await campaigns.markUnsubscribed(
      found.token.newsletterId,
      found.token.subscriberId,
      deps.now(),
    );
    return 'unsubscribed';
  }
  const holder = await holderOf(deps, raw, 'unsubscribe');
  if (!holder) return 'invalid';
  const outcome = await unsubscribeAddress(deps, holder.subscriber.email, via);
  if (!outcome) return 'invalid';
  return isNewsletterError(outcome) ? outcome : 'unsubscribed';
}
