import { inject } from 'vitest';

/**
 * Which of the run's DynamoDB Locals this worker uses: one per worker, so that a file that
 * writes tens of thousands of items cannot queue every request of the file running beside it
 * behind its own (DynamoDB Local answers one database's requests one at a time; see
 * docs/testing.md, "One DynamoDB Local per worker").
 */
function workerIndex(count: number): number {
  const pool = Number(process.env.VITEST_POOL_ID ?? '1');
  return (Number.isInteger(pool) && pool > 0 ? pool - 1 : 0) % count;
}

/** This worker's DynamoDB as the SDK sees it: the strict front, or DynamoDB Local itself. */
export function runDynamoEndpoint(): string {
  const endpoints = inject('dynamoEndpoints');
  return endpoints[workerIndex(endpoints.length)] as string;
}

/** This worker's DynamoDB Local itself, for what puts a front of its own before it. */
export function runDynamoLocalEndpoint(): string {
  const endpoints = inject('dynamoLocalEndpoints');
  return endpoints[workerIndex(endpoints.length)] as string;
}
