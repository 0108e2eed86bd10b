import * as v from 'valibot';

/**
 * Every event the service publishes (docs/api.md, "Events"): on its EventBridge bus as the
 * `detail` of an event whose `detail-type` is the type, and to webhooks as the POSTed body.
 * One schema per type, the source of the types and of the API description.
 */

/** `source` of every event on the bus. */
export const EVENT_SOURCE = 'serverless-newsletter';

const isoTime = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 time, UTC.'));
const email = v.pipe(v.string(), v.email());
const listId = v.pipe(v.number(), v.integer(), v.description('The list (settings id).'));

/**
 * How a subscriber's change was made: `link` (a link in a mail), `one_click` (RFC 8058
 * one-click unsubscribe), `api` (a keyed call of either API, or an in-process call), `console`
 * (a signed-in person), `import`, `public_form` (a keyless subscribe), `cli`.
 */
export const CHANGE_VIA = [
  'link',
  'one_click',
  'api',
  'console',
  'import',
  'public_form',
  'cli',
] as const;

/** A value of CHANGE_VIA. */
export type ChangeVia = (typeof CHANGE_VIA)[number];

const how = v.pipe(v.picklist(CHANGE_VIA), v.description('How the change was made.'));

/** Subscriber fields an `updated` event names. */
export const UPDATED_FIELDS = [
  'email',
  'name',
  'surname',
  'gender',
  'lists',
  'profile',
  'status',
  'place',
  'language',
] as const;

/** What each event type carries in `data`. */
export const EVENT_DATA = {
  'subscriber.subscribed': v.object({
    email,
    lists: v.array(listId),
    how,
  }),
  'subscriber.confirmed': v.object({
    email,
    lists: v.array(listId),
    how,
  }),
  'subscriber.updated': v.object({
    email,
    fields: v.pipe(
      v.array(v.picklist(UPDATED_FIELDS)),
      v.description('The fields the change changed (read the subscriber for their values).'),
    ),
  }),
  'subscriber.list.joined': v.object({ email, list_id: listId }),
  'subscriber.list.left': v.object({ email, list_id: listId }),
  'subscriber.unsubscribed': v.object({ email, how }),
  'subscriber.bounced': v.object({ email }),
  'subscriber.complained': v.object({ email }),
  'subscriber.deleted': v.pipe(
    v.object({}),
    v.description('No personal data: the subscriber id is all that is left.'),
  ),
  'subscriber.expired': v.pipe(
    v.object({}),
    v.description(
      'A pending subscriber who never confirmed, removed after its activation expired; no personal data.',
    ),
  ),
  'issue.scheduled': v.object({ subject: v.string(), scheduled_at: isoTime }),
  'issue.sending': v.object({
    subject: v.string(),
    run: v.pipe(v.number(), v.description('1 for the first send, more for a send to the new.')),
    lists: v.array(listId),
  }),
  'issue.paused': v.object({
    subject: v.string(),
    reason: v.pipe(
      v.string(),
      v.description(
        'operator, quota (the daily quota ran out), failures (failed sends in a row), or the account refusal SES gave (account_paused, account_suspended, sender_unverified, sandbox, configuration_set, access_denied).',
      ),
    ),
  }),
  'issue.sent': v.object({
    subject: v.string(),
    run: v.number(),
    total: v.number(),
    sent: v.number(),
    skipped: v.number(),
    failed: v.number(),
  }),
  'issue.cancelled': v.object({ subject: v.string() }),
  'engagement.opened': v.pipe(
    v.object({}),
    v.description(
      "A recipient's first open of an issue, as SES reported it; only under `individual` tracking.",
    ),
  ),
  'engagement.clicked': v.pipe(
    v.object({}),
    v.description(
      "A recipient's first click of a link of an issue; only under `individual` tracking.",
    ),
  ),
} as const;

/** Every event type. */
export type EventType = keyof typeof EVENT_DATA;

/** The event types, in the catalogue's order. */
export const EVENT_TYPES = Object.keys(EVENT_DATA) as EventType[];

/** What an event of `type` carries in `data`. */
export type EventData<T extends EventType> = v.InferOutput<(typeof EVENT_DATA)[T]>;

/** What every event carries besides its data (the envelope). */
const envelope = {
  id: v.pipe(
    v.string(),
    v.regex(/^evt_[0-9a-f]{32}$/),
    v.description(
      'Stable: the same change always makes the same id, so a receiver that sees an id twice drops the second (delivery is at least once).',
    ),
  ),
  time: v.pipe(isoTime, v.description('When the change was made.')),
  sequence: v.pipe(
    v.string(),
    v.regex(/^\d+$/),
    v.description(
      "Orders one subscriber's (one issue's) events: a later change has a larger number (compare as integers); the events of one change share it.",
    ),
  ),
};

const subscriberId = v.pipe(v.number(), v.integer(), v.minValue(1));
const issueId = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The schema of a whole event of one type: the envelope, the subject's id, the data. */
export function eventSchema(type: EventType): v.GenericSchema {
  const subject: v.ObjectEntries = type.startsWith('issue.')
    ? { issue_id: issueId }
    : type.startsWith('engagement.')
      ? { issue_id: issueId, subscriber_id: subscriberId }
      : { subscriber_id: subscriberId };
  return v.pipe(
    v.strictObject({
      ...envelope,
      type: v.literal(type),
      ...subject,
      data: EVENT_DATA[type] as v.GenericSchema,
    }),
    v.title(`Event ${type}`),
  );
}

/** An event as published. */
export type NewsletterEvent = {
  readonly id: string;
  readonly time: string;
  readonly sequence: string;
} & {
  readonly [T in EventType]: T extends `issue.${string}`
    ? { readonly type: T; readonly issue_id: number; readonly data: EventData<T> }
    : T extends `engagement.${string}`
      ? {
          readonly type: T;
          readonly issue_id: number;
          readonly subscriber_id: number;
          readonly data: EventData<T>;
        }
      : { readonly type: T; readonly subscriber_id: number; readonly data: EventData<T> };
}[EventType];
