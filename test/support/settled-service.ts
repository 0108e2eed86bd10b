/**
 * A fresh table with the service over it, as the operations' integration tests use it: the
 * function class on test dependencies, each call followed by the stream's work (settling),
 * the same class without it (`direct`, for keyless requests left unsettled), and a scan of
 * everything the table holds, for what a call wrote.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createNewsletter, type NewsletterOperations } from '../../shared/newsletter.ts';
import { testDependencies } from './fixtures.ts';
import { freshStore } from './local-dynamo.ts';
import { settling, streamWorker } from './stream-worker.ts';

export interface SettledService extends Awaited<ReturnType<typeof freshStore>> {
  readonly deps: ReturnType<typeof testDependencies>;
  readonly newsletter: NewsletterOperations;
  readonly direct: NewsletterOperations;
  scanAll(): Promise<Record<string, unknown>[]>;
}

export async function settledService(): Promise<SettledService> {
  const fresh = await freshStore();
  const deps = testDependencies(fresh.store);
  const direct = createNewsletter(deps);
  return {
    ...fresh,
    deps,
    direct,
    newsletter: settling(direct, streamWorker(fresh.client, fresh.tableName, deps).settle),
    scanAll: async () =>
      (await fresh.client.send(new ScanCommand({ TableName: fresh.tableName }))).Items ?? [],
  };
}
