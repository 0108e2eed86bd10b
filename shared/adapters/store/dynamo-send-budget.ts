import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '../../domain/errors.ts';
import { type CapacityListener, CONDITION_FAILED, DynamoRequests } from './dynamo-requests.ts';
import type { SendBudget } from './send-budget-port.ts';
import { keys } from './table-design.ts';

/** Tries at reserving send slots before the worker gives up (each loses to another worker). */
const RESERVE_ATTEMPTS = 50;

/**
 * The send budget as one item per account and budget (`BUDGET#<name>` / `pace`, docs/storage.md
 * "Campaigns"): `next_at`, the end of the slots reserved so far. A reservation is one
 * conditional `UpdateItem` that expects the `next_at` this container last saw; one that lost
 * to another worker learns the new `next_at` from the refusal, with no read.
 */
export class DynamoSendBudget implements SendBudget {
  readonly #requests: DynamoRequests;
  /** The end of the last reservation seen, in this container: the next one's condition. */
  #seen: number | undefined;

  constructor(
    client: DynamoDBDocumentClient,
    private readonly table: string,
    /** Which budget: `bulk`, the share of SES's rate kept for campaigns and their kind. */
    private readonly name = 'bulk',
    onCapacity?: CapacityListener,
  ) {
    this.#requests = new DynamoRequests(client, onCapacity);
  }

  async reserve(slots: number, spacingMs: number, notBefore: number): Promise<number> {
    let seen = this.#seen;
    for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt += 1) {
      const start = seen === undefined ? notBefore : Math.max(notBefore, seen);
      const next = start + slots * spacingMs;
      try {
        await this.#requests.send(
          'reserveSlots',
          new UpdateCommand({
            TableName: this.table,
            Key: keys.sendBudget(this.name),
            UpdateExpression: 'SET next_at = :next',
            // Another worker's reservation since this one's view fails the write and returns
            // where it ended, so the next try starts after it: no extra read.
            ConditionExpression:
              seen === undefined ? 'attribute_not_exists(next_at)' : 'next_at = :seen',
            ExpressionAttributeValues: {
              ':next': next,
              ...(seen === undefined ? {} : { ':seen': seen }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        this.#seen = next;
        return start;
      } catch (error) {
        if (!(error instanceof Error) || !CONDITION_FAILED.has(error.name)) throw error;
        const old = (error as { Item?: { next_at?: { N?: string } | number } }).Item;
        seen = attributeNumber(old?.next_at);
      }
    }
    throw new DependencyError('dynamodb', {
      cause: new Error(
        `no send slots reserved from budget ${this.name} in ${RESERVE_ATTEMPTS} tries`,
      ),
    });
  }
}

/** A number attribute of an item DynamoDB returned unconverted (an error's ALL_OLD). */
function attributeNumber(value: { N?: string } | number | undefined): number {
  if (typeof value === 'number') return value;
  return Number(value?.N ?? 0);
}
