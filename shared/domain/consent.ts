import * as v from 'valibot';

/** How a subscriber joined: the evidence a sender shows when asked where consent came from. */
export const JOIN_CHANNELS = ['public_form', 'api', 'function_class', 'import', 'cli'] as const;

/** A channel of `JOIN_CHANNELS`. */
export type JoinChannel = (typeof JOIN_CHANNELS)[number];

const ConsentEventSchema = v.strictObject({
  at: v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 time, UTC.')),
  ip: v.optional(v.pipe(v.string(), v.description('Client IP address of the request.'))),
  user_agent: v.optional(v.pipe(v.string(), v.description('User-Agent of the request.'))),
});

/**
 * The consent evidence kept with a subscriber: how and when it subscribed and, in double
 * opt-in, when it confirmed, with the client address and user agent of each request. Shown to
 * keyed callers and exports only; deleted with the subscriber.
 */
export const ConsentSchema = v.pipe(
  v.strictObject({
    channel: v.pipe(
      v.picklist(JOIN_CHANNELS),
      v.description(
        'public_form: a keyless subscribe; api: a keyed REST call; function_class: an in-process call; import: the CLI import; cli: an operator command.',
      ),
    ),
    subscribed: ConsentEventSchema,
    confirmed: v.optional(ConsentEventSchema),
  }),
  v.title('Consent'),
);

/** One request of the consent evidence. */
export type ConsentEvent = Readonly<v.InferOutput<typeof ConsentEventSchema>>;

/** The consent evidence of a subscriber. */
export type Consent = Readonly<v.InferOutput<typeof ConsentSchema>>;

/** The longest user agent kept: enough to recognise a client, too short to store a payload. */
const MAX_USER_AGENT = 256;

/** A consent event for a request at `at` from what the request carried. */
export function consentEvent(
  at: Date,
  request: { readonly clientIp?: string; readonly userAgent?: string },
): ConsentEvent {
  return {
    at: at.toISOString(),
    ...(request.clientIp ? { ip: request.clientIp } : {}),
    ...(request.userAgent ? { user_agent: request.userAgent.slice(0, MAX_USER_AGENT) } : {}),
  };
}
