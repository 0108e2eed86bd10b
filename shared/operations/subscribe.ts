import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { consentEvent } from '../domain/consent.ts';
import { decideSubscribe } from '../domain/decide-subscribe.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../domain/errors.ts';
import { isNotGiven, type RawParameters } from '../domain/parameters/normalise-parameters.ts';
import {
  parseSubscribeParameters,
  type SubscribeParameters,
  type SubscriberFields,
} from '../domain/parameters/parse-parameters.ts';
import type { Settings } from '../domain/settings-schema.ts';
import { type Subscriber, type SubscriberRecord, toSubscriber } from '../domain/subscriber.ts';
import { commitChange } from './commit-change.ts';
import { type CallContext, channelOf, type Dependencies } from './dependencies.ts';
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
    if (field === 'privacy') {
      if (call.privacy !== true) {
        return newsletterError('missing_parameter', 'privacy is required: tick the privacy box');
      }
      continue;
    }
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

/**
 * `subscribe` (decisions part 4). A trusted call applies the rules at once and answers with the
 * subscriber. A keyless call checks what needs no stored state (parameters, public-form rules,
 * honeypot, rate limit), records the request with one write and answers the same for every
 * address, in the same time: the stream processor applies the rules
 * (`settleSubscribeRequest`), so neither the answer nor its timing tells who is subscribed.
 * Mails go out through the outbox either way.
 */
export async function subscribe(
  deps: Dependencies,
  raw: RawParameters,
  context: CallContext,
  where: Pick<SubscriberFields, 'place' | 'language'> = {},
): Promise<Subscriber | PublicSubscribeResult | NewsletterError> {
  const settings = await deps.settings();
  const parsed = parseSubscribeParameters(raw, settings);
  if (isNewsletterError(parsed)) return parsed;
  // `where`: v2's place and language, validated by its caller; v1 has neither.
  const { ignored_profile_fields: ignored, ...call } = { ...parsed, ...where };
  noteIgnoredProfileFields(deps, ignored);
  if (context.trusted) {
    const record = await applySubscribe(deps, settings, call, context);
    if (isNewsletterError(record)) return record;
    return {
      ...toSubscriber(record),
      ...(ignored ? { ignored_profile_fields: [...ignored] } : {}),
    };
  }
  const publicAnswer: PublicSubscribeResult = {
    email: call.email,
    status: settings.opt_in === 'double' ? 'pending' : 'subscribed',
  };
  const problem = checkPublicCall(call, settings);
  if (problem) return problem;
  const honeypot = settings.honeypot_field ? raw[settings.honeypot_field] : undefined;
  // `null` is "not given" here as everywhere: a JSON form that sends the empty field is a person.
  if (!isNotGiven(honeypot)) {
    // Bots get the usual answer, so they learn nothing; nothing is stored or sent.
    deps.log.warn('honeypot_filled', { field: settings.honeypot_field });
    return publicAnswer;
  }
  const now = deps.now();
  if (context.clientIp && !(await withinRateLimit(deps.store, settings, context.clientIp, now))) {
    deps.metrics.count('RateLimited');
    return newsletterError(
      'rate_limited',
      'Too many subscription requests from your network. Please try again later.',
    );
  }
  await deps.store.putSubscribeRequest({
    request_id: randomUUID(),
    params: call,
    ...(context.apiRoot ? { api_root: context.apiRoot } : {}),
    ...(context.clientIp ? { client_ip: context.clientIp } : {}),
    ...(context.userAgent ? { user_agent: context.userAgent } : {}),
    received_at: now.toISOString(),
  });
  return publicAnswer;
}

/** A name that could be a profile field of the settings: safe to write to a log. */
const FIELD_NAME = /^profile_[A-Za-z0-9_]{1,32}$/;

/**
 * Makes ignored profile fields visible to the operator ([params.unknown-profile-field]): a
 * warning naming them and a metric, so they see which fields their forms send that the
 * settings lack. Values are personal data and never logged; names are the caller's text too,
 * so only names shaped like a field id are written, the others only counted (a name must not
 * carry a key or an address into the log).
 */
export function noteIgnoredProfileFields(
  deps: Pick<Dependencies, 'log' | 'metrics'>,
  ignored: readonly string[] | undefined,
): void {
  if (!ignored || ignored.length === 0) return;
  const named = ignored.filter((name) => FIELD_NAME.test(name));
  const others = ignored.length - named.length;
  deps.log.warn('unknown_profile_fields_ignored', {
    fields: named.join(','),
    ...(others > 0 ? { other_names: others } : {}),
  });
  deps.metrics.count('UnknownProfileFields', ignored.length);
}

/** What settling a keyless request found. */
export type SettleOutcome = 'settled' | 'gone';

/**
 * Applies the subscribe rules to a keyless request the API recorded (the stream processor's
 * work): the subscriber change, its outbox mails and the request's deletion commit together,
 * so a redelivered stream record finds the request gone and does nothing twice.
 */
export async function settleSubscribeRequest(
  deps: Pick<Dependencies, 'store' | 'settings' | 'now' | 'log' | 'metrics'>,
  requestId: string,
): Promise<SettleOutcome | NewsletterError> {
  const request = await deps.store.getSubscribeRequest(requestId);
  if (!request) return 'gone';
  if (typeof request.params?.email !== 'string') {
    // Not what the API writes: left for the retries and the dead-letter queue, never guessed at.
    throw new Error(`subscribe request ${requestId} is malformed`);
  }
  const settings = await deps.settings();
  const context: CallContext = {
    trusted: false,
    ...(request.api_root ? { apiRoot: request.api_root } : {}),
    ...(request.client_ip ? { clientIp: request.client_ip } : {}),
    ...(request.user_agent ? { userAgent: request.user_agent } : {}),
    receivedAt: new Date(request.received_at),
  };
  const outcome = await applySubscribe(deps, settings, request.params, context, requestId);
  return isNewsletterError(outcome) ? outcome : 'settled';
}

/** The read–decide–write of a subscribe; the record as it stands afterwards. */
async function applySubscribe(
  deps: Pick<Dependencies, 'store' | 'now' | 'log' | 'metrics'>,
  settings: Settings,
  call: SubscribeParameters,
  context: CallContext,
  settlesRequest?: string,
): Promise<SubscriberRecord | NewsletterError> {
  return retryOnConflict('subscribe', deps.log, async () => {
    const current = await deps.store.getSubscriber(call.email);
    const now = deps.now();
    const decision = decideSubscribe(current, call, {
      trusted: context.trusted,
      settings,
      now,
      consent: {
        channel: channelOf(context),
        subscribed: consentEvent(context.receivedAt ?? now, context),
      },
    });
    if (!decision.next) {
      // Nothing to change: only the request, if any, is settled.
      if (settlesRequest) await deps.store.deleteSubscribeRequest(settlesRequest);
      if (!current) throw new Error('subscribe decided nothing for a new address');
      return current;
    }
    const result = await commitChange(
      deps,
      settings,
      context,
      current,
      decision.next,
      decision.mails,
      {
        ...(settlesRequest ? { settlesRequest } : {}),
        ...(decision.onConfirm ? { onConfirm: decision.onConfirm } : {}),
      },
    );
    if (result.kind === 'conflict') return CONFLICT;
    if (result.kind === 'failed') return result.error;
    if (!current || (current.status === 'U' && result.record.status !== 'U')) {
      deps.metrics.count('Subscriptions');
    }
    return result.record;
  });
}
