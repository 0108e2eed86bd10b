import * as v from 'valibot';
import { IMPORT_SOURCES } from '../import-sources.ts';

/**
 * The answers of API v2 besides the subscriber (`v2-subscriber.ts`), as the original shapes
 * them (`original-v2.md`, "Shapes"); they document the API (OpenAPI) and type the operations.
 */

/** A list: `{id, name}`. */
export const V2ListSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    name: v.string(),
    subscribers: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.description(
          'Ours, in GET /lists: the confirmed members, from the subscriber counts (absent until `subscribers reindex` has counted an older table).',
        ),
      ),
    ),
  }),
  v.title('V2List'),
);
export type V2List = v.InferOutput<typeof V2ListSchema>;

/** An extra field: the original's `{id, name}`; our profile field ids are words, not numbers. */
export const V2ExtraFieldSchema = v.pipe(
  v.strictObject({ id: v.string(), name: v.string() }),
  v.title('V2ExtraField'),
);
export type V2ExtraField = v.InferOutput<typeof V2ExtraFieldSchema>;

/**
 * A newsletter: the original's `{id, subject, html_content, plain_content, sent_on}`; a keyed
 * caller also gets the issue's `status`, `private` and sending counts (our extension).
 */
export const V2NewsletterSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    subject: v.string(),
    html_content: v.string(),
    plain_content: v.string(),
    sent_on: v.pipe(
      v.nullable(v.string()),
      v.description('ISO 8601 time the sending finished; null until then.'),
    ),
    status: v.optional(v.string()),
    private: v.optional(v.boolean()),
    total: v.optional(v.number()),
    sent: v.optional(v.number()),
    lists: v.optional(
      v.pipe(
        v.array(v.number()),
        v.description('Ours, keyed GET /newsletters/{id} only: the lists it goes to.'),
      ),
    ),
    scheduled_at: v.optional(
      v.pipe(
        v.nullable(v.string()),
        v.description('Ours, keyed GET /newsletters/{id} only: when a scheduled issue starts.'),
      ),
    ),
    url: v.optional(
      v.pipe(
        v.nullable(v.string()),
        v.description(
          "Ours, keyed GET /newsletters/{id} only: the issue's own address (url), null when it has none.",
        ),
      ),
    ),
  }),
  v.title('V2Newsletter'),
);
export type V2Newsletter = v.InferOutput<typeof V2NewsletterSchema>;

/** `GET /test`: `{}`, as the original. */
export const V2EmptySchema = v.pipe(v.strictObject({}), v.title('V2Empty'));

/** `DELETE /subscribers/{id}`: the bare JSON string `"Deleted"`, as the original. */
export const V2DeletedSchema = v.pipe(v.literal('Deleted'), v.title('V2Deleted'));

/** Parameters of a v2 collection, for the API description. */
export const V2PageRequestSchema = v.looseObject({
  page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Default 1.'))),
  per_page: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100), v.description('Default 10.')),
  ),
});

/** Parameters of `GET /subscribers`. */
export const V2SubscriberQuerySchema = v.looseObject({
  ...V2PageRequestSchema.entries,
  order: v.optional(v.pipe(v.picklist(['desc', 'asc']), v.description('desc: newest first.'))),
  status: v.optional(v.string()),
  list: v.optional(v.pipe(v.number(), v.integer())),
  search: v.optional(v.pipe(v.string(), v.description('The start of the address.'))),
});

/** A path's `{id}`. */
export const V2IdRequestSchema = v.looseObject({ id: v.string() });

/** The body of an issue's send (v2-issue-send.ts reads it with sendFlags). */
export const V2SendRequestSchema = v.looseObject({
  ...V2IdRequestSchema.entries,
  new_only: v.optional(
    v.pipe(v.boolean(), v.description('Send to the subscribers it has not reached yet.')),
  ),
  accept_quota: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Go on although the send does not fit in the account's daily SES quota (else 409 over_quota).",
      ),
    ),
  ),
});

/** The body of a subscriber write (v2-subscriber.ts parses it). */
export const V2SubscriberWriteSchema = v.looseObject({
  email: v.optional(v.string()),
  first_name: v.optional(v.nullable(v.string())),
  last_name: v.optional(v.nullable(v.string())),
  gender: v.optional(v.nullable(v.picklist(['M', 'F', 'N', 'm', 'f', 'n', '']))),
  language: v.optional(v.nullable(v.string())),
  country: v.optional(v.nullable(v.string())),
  region: v.optional(v.nullable(v.string())),
  city: v.optional(v.nullable(v.string())),
  status: v.optional(v.nullable(v.picklist(['confirmed', 'not_confirmed', 'unsubscribed']))),
  lists: v.optional(
    v.array(
      v.union([
        v.pipe(v.number(), v.integer(), v.description('A list id; negative: remove it.')),
        v.object({ id: v.number(), value: v.picklist([0, 1]) }),
      ]),
    ),
  ),
  extra_fields: v.optional(v.array(v.object({ id: v.string(), value: v.string() }))),
});

