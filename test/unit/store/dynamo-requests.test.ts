/**
 * How the adapters read DynamoDB's refusals (toolchain.md, "DynamoDB under contention"): a
 * transaction cancelled because another one held an item, or because a partition was over its
 * throughput, is the same request a moment later, never "the condition failed" (which is what
 * made an import report new addresses as existing). A client that answers as DynamoDB does
 * under contention stands in for it; the strict local DynamoDB shows the same over the wire.
 */
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  CONTENDED_ATTEMPTS,
  DynamoRequests,
  isContended,
} from '../../../shared/adapters/store/dynamo-requests.ts';
import { DependencyError } from '../../../shared/domain/errors.ts';

/** An error as the SDK builds it from DynamoDB's answer. */
function refusal(name: string, reasons?: readonly string[]): Error {
  const error = new Error(`refused: ${name}`);
  error.name = name;
  Object.assign(error, {
    $metadata: { httpStatusCode: 400 },
    ...(reasons ? { CancellationReasons: reasons.map((Code) => ({ Code })) } : {}),
  });
  return error;
}

/** Answers each request with the next of `answers` (an error is thrown), then succeeds. */
function scripted(answers: readonly Error[]): { requests: DynamoRequests; sent: () => number } {
  let sent = 0;
  const client = {
    send: async () => {
      const answer = answers[sent];
      sent += 1;
      if (answer) throw answer;
      return {};
    },
  };
  const noWait = async () => {};
  return {
    // A stand-in for the document client: only `send` is called.
    requests: new DynamoRequests(client as never, undefined, undefined, noWait),
    sent: () => sent,
  };
}

const transaction = () =>
  new TransactWriteCommand({
    TransactItems: [
      { Put: { TableName: 't', Item: { pk: 'a', sk: 'a' }, ConditionExpression: 'x' } },
      { Update: { TableName: 't', Key: { pk: 'b', sk: 'b' }, UpdateExpression: 'ADD n :1' } },
    ],
  });

describe('contended requests', () => {
  it('retries a transaction cancelled for a conflict and reports it written', async () => {
    // Arrange
    const { requests, sent } = scripted([
      refusal('TransactionCanceledException', ['None', 'TransactionConflict']),
      refusal('TransactionCanceledException', ['TransactionConflict', 'None']),
    ]);
    // Act
    const written = await requests.conditional('createSubscriber', transaction());
    // Assert
    expect(written).toBe(true);
    expect(sent()).toBe(3);
  });

  it('retries a transaction cancelled for throttling, of the table or of an index', async () => {
    const { requests, sent } = scripted([
      refusal('TransactionCanceledException', ['ThrottlingError', 'None']),
      refusal('TransactionCanceledException', ['None', 'ProvisionedThroughputExceeded']),
    ]);
    expect(await requests.conditional('createSubscriber', transaction())).toBe(true);
    expect(sent()).toBe(3);
  });

  it('answers false only for a failed condition, at once', async () => {
    const { requests, sent } = scripted([
      refusal('TransactionCanceledException', ['ConditionalCheckFailed', 'None']),
    ]);
    expect(await requests.conditional('createSubscriber', transaction())).toBe(false);
    expect(sent()).toBe(1);
  });

  it('evaluates again a failed condition that came with a conflict', async () => {
    // DynamoDB may stop at the conflict before every condition is evaluated: only a new
    // attempt says whether the condition holds.
    const { requests, sent } = scripted([
      refusal('TransactionCanceledException', ['ConditionalCheckFailed', 'TransactionConflict']),
    ]);
    expect(await requests.conditional('createSubscriber', transaction())).toBe(true);
    expect(sent()).toBe(2);
  });

  it('retries a single-item write refused for a transaction in progress on its item', async () => {
    const { requests, sent } = scripted([refusal('TransactionConflictException')]);
    await requests.send(
      'reserveIds',
      new UpdateCommand({ TableName: 't', Key: { pk: 'c' }, UpdateExpression: 'ADD n :1' }),
    );
    expect(sent()).toBe(2);
  });

  it('gives an outage, never a failed condition, when the contention does not pass', async () => {
    const { requests, sent } = scripted(
      Array.from({ length: CONTENDED_ATTEMPTS }, () =>
        refusal('TransactionCanceledException', ['TransactionConflict', 'None']),
      ),
    );
    await expect(requests.conditional('createSubscriber', transaction())).rejects.toBeInstanceOf(
      DependencyError,
    );
    expect(sent()).toBe(CONTENDED_ATTEMPTS);
  });

  it('surfaces a transaction cancelled for a bug instead of calling it a failed condition', async () => {
    const { requests } = scripted([
      refusal('TransactionCanceledException', ['None', 'ValidationError']),
    ]);
    await expect(requests.conditional('createSubscriber', transaction())).rejects.toThrow(
      /TransactionCanceledException/,
    );
  });

  it('keeps a plain conditional check failure a failed condition', async () => {
    const { requests } = scripted([refusal('ConditionalCheckFailedException')]);
    const put = new PutCommand({ TableName: 't', Item: { pk: 'a' }, ConditionExpression: 'x' });
    expect(await requests.conditional('putThing', put)).toBe(false);
  });

  it('tells contention from other refusals', () => {
    expect(isContended(refusal('TransactionConflictException'))).toBe(true);
    expect(isContended(refusal('TransactionCanceledException', ['TransactionConflict']))).toBe(
      true,
    );
    expect(isContended(refusal('TransactionCanceledException', ['ConditionalCheckFailed']))).toBe(
      false,
    );
    expect(isContended(refusal('ValidationException'))).toBe(false);
    expect(isContended('not an error')).toBe(false);
  });
});
