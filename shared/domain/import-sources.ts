import type { SubscriberStatus } from './subscriber.ts';

/**
 * The files a subscriber import reads ([import.sources]): ours, and the exports of the services
 * people move from. This table is the one place that says which column of each becomes which
 * field here and which of their statuses becomes which of ours; import-mapping.ts applies it,
 * and docs/behaviour.md and cli/README.md describe it.
 *
 * The rule every row keeps: nobody a source lists as unsubscribed, cleaned, bounced, disabled
 * or blocklisted is imported as confirmed. Their statuses map to `U` or `B` here (both block
 * every further mail) and a value no row of the table names refuses the row, so a status we do
 * not know never falls through to the import's default.
 */

/** Every source the import reads; `newsletter` is our own export (subscriber-csv.ts). */
export const IMPORT_SOURCES = [
  'newsletter',
  'original',
  'mailchimp',
  'listmonk',
  'substack',
] as const;

export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** A field of ours a source column fills. */
export type MappedField = 'email' | 'name' | 'surname' | 'gender';

/**
 * What a source's status value becomes: one of our statuses, or `active` for the people the
 * source mails and names no confirmation state of, who take the import's default status (`C`,
 * or `S` when the operator asks).
 */
export type MappedStatus = SubscriberStatus | 'active';

/** A source's export format, as its documentation describes it. */
export interface SourceFormat {
  readonly title: string;
  /** Where the format is documented (cited again in docs/behaviour.md). */
  readonly documented: string;
  /** Field delimiters the source writes; the header line decides among them. */
  readonly delimiters: readonly string[];
  /** Source column (matched in any case) → our field; the status has its own entries below. */
  readonly columns: Readonly<Record<string, MappedField>>;
  /** The column holding each row's status, when the source has one (matched in any case). */
  readonly statusColumn?: string;
  /** That column's values (in any case, trimmed) → our status. */
  readonly statuses?: Readonly<Record<string, MappedStatus>>;
  /**
   * A column whose presence gives every row of the file one status: Mailchimp writes each
   * status into a file of its own, told apart by the columns only that file has.
   */
  readonly fileStatus?: Readonly<Record<string, MappedStatus>>;
  /** `Profile N` / `List N` columns (the original's numbered profile fields and lists). */
  readonly numbered?: true;
  /** A column holding a JSON object whose keys name profile fields (listmonk's attributes). */
  readonly attributesColumn?: string;
  /** Rows end with one delimiter more than the header (the original writes one after each cell). */
  readonly trailingDelimiter?: true;
}

/** Each source's format (the `newsletter` one is subscriber-csv.ts's and is not repeated). */
export const SOURCE_FORMATS: Readonly<Record<Exclude<ImportSource, 'newsletter'>, SourceFormat>> = {
  original: {
    title: 'the original plugin',
    documented:
      'Newsletter plugin 7.8.8, users/users-admin.php, NewsletterUsersAdmin::export (read from its source)',
    // `;` by default; the export page also offers `,` and tab.
    delimiters: [';', ',', '\t'],
    columns: {
      email: 'email',
      name: 'name',
      surname: 'surname',
      gender: 'gender',
    },
    statusColumn: 'status',
    // The original's own letters, which are ours.
    statuses: { s: 'S', c: 'C', u: 'U', b: 'B', p: 'P' },
    numbered: true,
    trailingDelimiter: true,
  },
  mailchimp: {
    title: 'Mailchimp',
    documented:
      'Mailchimp audience export: one CSV per status (subscribed, unsubscribed, cleaned); Marketing API account exports',
    delimiters: [','],
    columns: { 'email address': 'email', 'first name': 'name', 'last name': 'surname' },
    // Only the unsubscribed file has UNSUB_TIME, only the cleaned (bounced) one CLEAN_TIME.
    fileStatus: { unsub_time: 'U', clean_time: 'B' },
  },
  listmonk: {
    title: 'listmonk',
    documented:
      'listmonk subscriber export (cmd/subscribers.go): uuid,email,name,attributes,status,created_at,updated_at',
    delimiters: [','],
    columns: { email: 'email', name: 'name' },
    statusColumn: 'status',
    statuses: { enabled: 'active', disabled: 'U', blocklisted: 'U' },
    attributesColumn: 'attributes',
  },
  substack: {
    title: 'Substack',
    documented:
      'Substack export, email list file: email,active_subscription,expiry,plan,email_disabled,digest_enabled,created_at',
    delimiters: [','],
    columns: { email: 'email' },
    // A reader who turned Substack's emails off is not mailed there, so not here either.
    statusColumn: 'email_disabled',
    statuses: { true: 'U', false: 'active', '': 'active' },
  },
};

/** Whether a value names a source. */
export function isImportSource(value: unknown): value is ImportSource {
  return (IMPORT_SOURCES as readonly unknown[]).includes(value);
}
