import * as v from 'valibot';

/**
 * What an operator configures (decisions part 7), as stored in the settings parameter (JSON).
 * Every field but `lists`, `sender` has a safe default, so a minimal document is short.
 */

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));

/** A mail text: subject and body with `{placeholders}`; the HTML part is derived from the body. */
const MailTextSchema = v.strictObject({
  subject: v.pipe(text(200), v.minLength(1), v.regex(/^[^\r\n]*$/, 'must be one line')),
  body: v.pipe(text(10_000), v.minLength(1)),
});

const ListSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  name: v.pipe(text(100), v.minLength(1)),
  private: v.optional(v.boolean(), false),
  preassigned: v.optional(v.boolean(), false),
});

const ProfileFieldSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_]{1,32}$/, 'must be 1-32 letters, digits or _')),
  name: v.pipe(text(100), v.minLength(1)),
});

/** An absolute http(s) URL, or empty for "not set". */
const httpUrl = v.union([
  v.literal(''),
  v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//, 'must be http(s)')),
]);

const emailAddress = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.email(), v.maxLength(254));

/**
 * Public-form fields an operator can make required: the named fields, `profile_<id>`, and
 * `privacy` (the privacy checkbox ticked).
 */
const RequiredFieldSchema = v.pipe(
  v.string(),
  v.regex(
    /^(name|surname|gender|privacy|profile_[A-Za-z0-9_]{1,32})$/,
    'must be name, surname, gender, privacy or profile_<id>',
  ),
);

/**
 * Tags a campaign may give a fallback for ([campaign.empty-values]): the values a person may
 * leave empty (the web version leaves `email` empty too), never `{unsubscription_url}`.
 */
const FallbackTagSchema = v.pipe(
  v.string(),
  v.regex(
    /^(name|surname|email|profile_[A-Za-z0-9_]{1,32})$/,
    'must be name, surname, email or profile_<id>',
  ),
);

/**
 * A tag's fallback: operator text filled in as a value is (escaped in HTML), so one line of at
 * most 100 characters, without controls, line separators or bidi controls (a value has them
 * cleaned away; here the operator is there to fix it), and not blank.
 */
const FallbackSchema = v.pipe(
  text(100),
  v.regex(/\S/, 'must not be blank'),
  v.regex(
    /^[^\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]*$/u,
    'must be one line without control characters',
  ),
);

/** A cooldown below this would let a form mail an address every few seconds. */
export const MIN_RESEND_COOLDOWN_MINUTES = 5;

export const DEFAULT_TEXTS = {
  activation: {
    subject: 'Please confirm your subscription',
    body: 'Hello {name},\n\nplease confirm your subscription to our newsletter by opening this link:\n\n{confirm_url}\n\nIf you did not ask for this, ignore this message and nothing will happen.',
  },
  welcome: {
    subject: 'Welcome to our newsletter',
    body: 'Hello {name},\n\nyour subscription is confirmed. Welcome!\n\nYou can unsubscribe at any time:\n\n{unsubscribe_url}',
  },
  admin: {
    subject: 'New confirmed subscriber',
    body: 'A subscriber has been confirmed:\n\n{email}\nName: {name} {surname}\nLists: {lists}',
  },
} as const;

