import { consentEvent } from '../domain/consent.ts';
import { newSubscriberRecord } from '../domain/decide-subscribe.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../domain/errors.ts';
import type { RawParameters } from '../domain/parameters/normalise-parameters.ts';
import { parseAddSubscriberParameters } from '../domain/parameters/parse-parameters.ts';
import { type Subscriber, toSubscriber } from '../domain/subscriber.ts';
import { type CallContext, channelOf, type Dependencies, TRUSTED } from './dependencies.ts';
import { noteIgnoredProfileFields } from './subscribe.ts';

/**
 * `add_subscriber`: writes a new subscriber directly, no process and no mail. Uniqueness of the
 * address is the conditional write's job, so there is no read first and no race to lose.
 */
export async function addSubscriber(
  deps: Dependencies,
  raw: RawParameters,
  context: CallContext = TRUSTED,
): Promise<Subscriber | NewsletterError> {
  const settings = await deps.settings();
  const parsed = parseAddSubscriberParameters(raw, settings);
  if (isNewsletterError(parsed)) return parsed;
  const { ignored_profile_fields: ignored, ...call } = parsed;
  noteIgnoredProfileFields(deps, ignored);
  const exists = () =>
    newsletterError('email_exists', `A subscriber with the address ${call.email} already exists.`);
  // A refused call must leave the table as it was: look before taking an id. The conditional
  // write below still decides a race; only its loser burns an id.
  if (await deps.store.getSubscriber(call.email)) return exists();
  const now = deps.now();
  const draft = newSubscriberRecord(call.email, call, call.status, settings, now);
  const record = {
    ...draft,
    consent: { channel: channelOf(context), subscribed: consentEvent(now, context) },
    id: await deps.store.nextId('subscriber'),
    version: 1,
  };
  if (!(await deps.store.createSubscriber(record))) return exists();
  return { ...toSubscriber(record), ...(ignored ? { ignored_profile_fields: [...ignored] } : {}) };
}