/** An issue as the management routes answer it (ours). */
export const V2IssueSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    subject: v.string(),
    status: v.picklist(['draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled']),
    private: v.boolean(),
    lists: v.array(v.number()),
    url: v.optional(v.string()),
    scheduled_at: v.optional(v.string()),
    sent_on: v.nullable(v.string()),
    total: v.number(),
    sent: v.number(),
    skipped: v.number(),
    failed: v.number(),
    warnings: v.optional(v.array(v.string())),
  }),
  v.title('V2Issue'),
);

/** A test send's answer: the issue and who it goes to. */
export const V2TestSendSchema = v.pipe(
  v.strictObject({ newsletter_id: v.number(), to: v.array(v.string()) }),
  v.title('V2TestSend'),
);

/** The body of an issue write. */
export const V2IssueWriteSchema = v.looseObject({
  subject: v.optional(v.string()),
  html: v.optional(v.string()),
  text: v.optional(v.string()),
  lists: v.optional(v.array(v.number())),
  private: v.optional(v.boolean()),
  url: v.optional(v.nullable(v.string())),
  to: v.optional(v.array(v.string())),
  new_only: v.optional(v.boolean()),
});

/** The body of an issue's scheduling (v2-issue-schedule.ts; `DELETE` takes none). */
export const V2ScheduleRequestSchema = v.looseObject({
  ...V2IdRequestSchema.entries,
  at: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'POST: when the send starts, ISO 8601 with a zone (2026-12-01T09:00:00Z), in the future and within a year.',
      ),
    ),
  ),
});

/** The query of an issue's report: where a CSV part starts (v2-issue-report.ts). */
export const V2ReportRequestSchema = v.looseObject({
  ...V2IdRequestSchema.entries,
  after: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'CSV only: the subscriber id the previous part ended with, as its Link rel="next" gives it.',
      ),
    ),
  ),
});

/** An issue's report as JSON (`Accept: text/csv`: one row per recipient instead). */
export const V2ReportSchema = v.pipe(
  v.looseObject({ newsletter_id: v.number() }),
  v.title('V2Report'),
);

/** The body of a list write (ours). */
export const V2ListWriteSchema = v.looseObject({
  id: v.optional(v.string()),
  name: v.optional(v.pipe(v.string(), v.description('1-100 characters; required to create.'))),
  private: v.optional(v.boolean()),
  preassigned: v.optional(v.boolean()),
});

/** The query of an issue's audience (v2-issue-audience.ts). */
export const V2AudienceRequestSchema = v.looseObject({
  ...V2IdRequestSchema.entries,
  new_only: v.optional(
    v.pipe(v.boolean(), v.description('Count only the subscribers it has not reached yet.')),
  ),
});

/** How many an issue's send would reach now, and whether it fits SES's daily quota (ours). */
export const V2AudienceSchema = v.pipe(
  v.strictObject({
    newsletter_id: v.number(),
    new_only: v.boolean(),
    recipients: v.pipe(v.number(), v.integer(), v.minValue(0)),
    quota: v.nullable(
      v.strictObject({
        max_24_hour_send: v.number(),
        sent_last_24_hours: v.number(),
        room: v.number(),
      }),
    ),
    fits: v.nullable(v.boolean()),
    warning: v.nullable(v.string()),
  }),
  v.title('V2Audience'),
);

/** A rate with SES's levels (shared/domain/ses-reputation.ts). */
const V2ReputationRateSchema = v.strictObject({
  rate: v.nullable(v.number()),
  review_at: v.number(),
  pause_at: v.number(),
  state: v.picklist(['none', 'ok', 'review', 'pause']),
});

/** The SES account: quota, rate, bounce and complaint rates (ours, `GET /account`). */
export const V2AccountSchema = v.pipe(
  v.strictObject({
    max_24_hour_send: v.number(),
    sent_last_24_hours: v.number(),
    max_send_rate: v.number(),
    statistics: v.strictObject({
      since: v.string(),
      delivery_attempts: v.number(),
      bounces: v.number(),
      complaints: v.number(),
      rejects: v.number(),
    }),
    bounce_rate: V2ReputationRateSchema,
    complaint_rate: V2ReputationRateSchema,
  }),
  v.title('V2Account'),
);

