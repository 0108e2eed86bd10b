/**
 * What the campaign store does when DynamoDB handles only part of a batch, as it may under
 * throttling (`UnprocessedItems`, `UnprocessedKeys`): DynamoDB Local never does, so a client
 * that leaves part of each request unprocessed stands in for it here.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoCampaignStore } from '../../../shared/adapters/store/dynamo-campaign-store.ts';
import { DependencyError } from '../../../shared/domain/errors.ts';

const TABLE = 'Newsletter';
type Item = Record<string, unknown>;

/** Leaves the first item or key of each of its first `partial` requests unprocessed. */
class PartialClient {
  readonly requests: number[] = [];
  readonly written: Item[] = [];
  constructor(private readonly partial: number) {}

  async send(command: unknown): Promise<unknown> {
    const leave = this.requests.length < this.partial ? 1 : 0;
    if (command instanceof BatchWriteCommand) {
      const puts = command.input.RequestItems?.[TABLE] ?? [];
      this.requests.push(puts.length);
      this.written.push(...puts.slice(leave).map((put) => put.PutRequest?.Item ?? {}));
      return leave ? { UnprocessedItems: { [TABLE]: puts.slice(0, leave) } } : {};
    }
    if (command instanceof BatchGetCommand) {
      const wanted = command.input.RequestItems?.[TABLE]?.Keys ?? [];
      this.requests.push(wanted.length);
      return {
        // Every key asked for is a recipient settled already.
        Responses: { [TABLE]: wanted.slice(leave).map((key) => ({ ...key, state: 'sent' })) },
        ...(leave ? { UnprocessedKeys: { [TABLE]: { Keys: wanted.slice(0, leave) } } } : {}),
      };
    }
    throw new Error(`unexpected command ${String(command)}`);
  }
}

/** A store over `client` whose waits before a retry are recorded in `pauses`, not spent. */
const storeOver = (client: PartialClient, pauses: number[] = []) =>
  new DynamoCampaignStore(
    client as unknown as DynamoDBDocumentClient,
    TABLE,
    undefined,
    async (ms) => {
      pauses.push(ms);
    },
  );
const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1);
/** Chunks of one recipient each: one item per id. */
const chunks = (count: number) => ids(count).map((id) => ({ first: id, ids: [id] }));
const issue = { newsletterId: 7, legacy: false };

describe('[campaign.plan] a batch DynamoDB handles in part is sent again until all of it is in', () => {
  it('writes every planned chunk once when a write leaves some unprocessed', async () => {
    const client = new PartialClient(3);
    const pauses: number[] = [];
    await storeOver(client, pauses).putChunks(7, 1, chunks(30));
    expect(
      client.written.map((item) => (item.ids as number[])[0]).sort((a, b) => Number(a) - Number(b)),
    ).toEqual(ids(30));
    // Two batches (25 and 5), each sent again for what the first three requests left.
    expect(client.requests).toHaveLength(5);
    // The batches run side by side: one is sent twice more, the other once more.
    expect(pauses.sort((a, b) => a - b)).toEqual([50, 50, 100]);
  });

  it('reads every key once when a read leaves some unprocessed', async () => {
    const client = new PartialClient(2);
    const pauses: number[] = [];
    const found = await storeOver(client, pauses).settledRecipients(issue, ids(10));
    expect([...found].sort((a, b) => a - b)).toEqual(ids(10));
    expect(client.requests).toEqual([10, 1, 1]);
    expect(pauses).toEqual([50, 100]);
  });

  it('gives up after 8 rounds with a dependency failure, for writes and for reads', async () => {
    // Each retry waits twice as long as the one before, from 50 ms, at most a second.
    const backoff = [50, 100, 200, 400, 800, 1000, 1000];
    const writes = new PartialClient(Number.POSITIVE_INFINITY);
    const writePauses: number[] = [];
    const written = storeOver(writes, writePauses).putChunks(7, 1, chunks(1));
    await expect(written).rejects.toBeInstanceOf(DependencyError);
    await expect(written).rejects.toMatchObject({
      dependency: 'dynamodb',
      cause: new Error('1 items left unprocessed'),
    });
    expect(writes.requests).toHaveLength(8);
    expect(writePauses).toEqual(backoff);

    const reads = new PartialClient(Number.POSITIVE_INFINITY);
    const readPauses: number[] = [];
    const read = storeOver(reads, readPauses).settledRecipients(issue, [1]);
    await expect(read).rejects.toMatchObject({
      dependency: 'dynamodb',
      cause: new Error('1 keys left unprocessed'),
    });
    expect(reads.requests).toHaveLength(8);
    expect(readPauses).toEqual(backoff);
  });
});

describe('[campaign.recipients-last] a planned chunk lasts as long as its issue', () => {
  it('is written with no expiry, for every chunk of the batch', async () => {
    const client = new PartialClient(0);
    await storeOver(client).putChunks(7, 1, chunks(3));
    expect(client.written).toHaveLength(3);
    expect(client.written.map((item) => item.expires_at)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
