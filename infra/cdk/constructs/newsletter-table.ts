import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { IndexName } from '../../../functions/routes.ts';
import {
  INDEX,
  KEY,
  STREAM_VIEW,
  TTL_ATTRIBUTE,
} from '../../../shared/adapters/store/table-design.ts';

/** Options an operator sets through context. */
export interface NewsletterTableProps {
  /** Keep the table when the stack is deleted or the table would be replaced. */
  readonly retain: boolean;
  /** DynamoDB deletion protection. */
  readonly deletionProtection: boolean;
}

/**
 * The single table of shared/adapters/store/table-design.ts: the same keys, TTL attribute and indexes
 * the DynamoDB adapter and the local runner use, so they cannot drift apart.
 */
export class NewsletterTable extends Table {
  /** ARN of each global secondary index, for `dynamodb:Query` grants. */
  readonly indexArns: Readonly<Record<IndexName, string>>;

  constructor(scope: Construct, id: string, props: NewsletterTableProps) {
    super(scope, id, {
      partitionKey: { name: KEY.partition, type: AttributeType.STRING },
      sortKey: { name: KEY.sort, type: AttributeType.STRING },
      // Traffic is small and bursty (a newsletter goes out, people click): on-demand costs
      // nothing when idle and needs no capacity planning.
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // The outbox, the keyless requests and the subscriber counts are processed from the
      // stream (functions/streams/); the counts need the image before a change as well.
      stream: StreamViewType[STREAM_VIEW],
      deletionProtection: props.deletionProtection,
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const indexes = Object.values(INDEX);
    for (const index of indexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partition, type: AttributeType.STRING },
        sortKey: {
          name: index.sort,
          type: index.sortType === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
        },
        // Listings read only these attributes; copying whole items would double storage
        // and write cost, and would copy token hashes into the index.
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.attributes],
      });
    }
    this.indexArns = Object.fromEntries(
      indexes.map((index) => [index.name, `${this.tableArn}/index/${index.name}`]),
    ) as Record<IndexName, string>;
  }
}
