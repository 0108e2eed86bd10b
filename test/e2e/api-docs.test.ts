import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoClientKeyStore } from '../../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { createClientKey } from '../../shared/operations/v2/manage-client-keys.ts';
import { documentClient } from '../support/local-dynamo.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

const run = promisify(execFile);
/** An ISO time, with milliseconds or in whole seconds (a schedule's time). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** Every `sh` block of docs/api.md with the `json` block that documents its answer. */
function examples(): { title: string; command: string; answer: unknown }[] {
  const text = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const found: { title: string; command: string; answer: unknown }[] = [];
  const pattern = /^## (.+)$[\s\S]*?^```sh\n([\s\S]*?)\n```\n\n```json\n([\s\S]*?)\n```/gm;
  for (const match of text.matchAll(pattern)) {
    found.push({
      title: match[1] ?? '',
      command: match[2] ?? '',
      answer: JSON.parse(match[3] ?? 'null'),
    });
  }
  return found;
}

/** Times differ on every run; everything else must be as documented. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value === 'string' && ISO_TIME.test(value)) return '<time>';
  // The consent evidence keeps the client's User-Agent: curl's own version varies by machine.
  if (typeof value === 'string' && /^curl\/\S+$/.test(value)) return 'curl/<version>';
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, normalise(inner)]));
  }
  return value;
}

let stack: TestStack;
/** The v2 key the page's "API v2" part makes with `keys create`. */
let v2Key: { CK: string; CS: string };
beforeAll(async () => {
  stack = await startTestStack();
  const keys = new DynamoClientKeyStore(documentClient(stack.dynamo.endpoint), stack.tableName);
  const made = await createClientKey({ keys, now: () => new Date() }, 'docs', 'write');
  if (isNewsletterError(made)) throw new Error(made.message);
  v2Key = { CK: made.record.client_key, CS: made.clientSecret };
});
afterAll(async () => {
  await stack?.stop();
});

it('every curl example in docs/api.md answers what the page shows, in order, on a fresh service', async () => {
  const all = examples();
  expect(all.length).toBeGreaterThanOrEqual(12);
  for (const example of all) {
    const { stdout } = await run('bash', ['-c', example.command], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ROOT: stack.apiRoot,
        KEY: stack.apiKey,
        V2: stack.apiRoot.replace(/\/v1$/, '/v2'),
        ...v2Key,
      },
    });
    expect(normalise(JSON.parse(stdout)), example.title).toEqual(normalise(example.answer));
    // A keyless subscribe is worked off after its answer (the table-changes stream); the
    // page's later ids assume it was, as it is by the time a reader types the next command.
    await stack.settled();
  }
  // Some twenty curl processes one after the other: about 17 s alone, more on a loaded machine.
}, 120_000);
