import * as v from 'valibot';
import { decideSubscribe } from '../domain/decide-subscribe.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../domain/errors.ts';
import type { RawParameters } from '../domain/parameters/normalise-parameters.ts';
import {
  parseSubscribeParameters,
  type SubscribeParameters,
} from '../domain/parameters/parse-parameters.ts';
import type { Settings } from '../domain/settings-schema.ts';
import { type Subscriber, toSubscriber } from '../domain/subscriber.ts';
import { commitChange } from './commit-change.ts';
import type { CallContext, Dependencies } from './dependencies.ts';
import { withinRateLimit } from './rate-limit.ts';
import { CONFLICT, retryOnConflict } from './retry-on-conflict.ts';

/**
 * What a keyless caller learns: the same for a new, pending, confirmed, unsubscribed or blocked
 * address, reflecting the opt-in mode, so the form cannot be used to probe the list.
 */
export const PublicSubscribeResultSchema = v.pipe(
  v.strictObject({
    email: v.string(),
    status: v.pipe(
      v.picklist(['pending', 'subscribed']),
      v.description(
        'pending in double opt-in mode (check your mail), subscribed in single opt-in mode.',
      ),
    ),
  }),
  v.title('PublicSubscribeResult'),
);

/** What a keyless `subscribe` returns. */
export type PublicSubscribeResult = Readonly<v.InferOutput<typeof PublicSubscribeResultSchema>>;

/** The extra rules of a public subscription form: required fields, no private lists. */
function checkPublicCall(
  call: SubscribeParameters,
  settings: Settings,
): NewsletterError | undefined {
  for (const field of settings.required_public_fields) {
    const value = field.startsWith('profile_')
      ? call.profile?.[field.slice('profile_'.length)]
      : call[field as 'name' | 'surname' | 'gender'];
    if (value === undefined || value === '') {
      return newsletterError('missing_parameter', `${field} is required`);
    }
  }
  const privateList = call.lists?.find((id) =>
    settings.lists.some((list) => list.id === id && list.private),
  );
  if (privateList !== undefined) {
    return newsletterError(
      'private_list',
      `lists: list ${privateList} is private and needs the API key`,
    );
  }
  return undefined;
}

/** `subscribe`: stores the subscriber and starts the subscription process (decisions part 4). */
export async function subscribe(
  deps: Dependencies,
  raw: RawParameters,
  context: CallContext,
): Promise<Subscriber | PublicSubscribeResult | NewsletterError> {
  const settings = await deps.settings();
  const call = parseSubscribeParameters(raw, settings);
  if (isNewsletterError(call)) return call;
  const publicAnswer: PublicSubscribeResult = {
    email: call.email,
    status: settings.opt_in === 'double' ? 'pending' : 'subscribed',
  };
  if (!context.trusted) {
    const problem = checkPublicCall(call, settings);
    if (problem) return problem;
    const honeypot = settings.honeypot_field ? raw[settings.honeypot_field] : undefined;
    if (honeypot !== undefined && honeypot !== '') {
      // Bots get the usual answer, so they learn nothing; nothing is stored or sent.
      deps.log.warn('honeypot_filled', { field: settings.honeypot_field });
      return publicAnswer;
    }
    if (
      context.clientIp &&
      !(await withinRateLimit(deps.store, settings, context.clientIp, deps.now()))
    ) {
      deps.metrics.count('RateLimited');
      return newsletterError(
        'rate_limited',
        'Too many subscription requests from your network. Please try again later.',
      );
    }
  }
  return retryOnConflict('subscribe', deps.log, async () => {
    const current = await deps.store.getSubscriber(call.email);
    const decision = decideSubscribe(current, call, {
      trusted: context.trusted,
      settings,
      now: deps.now(),
    });
    let record = current;
    if (decision.next) {
      const result = await commitChange(
        deps,
        settings,
        context,
        current,
        decision.next,
        decision.mails,
      );
      if (result.kind === 'conflict') return CONFLICT;
      if (result.kind === 'failed') return result.error;
      record = result.record;
      if (!current || current.status === 'U') deps.metrics.count('Subscriptions');
    }
    if (!context.trusted) return publicAnswer;
    // A trusted call on a blocked address changes nothing but still learns its state.
    if (!record) throw new Error('subscribe decided nothing for a new address');
    return toSubscriber(record);
  });
}
