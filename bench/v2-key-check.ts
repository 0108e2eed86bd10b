/**
 * `npx tsx bench/v2-key-check.ts`: what checking a v2 key costs a warm request. The same
 * function (`v2-newsletter`) answers the same public issue to anonymous and keyed calls, sent
 * pair by pair (so machine noise hits both alike), after a warm-up that fills the key cache;
 * the figure is the ratio of the medians (docs/benchmarks.md, "API v2 key check").
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../infra/local/local-stack.ts';
import { synthesize } from '../infra/local/synthesize.ts';
import { DynamoClientKeyStore } from '../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { createClientKey } from '../shared/operations/v2/manage-client-keys.ts';

const PAIRS = Number(process.env.PAIRS ?? 300);
const WARM_UP = 20;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const scratch = await mkdtemp(join(tmpdir(), 'v2-key-bench-'));
// The deployed cache lifetime, and the stage's throttling out of the way of a tight loop.
const cdkOut = await synthesize({
  outdir: join(scratch, 'cdk.out'),
  parameterCacheSeconds: 300,
  bundle: true,
  context: { throttleRate: '10000', throttleBurst: '5000' },
});
const stack = await startLocalStack({
  port: 0,
  mailPort: 0,
  seed: true,
  dataDir: join(scratch, 'data'),
  cdkOut,
  onLog: () => undefined,
});
try {
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const made = await createClientKey(
    { keys: new DynamoClientKeyStore(db, stack.tableName), now: () => new Date() },
    'bench',
    'read',
  );
  if (isNewsletterError(made)) throw new Error(made.message);
  const url = `${stack.apiRoot.replace(/\/v1$/, '/v2')}/newsletters/2`;
  const keyed = `${url}?client_key=${made.record.client_key}&client_secret=${made.clientSecret}`;
  const timed = async (target: string) => {
    const start = performance.now();
    const response = await fetch(target);
    await response.text();
    if (response.status !== 200) throw new Error(`${target}: ${response.status}`);
    return performance.now() - start;
  };
  const anonymous: number[] = [];
  const withKey: number[] = [];
  for (let i = 0; i < WARM_UP + PAIRS; i += 1) {
    const [a, k] = [await timed(url), await timed(keyed)];
    if (i >= WARM_UP) {
      anonymous.push(a);
      withKey.push(k);
    }
  }
  const [a, k] = [median(anonymous), median(withKey)];
  console.log(
    `v2 GET /newsletters/{id}, ${PAIRS} pairs, warm: anonymous p50 ${a.toFixed(2)} ms, keyed p50 ${k.toFixed(2)} ms, ratio ${(k / a).toFixed(3)}`,
  );
} finally {
  await stack.stop();
}