/** The body of a settings replacement (ours, `PUT /settings`). */
export const V2SettingsWriteSchema = v.looseObject({
  settings: v.optional(
    v.pipe(
      v.union([v.looseObject({}), v.string()]),
      v.description(
        'PUT: the whole settings document (or its JSON text), as `npx newsletter settings set` takes it.',
      ),
    ),
  ),
  version: v.optional(
    v.pipe(
      v.number(),
      v.description('PUT: replace only while the stored document is still at this version.'),
    ),
  ),
});

/** The settings document as stored (GET), or what a replacement wrote (PUT). */
export const V2SettingsSchema = v.pipe(
  v.union([
    v.strictObject({
      settings: v.unknown(),
      version: v.number(),
      problem: v.nullable(v.string()),
    }),
    v.strictObject({ version: v.number(), tier: v.string() }),
  ]),
  v.title('V2Settings'),
);

/** The query of a subscriber's issues: where the page starts (v2-subscriber-issues.ts). */
export const V2SubscriberIssuesRequestSchema = v.looseObject({
  ...V2IdRequestSchema.entries,
  before: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'An issue id: the page reads issues below it, as its Link rel="next" gives it.',
      ),
    ),
  ),
});

/** The issues a subscriber got, newest first (ours). */
export const V2SubscriberIssuesSchema = v.pipe(
  v.array(
    v.strictObject({
      id: v.number(),
      subject: v.string(),
      outcome: v.picklist(['sent', 'skipped', 'failed']),
      at: v.nullable(v.string()),
      reason: v.optional(v.string()),
      opened_at: v.optional(v.string()),
      clicked_at: v.optional(v.string()),
      bounced_at: v.optional(v.string()),
      complained_at: v.optional(v.string()),
      unsubscribed_at: v.optional(v.string()),
    }),
  ),
  v.title('V2SubscriberIssues'),
);

/** The query of a CSV part's import (the body is the part, `text/csv`). */
export const V2ImportRequestSchema = v.looseObject({
  status: v.optional(
    v.pipe(
      v.picklist(['S', 'C']),
      v.description(
        "Status of rows without a status cell, and of the people another source mails without naming their state: C (default) or S, as the CLI. A source's unsubscribed, cleaned, bounced, disabled or blocklisted people keep a status that blocks mail whatever this says.",
      ),
    ),
  ),
  source: v.optional(
    v.pipe(
      v.picklist(IMPORT_SOURCES),
      v.description(
        "Whose export the part is ([import.sources]): newsletter (ours, the default), original (the WordPress plugin's), mailchimp, listmonk or substack.",
      ),
    ),
  ),
  preview: v.optional(
    v.pipe(
      v.picklist(['true', 'false']),
      v.description(
        'true: answer what the part would write (each column and the field it becomes, rows by status, rows refused) and write nothing ([import.preview]).',
      ),
    ),
  ),
  lists: v.optional(
    v.pipe(v.string(), v.description('List ids (comma-separated) for the rows that name no list.')),
  ),
});

/** The rows of a CSV part not imported, and why. */
const V2RejectedRowsSchema = v.array(
  v.strictObject({
    line: v.number(),
    row: v.string(),
    email: v.string(),
    code: v.string(),
    reason: v.string(),
  }),
);

/** What importing a CSV part did (ours). */
export const V2ImportSchema = v.pipe(
  v.strictObject({
    imported: v.number(),
    updated: v.literal(0),
    existing: v.number(),
    rejected: V2RejectedRowsSchema,
  }),
  v.title('V2Import'),
);

/** What importing a part would write, written nothing (`preview=true`, [import.preview]). */
export const V2ImportPreviewSchema = v.pipe(
  v.strictObject({
    preview: v.strictObject({
      source: v.picklist(IMPORT_SOURCES),
      columns: v.array(v.strictObject({ column: v.string(), field: v.string() })),
      status_rule: v.string(),
      rows: v.number(),
      statuses: v.strictObject({
        S: v.optional(v.number()),
        C: v.optional(v.number()),
        U: v.optional(v.number()),
        B: v.optional(v.number()),
        P: v.optional(v.number()),
      }),
      refused: v.number(),
      refusals: v.array(
        v.strictObject({ line: v.number(), email: v.string(), reason: v.string() }),
      ),
      attributes_not_imported: v.array(v.string()),
    }),
  }),
  v.title('V2ImportPreview'),
);

/** What a part wrote before a dependency failed: the 503's `data.import`. */
export const V2ImportStoppedSchema = v.pipe(
  v.strictObject({
    imported: v.number(),
    existing: v.number(),
    rejected: V2RejectedRowsSchema,
    unprocessed: v.pipe(
      v.array(v.number()),
      v.description('Lines of the part (its header is line 1) not written: post them again.'),
    ),
  }),
  v.title('V2ImportStopped'),
);
