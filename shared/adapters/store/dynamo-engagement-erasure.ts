import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoRequests } from './dynamo-requests.ts';
import type { EngagementStore } from './engagement-store-port.ts';
import { KEY, keys } from './table-design.ts';

type Item = Record<string, unknown>;

/**
 * A subscriber's opens and clicks erased when they are deleted ([engagement.erase]): the part
 * of the engagement store a deletion calls, on its own so that the function class and the
 * delete routes carry none of the recording and reporting code.
 */
export class DynamoEngagementErasure implements Pick<EngagementStore, 'erase'> {
  constructor(
    private readonly requests: DynamoRequests,
    private readonly table: string,
  ) {}

  async erase(subscriberId: number): Promise<number> {
    // The tombstone first: from here on every event of this subscriber is refused, and the
    // issues it answers with include any event recorded before it.
    const output = await this.requests.send<{ Attributes?: Item }>(
      'engagementErase',
      new UpdateCommand({
        TableName: this.table,
        Key: keys.engaged(subscriberId),
        UpdateExpression: 'SET erased = :yes',
        ExpressionAttributeValues: { ':yes': true },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const issues = output.Attributes?.issues;
    const ids = issues instanceof Set ? [...issues].map(Number) : [];
    for (const id of ids) {
      // Where the record is: spread, or in the old partition of runs from before.
      for (const key of [keys.recipient(id, subscriberId), keys.legacyRecipient(id, subscriberId)])
        await this.requests.conditional(
          'engagementEraseRecipient',
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'REMOVE opened_at, clicked_at, click_ids',
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#pk': KEY.partition },
          }),
        );
    }
    if (ids.length > 0)
      await this.requests.send(
        'engagementErased',
        new UpdateCommand({
          TableName: this.table,
          Key: keys.engaged(subscriberId),
          UpdateExpression: 'REMOVE issues',
        }),
      );
    return ids.length;
  }
}
