/**
 * What bench/launch.ts drives the local stack with: the admin CLI's import in a process of its
 * own, calls from many client addresses (each a loopback address of its own, which CloudFront
 * and API Gateway take as the viewer's), the counts a v2 client reads, and the time the local
 * SES took each recipient's mail. Only public interfaces of the stack are used, so the same
 * file runs on an earlier commit (docs/benchmarks.md, "Launch day").
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalStack } from '../infra/local/local-stack.ts';
import { PROJECT_ROOT } from '../infra/local/synthesize.ts';
import { DynamoClientKeyStore } from '../shared/adapters/store/dynamo-client-key-store.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import { createClientKey } from '../shared/operations/v2/manage-client-keys.ts';
import {
  apiPath,
  documentClient,
  type RawResponse,
  send,
} from '../test/hardening/support/harness.ts';

/** What the CLI's import printed, and how long it ran. */
export interface ImportRun {
  readonly imported: number;
  readonly existed: number;
  readonly rejected: number;
  readonly seconds: number;
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** One timed call. */
export interface Timed {
  readonly status: number;
  readonly ms: number;
  /** When it was sent (epoch ms). */
  readonly at: number;
  readonly text: string;
}

const figure = (text: string, pattern: RegExp): number => {
  const found = pattern.exec(text)?.[1];
  return found === undefined ? Number.NaN : Number(found.replace(/,/g, ''));
};

/**
 * Runs `newsletter --local subscribers import --file <file>` (bin/newsletter.mjs, what `npx
 * newsletter` runs) against the stack, at the CLI's default concurrency.
 */
export async function cliImport(stack: LocalStack, dir: string, file: string): Promise<ImportRun> {
  // What `npm start` writes into its data folder for `--local`.
  await writeFile(join(dir, 'local-endpoints.json'), JSON.stringify(stack.endpoints));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      join(PROJECT_ROOT, 'bin', 'newsletter.mjs'),
      '--local',
      '--data-dir',
      dir,
      'subscribers',
      'import',
      '--file',
      file,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  return {
    imported: figure(stdout, /Imported ([\d,]+) new subscriber/),
    existed: figure(stdout, /([\d,]+) address(?:es)? already existed/),
    rejected: figure(stdout, /([\d,]+) rows? rejected/),
    seconds: (performance.now() - started) / 1000,
    exitCode,
    stdout,
    stderr,
  };
}

/** A CSV of `count` subscribers as the original plugin's export gives them. */
export async function writeSubscriberCsv(
  path: string,
  count: number,
  row: (index: number) => { email: string; lists: string; status: string },
): Promise<void> {
  const lines = ['email,name,lists,status'];
  for (let index = 0; index < count; index++) {
    const { email, lists, status } = row(index);
    lines.push(`${email},Reader ${index},${lists},${status}`);
  }
  await writeFile(path, `${lines.join('\n')}\n`);
}

/**
 * The `index`th client address: 127.x.y.z, never .0 or .255, all on the loopback network, so
 * each looks like a visitor of its own to the distribution and the web ACLs.
 */
export function clientAddress(index: number, block: number): string {
  return `127.${block}.${Math.floor(index / 250) % 250}.${(index % 250) + 2}`;
}

/** POSTs JSON from `client`, timed. */
export async function timedPost(
  root: string,
  path: string,
  body: unknown,
  client: string,
): Promise<Timed> {
  const at = Date.now();
  const started = performance.now();
  const answer: RawResponse = await send(root, {
    method: 'POST',
    path: apiPath(root, path),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    localAddress: client,
  }).catch((error: unknown) => ({
    status: 0,
    contentType: '',
    headers: {},
    text: String(error),
  }));
  return { status: answer.status, ms: performance.now() - started, at, text: answer.text };
}

/** An RFC 8058 one-click POST to a `List-Unsubscribe` URL, from `client`, timed. */
export async function oneClick(root: string, url: string, client: string): Promise<Timed> {
  const target = new URL(url);
  const at = Date.now();
  const started = performance.now();
  const answer = await send(root, {
    method: 'POST',
    path: `${target.pathname}${target.search}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
    localAddress: client,
  }).catch((error: unknown) => ({ status: 0, text: String(error) }));
  return { status: answer.status, ms: performance.now() - started, at, text: answer.text };
}

/** Calls in flight at most: each holds four sockets in this process (client, CloudFront, API). */
export const MOST_IN_FLIGHT = 1_000;

/**
 * Calls `call(index)` for index 0 to count-1 at `perSecond`, on schedule whatever the answers
 * take (an open loop: visitors do not wait for each other), but never more than
 * MOST_IN_FLIGHT at once (the process's file descriptors); a call that waits for that starts
 * late. Resolves with every answer and the latest start behind schedule (ms).
 */
export async function atRate<T>(
  count: number,
  perSecond: number,
  call: (index: number) => Promise<T>,
): Promise<{ answers: T[]; mostLateMs: number }> {
  const started = performance.now();
  const answers: Promise<T>[] = [];
  let inFlight = 0;
  let mostLateMs = 0;
  while (answers.length < count) {
    const elapsed = performance.now() - started;
    const due = Math.min(count, Math.floor((elapsed / 1000) * perSecond) + 1);
    while (answers.length < due && inFlight < MOST_IN_FLIGHT) {
      mostLateMs = Math.max(mostLateMs, elapsed - (answers.length / perSecond) * 1000);
      inFlight++;
      answers.push(
        call(answers.length).finally(() => {
          inFlight--;
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { answers: await Promise.all(answers), mostLateMs };
}

/** Reads counts the way a v2 client does: `X-WP-Total` of a one-item page. */
export async function v2Counter(stack: LocalStack) {
  const db = documentClient(stack.dynamo.endpoint);
  const created = await createClientKey(
    { keys: new DynamoClientKeyStore(db, stack.tableName), now: () => new Date() },
    'launch bench',
    'read',
  );
  db.destroy();
  if (isNewsletterError(created)) throw new Error(created.message);
  const root = stack.apiRoot.replace(/\/v1$/, '/v2');
  const credentials = `client_key=${created.record.client_key}&client_secret=${created.clientSecret}`;
  return async (filter: string): Promise<number> => {
    const answer = await send(root, {
      method: 'GET',
      path: `${apiPath(root, '/subscribers')}?per_page=1&${filter}${filter ? '&' : ''}${credentials}`,
      localAddress: '127.0.7.2',
    });
    const total = answer.headers['x-wp-total'];
    if (answer.status !== 200 || typeof total !== 'string')
      throw new Error(`GET /subscribers?${filter}: ${answer.status} ${answer.text.slice(0, 200)}`);
    return Number(total);
  };
}

/**
 * When the local SES took each recipient's mail (epoch ms), from the events it publishes: the
 * mail's timestamp is the moment it accepted the send.
 */
export function sesAcceptTimes(stack: LocalStack): Map<string, number[]> {
  const times = new Map<string, number[]>();
  const cloud = stack.cloud;
  const publish = cloud.publishSesEvent.bind(cloud);
  cloud.publishSesEvent = (notification) => {
    try {
      const event = JSON.parse(notification.message) as {
        eventType?: string;
        notificationType?: string;
        mail?: { timestamp?: string; destination?: string[] };
      };
      const type = event.eventType ?? event.notificationType;
      if ((type === 'Delivery' || type === 'Send') && event.mail?.timestamp)
        for (const to of event.mail.destination ?? []) {
          const list = times.get(to) ?? [];
          list.push(Date.parse(event.mail.timestamp));
          times.set(to, list);
        }
    } catch {
      // Not an event this bench reads.
    }
    publish(notification);
  };
  return times;
}

/** The value at quantile `q` (0 to 1) of `values`, NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** Most of `times` (epoch ms) in any second (half-open window starting at one of them). */
export function mostInOneSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while ((sorted[i] as number) - (sorted[j] as number) >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** Status counts: `{"200": 95, "503": 5}`. */
export function statusCounts(answers: readonly { status: number }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
