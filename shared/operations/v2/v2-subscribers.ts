import type { DynamoSubscriberDirectory } from '../../adapters/store/dynamo-subscriber-directory.ts';
import { consentEvent } from '../../domain/consent.ts';
import { isExpired, newSubscriberRecord } from '../../domain/decide-subscribe.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { ChangeVia } from '../../domain/events/event-catalogue.ts';
import { EMAIL_MAX_LENGTH } from '../../domain/parameters/email-address.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import type { SubscriberRecord } from '../../domain/subscriber.ts';
import { type Page, parsePage } from '../../domain/v2/paging.ts';
import {
  applyV2Change,
  parseV2SubscriberChange,
  statusOfWord,
  toV2Subscriber,
  type V2Subscriber,
  type V2SubscriberChange,
  type V2SubscriberDetail,
} from '../../domain/v2/v2-subscriber.ts';
import { deleteSubscriber } from '../delete-subscriber.ts';
import { type CallContext, channelOf, type Dependencies } from '../dependencies.ts';
import { CONFLICT, retryOnConflict } from '../retry-on-conflict.ts';

/** What the v2 subscriber operations use: the table, the settings, and finding by id or page. */
export type V2SubscriberDependencies = Pick<Dependencies, 'store' | 'settings' | 'now' | 'log'> & {
  readonly directory: Pick<DynamoSubscriberDirectory, 'emailOf' | 'page' | 'records' | 'move'>;
};

/** The original's answer for an unknown subscriber (the v2 adapter spells the code `-1`). */
export const subscriberNotFound = (): NewsletterError =>
  newsletterError('not_found', 'Subscriber does not exist');

/** `/subscribers/{id}` takes digits; anything else is an address. */
const ID = /^[1-9]\d{0,14}$/;

/**
 * The subscriber a path names, by id (digits) or by address; an `S` past its expiry counts
 * as gone ([subscribe.unconfirmed-expiry]).
 */
export async function findSubscriber(
  deps: V2SubscriberDependencies,
  reference: string,
): Promise<SubscriberRecord | undefined> {
  const trimmed = decodeURIComponent(reference).trim().toLowerCase();
  const email = ID.test(trimmed) ? await deps.directory.emailOf(Number(trimmed)) : trimmed;
  if (!email) return undefined;
  const record = await deps.store.getSubscriber(email);
  return record && !isExpired(record, deps.now()) ? record : undefined;
}

/** `GET /subscribers/{id|email}`. */
export async function getV2Subscriber(
  deps: V2SubscriberDependencies,
  reference: string,
): Promise<V2SubscriberDetail | NewsletterError> {
  const record = await findSubscriber(deps, reference);
  if (!record) return subscriberNotFound();
  return { ...toV2Subscriber(record, await deps.settings()), consent: record.consent ?? null };
}

/** A page of subscribers and what the WordPress headers say about the whole. */
export interface V2SubscriberList {
  readonly subscribers: V2Subscriber[];
  readonly total: number;
  readonly page: Page;
}

/**
 * `GET /subscribers`: `page`, `per_page` (1 and 10 by default, at most 100), `order`
 * (`desc`, newest first, or `asc`), and the filters `status` (a status word), `list` (an id)
 * and `search` (an address prefix) ([v2.paging]).
 */
export async function listV2Subscribers(
  deps: V2SubscriberDependencies,
  params: RawParameters,
): Promise<V2SubscriberList | NewsletterError> {
  const page = parsePage(params);
  if (isNewsletterError(page)) return page;
  const settings = await deps.settings();
  const order = params.order === undefined || params.order === '' ? 'desc' : params.order;
  if (order !== 'asc' && order !== 'desc')
    return newsletterError('invalid_parameter', 'order must be asc or desc');
  let status: SubscriberRecord['status'] | undefined;
  if (params.status !== undefined && params.status !== '') {
    status = statusOfWord(String(params.status));
    if (!status)
      return newsletterError(
        'invalid_parameter',
        'status must be confirmed, not_confirmed, unsubscribed, bounced or complained',
      );
  }
  let list: number | undefined;
  if (params.list !== undefined && params.list !== '') {
    list = Number(params.list);
    if (!Number.isInteger(list) || !settings.lists.some((each) => each.id === list))
      return newsletterError('unknown_list', `list: list ${String(params.list)} does not exist`);
  }
  const search = typeof params.search === 'string' ? params.search.trim().toLowerCase() : undefined;
  // No address is longer, and a longer key prefix is one DynamoDB refuses outright.
  if (
    (params.search !== undefined && typeof params.search !== 'string') ||
    (search !== undefined && search.length > EMAIL_MAX_LENGTH)
  )
    return newsletterError(
      'invalid_parameter',
      `search must be the start of an address (at most ${EMAIL_MAX_LENGTH} characters)`,
    );
  const found = await deps.directory.page(
    {
      page: page.page,
      perPage: page.perPage,
      order,
      ...(status ? { status } : {}),
      ...(list === undefined ? {} : { list }),
      ...(search ? { emailPrefix: search } : {}),
    },
    deps.now(),
  );
  const records = await deps.directory.records(found.emails);
  return {
    subscribers: records.map((record) => toV2Subscriber(record, settings)),
    total: found.total,
    page,
  };
}

