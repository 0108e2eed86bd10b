import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type CapacityListener, DynamoRequests } from './dynamo-requests.ts';
import { issuesThatRan } from './issues-that-ran.ts';
import { KEY, keys, RECIPIENT_SHARDS } from './table-design.ts';

type Item = Record<string, unknown>;

/**
 * Where an erasure of per-person opens and clicks has got to ([engagement.switch]): issues are
 * taken newest first, and in each its record partitions one after another.
 */
export interface ErasureWalk {
  /** `marks` when the walk began: what it covers once it ends. */
  readonly marks: number;
  /** The issue in hand, or none between issues. */
  readonly issue?: number;
  /** The last issue done: the next is the newest below it (none: start at the newest). */
  readonly done?: number;
  /** Which of the issue's record partitions (0..RECORD_PARTS-1; the last is the old one). */
  readonly part: number;
  /** The sort key the partition's next page starts after. */
  readonly after?: string;
}

/** The erasure's state item. */
export interface ErasureState {
  /** Batches recorded in `individual`, ever: each may have written per-person times. */
  readonly marks: number;
  /** `marks` the last finished erasure covered (-1: none ever finished). */
  readonly clean: number;
  /** When the eraser first saw `campaign.tracking` other than `individual` (ISO). */
  readonly awaySince?: string;
  readonly walk?: ErasureWalk;
  /** Changes of this item by the eraser: each is conditional on the one it read. */
  readonly version: number;
}

/** A recipient record that holds per-person opens or clicks. */
export interface PersonalRecord {
  readonly key: Item;
  readonly subscriberId: number;
}

/** Partitions of an issue's records: the spread ones, then the one of runs from before. */
export const RECORD_PARTS = RECIPIENT_SHARDS + 1;

/**
 * The table side of erasing per-person opens and clicks after a switch away from `individual`
 * ([engagement.switch]; docs/storage.md, "Opens and clicks"): the state item
 * (`ENGAGEMENT_PERSONAL`), the issues that went out, their records that hold a first open or
 * click (a Query per page, filtered), and the removals.
 */
export class DynamoEngagementEraser {
  readonly #requests: DynamoRequests;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    onCapacity?: CapacityListener,
  ) {
    this.#requests = new DynamoRequests(client, onCapacity);
  }

  async state(): Promise<ErasureState> {
    const output = await this.#requests.send<{ Item?: Item }>(
      'erasureState',
      new GetCommand({
        TableName: this.table,
        Key: keys.personalEngagement(),
        ConsistentRead: true,
      }),
    );
    const item = output.Item ?? {};
    const walk = item.walk as Record<string, unknown> | undefined;
    return {
      marks: Number(item.marks ?? 0),
      // Never erased: everything recorded before this state existed counts as per person.
      clean: item.clean === undefined ? -1 : Number(item.clean),
      ...(typeof item.away_since === 'string' ? { awaySince: item.away_since } : {}),
      ...(walk
        ? {
            walk: {
              marks: Number(walk.marks),
              part: Number(walk.part ?? 0),
              ...(walk.issue === undefined ? {} : { issue: Number(walk.issue) }),
              ...(walk.done === undefined ? {} : { done: Number(walk.done) }),
              ...(typeof walk.after === 'string' ? { after: walk.after } : {}),
            },
          }
        : {}),
      version: Number(item.version ?? 0),
    };
  }

  /**
   * Changes the state, on condition nobody changed it since `version` was read; false when
   * somebody did (another run of the eraser).
   */
  async save(
    version: number,
    change: {
      readonly awaySince?: string | null;
      readonly walk?: ErasureWalk | null;
      readonly clean?: number;
    },
  ): Promise<boolean> {
    const set: string[] = ['version = :next'];
    const remove: string[] = [];
    const values: Item = { ':next': version + 1 };
    if (change.awaySince === null) remove.push('away_since');
    else if (change.awaySince !== undefined) {
      set.push('away_since = :away');
      values[':away'] = change.awaySince;
    }
    if (change.walk === null) remove.push('walk');
    else if (change.walk !== undefined) {
      set.push('walk = :walk');
      values[':walk'] = change.walk;
    }
    if (change.clean !== undefined) {
      set.push('clean = :clean');
      values[':clean'] = change.clean;
    }
    return this.#requests.conditional(
      'erasureSave',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.personalEngagement(),
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: version === 0 ? 'attribute_not_exists(version)' : 'version = :version',
        ExpressionAttributeValues: { ...values, ...(version === 0 ? {} : { ':version': version }) },
      }),
    );
  }

  /** The newest issue that went out below `below` (the newest of all when undefined). */
  async nextIssue(below: number | undefined): Promise<number | undefined> {
    const [issue] = await issuesThatRan(this.#requests, this.table, 'erasureIssues', below, 1);
    return issue?.id;
  }

  /**
   * One page of an issue's records in one of its partitions that hold a first open or click,
   * or the click ids of the design before; where the next page starts, if one does.
   */
  async personalRecords(
    issue: number,
    part: number,
    after: string | undefined,
  ): Promise<{ records: PersonalRecord[]; next?: string }> {
    const partition =
      part < RECIPIENT_SHARDS ? keys.recipients(issue, part) : keys.legacyRecipients(issue);
    const output = await this.#requests.send<{
      Items?: Item[];
      LastEvaluatedKey?: Item;
    }>(
      'erasureRecords',
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk',
        FilterExpression:
          'attribute_exists(opened_at) OR attribute_exists(clicked_at) OR attribute_exists(click_ids)',
        ProjectionExpression: '#pk, #sk, subscriber_id',
        ExpressionAttributeNames: { '#pk': KEY.partition, '#sk': KEY.sort },
        ExpressionAttributeValues: { ':pk': partition },
        ...(after === undefined
          ? {}
          : { ExclusiveStartKey: { [KEY.partition]: partition, [KEY.sort]: after } }),
      }),
    );
    const records = (output.Items ?? []).map((item) => ({
      key: { [KEY.partition]: item[KEY.partition], [KEY.sort]: item[KEY.sort] },
      subscriberId: Number(item.subscriber_id ?? Number(item[KEY.sort])),
    }));
    const next = output.LastEvaluatedKey?.[KEY.sort];
    return typeof next === 'string' ? { records, next } : { records };
  }

  /** A record without its first open and click (and old click ids); it stays otherwise. */
  async forgetRecord(key: Item): Promise<void> {
    await this.#requests.conditional(
      'erasureRecord',
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: 'REMOVE opened_at, clicked_at, click_ids',
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#pk': KEY.partition },
      }),
    );
  }

  /**
   * A subscriber's list of engaged issues, gone (it names what they opened or clicked); their
   * tombstone, if they were deleted, stays.
   */
  async forgetEngaged(subscriberId: number): Promise<void> {
    await this.#requests.conditional(
      'erasureEngaged',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.engaged(subscriberId),
        UpdateExpression: 'REMOVE issues',
        ConditionExpression: 'attribute_exists(issues)',
      }),
    );
  }
}