/** The settings document; `v.parse` fills the defaults. */
export const SettingsSchema = v.pipe(
  v.strictObject({
    opt_in: v.optional(v.picklist(['double', 'single']), 'double'),
    required_public_fields: v.optional(v.array(RequiredFieldSchema), []),
    lists: v.pipe(v.array(ListSchema), v.maxLength(1000)),
    /**
     * The id the next list gets, once a list was deleted: written by `lists delete` so that a
     * deleted list's id, which its former members keep, is never given to another list
     * ([v2.lists-delete]). Absent, the next id is one more than the highest.
     */
    next_list_id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    profile_fields: v.optional(v.pipe(v.array(ProfileFieldSchema), v.maxLength(100)), []),
    /**
     * A profile field the settings do not define: `ignore` (the default, as the original did)
     * stores the subscriber without it, names it in a keyed answer, logs and counts it;
     * `reject` makes the call a 400 `unknown_profile_field`. A lost signup costs more than a
     * lost field: clients ignore the status code, so a 400 silently loses the person.
     */
    unknown_profile_fields: v.optional(v.picklist(['ignore', 'reject']), 'ignore'),
    sender: v.strictObject({
      address: emailAddress,
      name: v.optional(v.pipe(text(100), v.regex(/^[^\r\n]*$/, 'must be one line')), ''),
    }),
    /** Receives a notification when a subscriber becomes confirmed; empty turns it off. */
    admin_address: v.optional(v.union([v.literal(''), emailAddress]), ''),
    activation_lifetime_hours: v.optional(
      v.pipe(v.number(), v.minValue(1), v.maxValue(24 * 90)),
      24 * 7,
    ),
    /**
     * The least time between two activation mails to one address. Its minimum keeps a mailbox
     * from being flooded even when the cap below is set high.
     */
    resend_cooldown_minutes: v.optional(
      v.pipe(v.number(), v.minValue(MIN_RESEND_COOLDOWN_MINUTES), v.maxValue(24 * 60)),
      10,
    ),
    /** At most this many activation mails per address in any rolling window. */
    activation_cap: v.optional(
      v.strictObject({
        max_mails: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)),
        window_hours: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24 * 7)),
      }),
      { max_mails: 3, window_hours: 24 },
    ),
    /** An `S` subscriber that never confirms is deleted (DynamoDB TTL) this long after its last activation mail. */
    unconfirmed_expiry_days: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(365)),
      30,
    ),
    /** How long an unsubscribe link in a sent mail keeps working (CAN-SPAM asks for 30 days). */
    unsubscribe_link_lifetime_days: v.optional(
      v.pipe(v.number(), v.minValue(30), v.maxValue(3650)),
      365,
    ),
    /**
     * Transient bounces in a row (SES feedback: a full mailbox, a server that keeps deferring)
     * that make a subscriber `B`; a delivery starts the count again.
     */
    transient_bounce_limit: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
      3,
    ),
    texts: v.optional(
      v.strictObject({
        activation: v.optional(MailTextSchema, DEFAULT_TEXTS.activation),
        welcome: v.optional(MailTextSchema, DEFAULT_TEXTS.welcome),
        admin: v.optional(MailTextSchema, DEFAULT_TEXTS.admin),
      }),
      {},
    ),
    /**
     * Name of a hidden form field that people leave empty and bots fill in. A keyless
     * subscribe with it filled gets the usual answer and changes nothing. Empty: off.
     */
    honeypot_field: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^([A-Za-z][A-Za-z0-9_]{0,31})?$/, 'must be a form field name or empty'),
      ),
      'nl_website',
    ),
    /** Keyless subscribe calls allowed per client IP and window; 0 turns the limit off. */
    public_rate_limit: v.optional(
      v.strictObject({
        max_requests: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000)),
        window_minutes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24 * 60)),
      }),
      { max_requests: 20, window_minutes: 10 },
    ),
    /**
     * Where a browser lands after posting a plain HTML form to /subscribe: a 303 to the
     * success URL, or to the error URL with `?error=<code>`. Empty: a hosted page instead.
     */
    form_success_url: v.optional(httpUrl, ''),
    form_error_url: v.optional(httpUrl, ''),
    /** Links in mails use this (e.g. `https://news.example.com/api/newsletter/v1`) when set. */
    public_base_url: v.optional(httpUrl, ''),
    /** Sending newsletter issues (decisions part 10; docs/behaviour.md, "Campaigns"). */
    campaign: v.optional(
      v.strictObject({
        /**
         * Mails per second campaign mail is sent at most, all campaigns and workers together
         * (the account's send budget, [campaign.budget]). Unset: 80% of the account's SES
         * maximum send rate, which is also the ceiling of any rate set here.
         */
        rate: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(10_000))),
        /**
         * What a send does while another campaign is sending ([campaign.overlap]): `share`
         * (both send at once, sharing the budget's rate) or `wait` (it waits its turn, and
         * starts once no other campaign is sending).
         */
        overlap: v.optional(v.picklist(['share', 'wait']), 'share'),
        /** Failed sends in a row that pause a campaign (and raise an alarm). */
        failure_limit: v.optional(
          v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
          20,
        ),
        /** Minutes without a mail settled after which a sending campaign counts as stalled. */
        stall_minutes: v.optional(
          v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(24 * 60)),
          10,
        ),
        /**
         * Minutes a schedule may fire after its time and still send ([campaign.schedule-late]):
         * later than that (the service was down, EventBridge was late) it does not send.
         */
        schedule_lateness_minutes: v.optional(
          v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24 * 60)),
          15,
        ),
        /**
         * What a tag renders as when the value is empty ([campaign.empty-values]), e.g.
         * `{"name": "reader"}`: "Hello {name}," reads "Hello reader," to a subscriber without a
         * name and on the web version. A tag without one renders empty.
         */
        tag_fallbacks: v.optional(v.record(FallbackTagSchema, FallbackSchema), {}),
        /**
         * Opens and clicks ([engagement.modes]): `off` (not tracked), `counts` (per issue and
         * per link only), `individual` (each recipient's first open and click in the CSV too).
         */
        tracking: v.optional(v.picklist(['off', 'counts', 'individual']), 'counts'),
      }),
      {
        overlap: 'share' as const,
        failure_limit: 20,
        stall_minutes: 10,
        schedule_lateness_minutes: 15,
        tracking: 'counts' as const,
      },
    ),
  }),
  v.check(
    (s) => new Set(s.lists.map((l) => l.id)).size === s.lists.length,
    'lists: ids must be unique',
  ),
  v.check(
    (s) => new Set(s.profile_fields.map((f) => f.id)).size === s.profile_fields.length,
    'profile_fields: ids must be unique',
  ),
  v.check(
    (s) => _unknownFallbackTag(s) === undefined,
    (issue) =>
      `campaign.tag_fallbacks: ${_unknownFallbackTag(issue.input as _FallbackTags) ?? ''} names no field of profile_fields`,
  ),
);

/** What the fallback check reads of the settings. */
interface _FallbackTags {
  readonly profile_fields: readonly { readonly id: string }[];
  readonly campaign: { readonly tag_fallbacks: Readonly<Record<string, string>> };
}

/** The first `profile_<id>` fallback whose field the settings do not define. */
function _unknownFallbackTag(settings: _FallbackTags): string | undefined {
  const fields = new Set(settings.profile_fields.map((field) => `profile_${field.id}`));
  return Object.keys(settings.campaign.tag_fallbacks).find(
    (tag) => tag.startsWith('profile_') && !fields.has(tag),
  );
}

/** Settings as the domain layer uses them, defaults filled in. */
export type Settings = v.InferOutput<typeof SettingsSchema>;
/** Settings as an operator writes them. */
export type SettingsInput = v.InferInput<typeof SettingsSchema>;
/** One configured list. */
export type ListSetting = Settings['lists'][number];
/** The name of a configurable mail text. */
export type MailTextName = keyof typeof DEFAULT_TEXTS;
