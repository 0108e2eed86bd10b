import * as v from 'valibot';
import type { MailFeedback } from '../../domain/decide-feedback.ts';

/** A recipient as SES reports it, normalised the way subscribers are keyed. */
const RecipientSchema = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.nonEmpty());

/** The `mail` object every event carries; SES adds fields over time, so objects are loose. */
const MailSchema = v.looseObject({
  messageId: v.pipe(v.string(), v.nonEmpty()),
  /** The message tags of the send (`newsletter` on a campaign mail), each a list of values. */
  tags: v.optional(v.record(v.string(), v.array(v.string()))),
});

/** The issue a campaign mail belongs to, from its `newsletter` tag. */
function newsletterOf(mail: v.InferOutput<typeof MailSchema>): { newsletterId?: number } {
  const value = mail.tags?.newsletter?.[0];
  return value && /^[1-9][0-9]{0,14}$/.test(value) ? { newsletterId: Number(value) } : {};
}

/**
 * The three event types the feedback rules read, in SES's event-publishing shape (`eventType`)
 * or its older notification shape (`notificationType`, normalised to `type` before parsing).
 */
const FeedbackEventSchema = v.variant('type', [
  v.looseObject({
    type: v.literal('Bounce'),
    mail: MailSchema,
    bounce: v.looseObject({
      bounceType: v.picklist(['Permanent', 'Transient', 'Undetermined']),
      bounceSubType: v.optional(v.string(), ''),
      bouncedRecipients: v.pipe(
        v.array(v.looseObject({ emailAddress: RecipientSchema })),
        v.minLength(1),
      ),
    }),
  }),
  v.looseObject({
    type: v.literal('Complaint'),
    mail: MailSchema,
    complaint: v.looseObject({
      complainedRecipients: v.pipe(
        v.array(v.looseObject({ emailAddress: RecipientSchema })),
        v.minLength(1),
      ),
      complaintFeedbackType: v.optional(v.string(), ''),
    }),
  }),
  v.looseObject({
    type: v.literal('Delivery'),
    mail: MailSchema,
    delivery: v.looseObject({ recipients: v.pipe(v.array(RecipientSchema), v.minLength(1)) }),
  }),
]);

/** Which field names the event type: `eventType` (event publishing) or `notificationType`. */
const TypedSchema = v.looseObject({
  eventType: v.optional(v.string()),
  notificationType: v.optional(v.string()),
});

/** What a message from the feedback topic turned out to be. */
export type SesEventReading =
  | { readonly kind: 'feedback'; readonly feedback: MailFeedback }
  /** A well-formed event of a type the rules do not read (Send, Open, DeliveryDelay, ...). */
  | { readonly kind: 'ignored'; readonly eventType: string }
  /** Not an SES event; `issue` names where, never a value (values can be addresses). */
  | { readonly kind: 'malformed'; readonly issue: string };

const FEEDBACK_TYPES = new Set(['Bounce', 'Complaint', 'Delivery']);

/** Where a parse failed and what was expected there, without the value found. */
function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const [first] = issues;
  if (!first) return 'unreadable';
  return `${v.getDotPath(first) ?? '(root)'}: expected ${first.expected ?? 'something else'}`;
}

/**
 * Reads the `Message` of an SNS notification from the feedback topic: the JSON of one SES
 * event. Never throws: a message that cannot be read is reported as malformed, so the function
 * drops it instead of having Lambda retry what will never parse.
 */
export function readSesEvent(message: string): SesEventReading {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return { kind: 'malformed', issue: 'not JSON' };
  }
  const typed = v.safeParse(TypedSchema, json);
  const type = typed.success
    ? (typed.output.eventType ?? typed.output.notificationType)
    : undefined;
  if (!typed.success || type === undefined) {
    return { kind: 'malformed', issue: 'no eventType or notificationType' };
  }
  if (!FEEDBACK_TYPES.has(type)) return { kind: 'ignored', eventType: type };
  const parsed = v.safeParse(FeedbackEventSchema, { ...typed.output, type });
  if (!parsed.success) return { kind: 'malformed', issue: describeIssues(parsed.issues) };
  const event = parsed.output;
  const mailId = event.mail.messageId;
  const campaign = newsletterOf(event.mail);
  switch (event.type) {
    case 'Bounce':
      return {
        kind: 'feedback',
        feedback: {
          kind: event.bounce.bounceType === 'Permanent' ? 'hard-bounce' : 'soft-bounce',
          mailId,
          recipients: event.bounce.bouncedRecipients.map((recipient) => recipient.emailAddress),
          detail: `${event.bounce.bounceType}/${event.bounce.bounceSubType}`,
          ...campaign,
        },
      };
    case 'Complaint':
      return {
        kind: 'feedback',
        feedback: {
          kind: 'complaint',
          mailId,
          recipients: event.complaint.complainedRecipients.map((each) => each.emailAddress),
          detail: event.complaint.complaintFeedbackType,
          ...campaign,
        },
      };
    case 'Delivery':
      return {
        kind: 'feedback',
        feedback: {
          kind: 'delivery',
          mailId,
          recipients: event.delivery.recipients,
          detail: 'delivered',
        },
      };
  }
}