/** A v2 write's outcome: the subscriber, and whether it was created (201) or updated (200). */
export interface V2SaveResult {
  readonly created: boolean;
  readonly subscriber: V2Subscriber;
}

/**
 * `POST /subscribers` (the address in the body) and `PUT /subscribers/{id|email}`: creates
 * the subscriber when there is none (201), else changes only what the body gives (200). No
 * process, no mail, as the original ([v2.subscriber-upsert]). A new subscriber without
 * `status` is `not_confirmed`, as in the original's source; a bounced or complained one keeps
 * its status; moving to an address another subscriber has is a 409 `email_taken`.
 */
export async function saveV2Subscriber(
  deps: V2SubscriberDependencies,
  params: RawParameters,
  context: CallContext,
  reference?: string,
): Promise<V2SaveResult | NewsletterError> {
  const settings = await deps.settings();
  const change = parseV2SubscriberChange(params, settings);
  if (isNewsletterError(change)) return change;
  if (reference === undefined && change.email === undefined)
    return newsletterError('missing_parameter', 'email is required');
  return retryOnConflict('v2_save_subscriber', deps.log, async () => {
    const existing =
      reference === undefined
        ? await findSubscriber(deps, change.email ?? '')
        : await findSubscriber(deps, reference);
    if (!existing) return create(deps, change, context, reference);
    if ((existing.status === 'B' || existing.status === 'P') && change.status !== undefined)
      return newsletterError(
        'invalid_parameter',
        'status: a bounced or complained subscriber stays blocked; only SES feedback sets it',
      );
    const now = deps.now();
    const version = existing.version + 1;
    const next = {
      ...applyV2Change(existing, change, now),
      version,
      last_change: { via: viaOf(context), version },
    };
    if (next.email !== existing.email) {
      if (await deps.store.getSubscriber(next.email))
        return newsletterError('email_taken', 'The email is already present');
      // The activation link named the old address: it dies with the move.
      const {
        confirm_token: _token,
        activation_outbox: _outbox,
        ...moved
      } = { ...next, tokens: {} };
      if (!(await deps.directory.move(existing, moved))) {
        // Either someone wrote the old record, or the new address was taken meanwhile.
        return (await deps.store.getSubscriber(next.email))
          ? newsletterError('email_taken', 'The email is already present')
          : CONFLICT;
      }
      return { created: false, subscriber: toV2Subscriber(moved, settings) };
    }
    if (!(await deps.store.replaceSubscriber(next, existing))) return CONFLICT;
    return { created: false, subscriber: toV2Subscriber(next, settings) };
  });
}

/** Creates the subscriber of a v2 write that found none. */
async function create(
  deps: V2SubscriberDependencies,
  change: V2SubscriberChange,
  context: CallContext,
  reference: string | undefined,
): Promise<V2SaveResult | NewsletterError | typeof CONFLICT> {
  // `PUT /subscribers/<address>` creates that address unless the body names another.
  const fromPath =
    reference !== undefined && !ID.test(reference.trim())
      ? decodeURIComponent(reference).trim().toLowerCase()
      : undefined;
  // An unknown id names nobody: there is nothing to create ([v2.subscriber-upsert]).
  if (reference !== undefined && ID.test(reference.trim())) return subscriberNotFound();
  const email = change.email ?? fromPath;
  if (email === undefined) return newsletterError('missing_parameter', 'email is required');
  const checked = parseV2SubscriberChange({ email }, await deps.settings());
  if (isNewsletterError(checked)) return checked;
  const settings = await deps.settings();
  const now = deps.now();
  const draft = newSubscriberRecord(email, {}, change.status ?? 'S', settings, now);
  const record: SubscriberRecord = {
    ...applyV2Change(draft, { ...change, email }, now),
    consent: { channel: channelOf(context), subscribed: consentEvent(now, context) },
    id: await deps.store.nextId('subscriber'),
    version: 1,
    last_change: { via: viaOf(context), version: 1 },
  };
  if (!(await deps.store.createSubscriber(record))) {
    // The path names an unknown address and the body another, which is someone's: the answer
    // of a move to a taken address ([v2.email-taken]). Trying again would find the path's
    // address unknown again and fail again, until the retries ran out as a 503.
    if (reference !== undefined && email !== fromPath)
      return newsletterError('email_taken', 'The email is already present');
    // Created meanwhile by another call: the next try finds it and changes it.
    return CONFLICT;
  }
  return { created: true, subscriber: toV2Subscriber(record, settings) };
}

/**
 * `DELETE /subscribers/{id|email}`: the subscriber and everything stored for it, opens and
 * clicks included, by the operation `delete_subscriber` runs (one implementation).
 */
export async function deleteV2Subscriber(
  deps: V2SubscriberDependencies & Dependencies,
  reference: string,
): Promise<'Deleted' | NewsletterError> {
  const record = await findSubscriber(deps, reference);
  if (!record) return subscriberNotFound();
  const deleted = await deleteSubscriber(deps, { email: record.email });
  if (isNewsletterError(deleted))
    return deleted.code === 'not_found' ? subscriberNotFound() : deleted;
  return 'Deleted';
}

/** How a v2 write was made, for its event: a signed-in person is the console. */
function viaOf(context: CallContext & { readonly person?: unknown }): ChangeVia {
  return context.person !== undefined ? 'console' : 'api';
}
