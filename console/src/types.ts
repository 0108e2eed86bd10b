/** The API's answers as the console reads them (docs/api.md, docs/openapi-v2.json). */

export type IssueStatus = 'draft' | 'scheduled' | 'sending' | 'paused' | 'sent' | 'cancelled';

/** Keyed `GET /newsletters` and `/newsletters/{id}`. */
export interface Newsletter {
  readonly id: number;
  readonly subject: string;
  readonly html_content: string;
  readonly plain_content: string;
  readonly sent_on: string | null;
  readonly status?: IssueStatus;
  readonly private?: boolean;
  readonly total?: number;
  readonly sent?: number;
  /** With a key or a sign-in, on `GET /newsletters/{id}` only. */
  readonly lists?: readonly number[];
  readonly scheduled_at?: string | null;
  readonly url?: string | null;
}

/** What the issue routes answer (`POST /issues`, `PUT /issues/{id}`, …). */
export interface Issue {
  readonly id: number;
  readonly subject: string;
  readonly status: IssueStatus;
  readonly private: boolean;
  readonly lists: readonly number[];
  readonly url?: string;
  readonly scheduled_at?: string;
  readonly sent_on: string | null;
  readonly total: number;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  readonly warnings?: readonly string[];
}

export interface List {
  readonly id: number;
  readonly name: string;
  /** Members, when the API counts them (keyed callers). */
  readonly count?: number;
  readonly members?: number;
  readonly subscribers?: number;
}

/** A list's member count under whichever name the API gives it. */
export function membersOf(list: List): number | undefined {
  return list.count ?? list.members ?? list.subscribers;
}

export interface ExtraField {
  readonly id: string;
  readonly name: string;
}

export interface Subscriber {
  readonly id: number;
  readonly email: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly gender: 'M' | 'F' | null;
  readonly country: string;
  readonly region: string;
  readonly city: string;
  readonly lists: readonly { readonly id: number; readonly name: string }[];
  readonly extra_fields: readonly { readonly id: string; readonly value: string }[];
  readonly status: string;
  /** The consent evidence (keyed `GET /subscribers/{id}`). */
  readonly consent?: Readonly<Record<string, unknown>> | null;
}

export interface ReportCounts {
  readonly recipients: number;
  readonly sent: number;
  readonly skipped: number;
  readonly failed: number;
  readonly unsent: number;
  readonly unsubscribed: number;
  readonly bounced: number;
  readonly complained: number;
  readonly skipped_by_reason: Readonly<Record<string, number>>;
}

export interface HourFigures {
  readonly hour: string;
  readonly opened: number;
  readonly clicks: number;
}

export interface Report {
  readonly newsletter_id: number;
  readonly subject: string;
  readonly status: IssueStatus;
  readonly run: number;
  readonly sent_at: string | null;
  readonly counts: ReportCounts;
  readonly engagement?: {
    readonly opened: number;
    readonly clicked: number;
    readonly clicks: number;
    readonly opened_rate: number;
    readonly clicked_rate: number;
    readonly links: readonly { readonly url: string; readonly clicks: number }[];
    readonly tracking: string;
    readonly note: string;
    readonly hours?: readonly HourFigures[];
  };
}

/** The X-WP-Total headers of a collection. */
export function totalsOf(headers: Headers): { total: number; pages: number } {
  return {
    total: Number(headers.get('X-WP-Total') ?? 0),
    pages: Math.max(1, Number(headers.get('X-WP-TotalPages') ?? 1)),
  };
}
