import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RecipientState, SkipReason } from '../../domain/campaign/recipient.ts';
import { SETTLED_STATES } from '../../domain/campaign/recipient.ts';
import { DynamoBatches } from './dynamo-batches.ts';
import { DynamoRequests } from './dynamo-requests.ts';
import { issuesThatRan } from './issues-that-ran.ts';
import { KEY, keys } from './table-design.ts';

type Item = Record<string, unknown>;

/** One issue a subscriber's turn came in, and how it ended for them. */
export interface ReachedIssue {
  readonly id: number;
  readonly subject: string;
  /** How the subscriber's turn ended: sent, skipped (with `reason`) or failed. */
  readonly outcome: 'sent' | 'skipped' | 'failed';
  /** When (ISO); null on a record of the earliest design, which kept no time. */
  readonly at: string | null;
  readonly reason?: SkipReason;
  readonly opened_at?: string;
  readonly clicked_at?: string;
  readonly bounced_at?: string;
  readonly complained_at?: string;
  readonly unsubscribed_at?: string;
}

/** A page of a subscriber's issues, and where the next page starts (an issue id), if any. */
export interface ReachedIssuesPage {
  readonly issues: ReachedIssue[];
  /** The issue id the next page reads below; absent on the last page. */
  readonly before?: number;
}

const OPTIONAL_FIELDS = [
  'reason',
  'opened_at',
  'clicked_at',
  'bounced_at',
  'complained_at',
  'unsubscribed_at',
] as const;

/**
 * The issues a subscriber got ([v2.subscriber-issues], docs/storage.md, "API v2"): records are
 * kept per issue, keyed by subscriber id, so a subscriber's history is read issue by issue,
 * newest first: one Query of the `recent` index for the next `limit` issues that went out
 * (their id and subject), then one BatchGetItem of this subscriber's record in each (the
 * spread key, and the one partition of runs from before the spread). Bounded by `limit`
 * issues a page, never a scan of anyone's records.
 */
export class DynamoSubscriberHistory {
  readonly #requests: DynamoRequests;
  readonly #batches: DynamoBatches;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.#requests = new DynamoRequests(client);
    this.#batches = new DynamoBatches(this.#requests, table);
  }

  async issuesOf(
    subscriberId: number,
    before: number | undefined,
    limit: number,
  ): Promise<ReachedIssuesPage> {
    const page = await issuesThatRan(this.#requests, this.table, 'query:recent', before, limit);
    const records = await this.#batches.get(
      'subscriberIssues',
      page.flatMap(({ id }) => [
        keys.recipient(id, subscriberId),
        keys.legacyRecipient(id, subscriberId),
      ]),
      {
        expression: ['#pk', '#state', '#at', ...OPTIONAL_FIELDS.map((field) => `#${field}`)].join(
          ', ',
        ),
        names: {
          '#pk': KEY.partition,
          '#state': 'state',
          '#at': 'at',
          ...Object.fromEntries(OPTIONAL_FIELDS.map((field) => [`#${field}`, field])),
        },
      },
    );
    const byIssue = new Map<number, Item>();
    for (const record of records) {
      if (!SETTLED_STATES.has(record.state as RecipientState)) continue;
      const [, id, shard] = /^RECIPIENTS#(\d+)(#\d+)?$/.exec(String(record[KEY.partition])) ?? [];
      // Both kept (a run before the spread, one after): the spread one is the later run's.
      if (shard !== undefined || !byIssue.has(Number(id))) byIssue.set(Number(id), record);
    }
    const reached = page.flatMap(({ id, subject }): ReachedIssue[] => {
      const record = byIssue.get(id);
      if (!record) return [];
      const optional = Object.fromEntries(
        OPTIONAL_FIELDS.filter((field) => typeof record[field] === 'string').map((field) => [
          field,
          record[field],
        ]),
      );
      return [
        {
          id,
          subject,
          outcome: record.state as ReachedIssue['outcome'],
          at: typeof record.at === 'string' ? record.at : null,
          ...optional,
        },
      ];
    });
    const last = page.at(-1);
    return page.length >= limit && last
      ? { issues: reached, before: last.id }
      : { issues: reached };
  }
}
