import * as v from 'valibot';
import {
  type EngagementEvent,
  idOfTag,
  mailTokenOfTag,
} from '../../domain/engagement/engagement.ts';

/** The SNS notification an SQS subscription of the engagement topic receives (not raw). */
const EnvelopeSchema = v.looseObject({
  Type: v.literal('Notification'),
  MessageId: v.pipe(v.string(), v.nonEmpty(), v.maxLength(100)),
  Message: v.string(),
});

const TimestampSchema = v.pipe(v.string(), v.isoTimestamp());

/** SES's Open and Click events (event publishing); SES adds fields over time, so loose. */
const EngagementEventSchema = v.variant('eventType', [
  v.looseObject({
    eventType: v.literal('Open'),
    mail: v.looseObject({ tags: v.optional(v.record(v.string(), v.array(v.string()))) }),
    open: v.looseObject({ timestamp: TimestampSchema }),
  }),
  v.looseObject({
    eventType: v.literal('Click'),
    mail: v.looseObject({ tags: v.optional(v.record(v.string(), v.array(v.string()))) }),
    click: v.looseObject({
      timestamp: TimestampSchema,
      link: v.pipe(v.string(), v.url(), v.maxLength(2048)),
    }),
  }),
]);

/** What one message of the engagement queue turned out to be. */
export type EngagementReading =
  | { readonly kind: 'event'; readonly event: EngagementEvent }
  /** Well-formed, but not an open or click of a campaign mail (no issue or recipient tags). */
  | { readonly kind: 'ignored'; readonly why: string }
  /** Not an SNS notification of an SES event; `issue` names where, never a value. */
  | { readonly kind: 'malformed'; readonly issue: string };

/**
 * Reads one message of the engagement queue: SNS's notification (its `MessageId` is the same
 * on a repeated delivery, so it identifies the event), holding SES's Open or Click event whose
 * mail tags name the issue and the recipient. Never throws.
 */
export function readEngagementEvent(body: string): EngagementReading {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return { kind: 'malformed', issue: 'not JSON' };
  }
  const notification = v.safeParse(EnvelopeSchema, envelope);
  if (!notification.success) return { kind: 'malformed', issue: 'not an SNS notification' };
  let json: unknown;
  try {
    json = JSON.parse(notification.output.Message);
  } catch {
    return { kind: 'malformed', issue: 'Message: not JSON' };
  }
  const type = (json as { eventType?: unknown } | null)?.eventType;
  if (type !== 'Open' && type !== 'Click')
    return { kind: 'ignored', why: `event type ${String(type).slice(0, 40)}` };
  const parsed = v.safeParse(EngagementEventSchema, json);
  if (!parsed.success) {
    const first = parsed.issues[0];
    return {
      kind: 'malformed',
      issue: first ? `${v.getDotPath(first) ?? '(root)'}: expected ${first.expected}` : 'event',
    };
  }
  const ses = parsed.output;
  const newsletterId = idOfTag(ses.mail.tags?.newsletter);
  const subscriberId = idOfTag(ses.mail.tags?.subscriber);
  // A test mail, or mail sent before the tags existed: nothing to tie it to.
  if (newsletterId === undefined || subscriberId === undefined)
    return { kind: 'ignored', why: 'no newsletter and subscriber tags' };
  const eventId = notification.output.MessageId;
  // Mail sent before mails carried a token has none ([engagement.mail-token]).
  const token = mailTokenOfTag(ses.mail.tags?.mail);
  const mail = token === undefined ? {} : { mail: token };
  const event: EngagementEvent =
    ses.eventType === 'Open'
      ? { kind: 'open', newsletterId, subscriberId, at: ses.open.timestamp, eventId, ...mail }
      : {
          kind: 'click',
          newsletterId,
          subscriberId,
          at: ses.click.timestamp,
          link: ses.click.link,
          eventId,
          ...mail,
        };
  return { kind: 'event', event };
}
