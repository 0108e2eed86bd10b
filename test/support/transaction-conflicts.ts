/**
 * What DynamoDB does under contention and DynamoDB Local never does (it runs one transaction
 * at a time), in front of a document client, for tests of writes that race: a transaction holds
 * the items it names for `holdMs`, and another transaction naming one of them meanwhile is
 * cancelled with a `TransactionConflict` reason for that item (`None` for the others), as the
 * Developer Guide's "Transaction conflict handling" documents; a single-item write to a held
 * item gets `TransactionConflictException`. Reads are not held up (DynamoDB answers them from
 * the last committed version).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

type Key = Record<string, unknown>;

/** The client with contention, and how many requests it refused for a conflict. */
export interface ConflictingClient {
  readonly client: DynamoDBDocumentClient;
  readonly conflicts: () => number;
}

export function withTransactionConflicts(
  client: DynamoDBDocumentClient,
  holdMs = 20,
): ConflictingClient {
  const held = new Set<string>();
  let conflicts = 0;
  const name = (table: string | undefined, key: Key): string =>
    JSON.stringify([table, key.pk, key.sk]);
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof TransactWriteCommand) {
      const named = (command.input.TransactItems ?? []).map((item) => {
        const action = item.Update ?? item.Delete ?? item.ConditionCheck;
        if (action) return name(action.TableName, action.Key as Key);
        const put = item.Put;
        return name(put?.TableName, { pk: put?.Item?.pk, sk: put?.Item?.sk });
      });
      if (named.some((key) => held.has(key))) {
        conflicts += 1;
        throw new TransactionCanceledException({
          message:
            'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
          $metadata: { httpStatusCode: 400 },
          CancellationReasons: named.map((key) =>
            held.has(key)
              ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }
              : { Code: 'None' },
          ),
        });
      }
      for (const key of named) held.add(key);
      const started = Date.now();
      try {
        return await client.send(command);
      } finally {
        await sleep(Math.max(0, holdMs - (Date.now() - started)));
        for (const key of named) held.delete(key);
      }
    }
    if (
      command instanceof UpdateCommand ||
      command instanceof DeleteCommand ||
      command instanceof PutCommand
    ) {
      const input = command.input as { TableName?: string; Key?: Key; Item?: Key };
      if (held.has(name(input.TableName, (input.Key ?? input.Item) as Key))) {
        conflicts += 1;
        throw new TransactionConflictException({
          message: 'Transaction is ongoing for the item',
          $metadata: { httpStatusCode: 400 },
        });
      }
    }
    return (client.send as (command: unknown) => Promise<unknown>)(command);
  };
  const contended = Object.create(client) as DynamoDBDocumentClient;
  Object.defineProperty(contended, 'send', { value: send });
  return { client: contended, conflicts: () => conflicts };
}
