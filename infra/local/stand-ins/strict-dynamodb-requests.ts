/**
 * The strict DynamoDB front's handling of each data-plane operation (strict-dynamodb.ts says
 * what it emulates): which items and partitions a request touches, whether a running
 * transaction or a partition's throughput refuses it, what it consumed, and the answer.
 *
 * Units: a single-item request's are DynamoDB Local's own (ReturnConsumedCapacity INDEXES,
 * asked for and taken out of the answer when the caller did not ask), per index, put on the
 * index partitions the item left and entered. A transaction's and a batch's are worked out by
 * DynamoDB's rules from the items' sizes, since DynamoDB Local's totals for those merge items
 * of equal size (three new items in one transaction come back as 2 units, not 6).
 */
import type { Answer } from './dynamodb-answers.ts';
import type { Upstream } from './strict-dynamodb.ts';
import type { Forward, Input, Strictness } from './strict-dynamodb-context.ts';
import { batchGet, singleRead, transactGet } from './strict-dynamodb-reads.ts';
import { batchWrite, singleWrite, transactWrite } from './strict-dynamodb-writes.ts';

export type { Strictness } from './strict-dynamodb-context.ts';

/** Handles one DynamoDB_20120810 operation; what it does not know passes through. */
export async function handleOperation(
  strict: Strictness,
  operation: string,
  body: Buffer,
  forward: Forward,
): Promise<Upstream | Answer> {
  let input: Input;
  try {
    input = JSON.parse(body.toString()) as Input;
  } catch {
    return forward();
  }
  switch (operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return singleWrite(strict, operation, input, forward);
    case 'GetItem':
    case 'Query':
      return singleRead(strict, operation, input, forward);
    case 'BatchGetItem':
      return batchGet(strict, input, forward);
    case 'TransactGetItems':
      return transactGet(strict, input, forward);
    case 'BatchWriteItem':
      return batchWrite(strict, input, forward);
    case 'TransactWriteItems':
      return transactWrite(strict, input, forward);
    default:
      // Scan reads partitions one after another; PartiQL and the control plane pass as they are.
      return forward();
  }
}
