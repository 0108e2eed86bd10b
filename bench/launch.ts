/**
 * `npm run bench:launch`: launch day on DynamoDB as it really is (issue 46, "Measure"). The
 * stack as deployed (`cdk synth`, its functions and roles) on the local cloud, with the strict
 * DynamoDB front's per-partition limits divided by a scale factor, so that this machine's
 * rates meet the pressure AWS meets at `scale` times them. In order, on one stack:
 *
 * 1. a migration: a CSV of `--rows` imported with the admin CLI at its default concurrency;
 * 2. a launch burst: keyless v1 subscribes and v2 POST /subscriptions from many client
 *    addresses at 2,000/scale a second for `--burst-seconds`;
 * 3. a mass unsubscribe: a list of 200,000/scale, a send to it, then 10% of it one-click
 *    unsubscribing (RFC 8058) within a minute;
 * 4. two campaigns sent at once under one MaxSendRate, with sign-ups whose activation mail must
 *    still flow;
 * then one integrity check of the whole table (counts, indexes, tokens). Prints a table of
 * figures; `--json FILE` keeps them, `--side-by-side BEFORE AFTER` prints two runs' side by
 * side (docs/benchmarks.md, "Launch day").
 */

import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { DEMO_SETTINGS } from '../infra/local/demo-data.ts';
import { type LocalStack, startLocalStack } from '../infra/local/local-stack.ts';
import { startDynamoDbLocal } from '../infra/local/stand-ins/dynamodb-local.ts';
import { rawHeader } from '../infra/local/stand-ins/ses-local.ts';
import { PROJECT_ROOT } from '../infra/local/synthesize.ts';
import { DynamoStore } from '../shared/adapters/store/dynamo-store.ts';
import { newSubscriberRecord } from '../shared/domain/decide-subscribe.ts';
import { parseSettings } from '../shared/domain/parse-settings.ts';
import { checkIntegrity, documentClient } from '../test/hardening/support/harness.ts';
import { type CampaignWorld, campaignWorld, waitFor } from './campaign-world.ts';
import {
  atRate,
  clientAddress,
  cliImport,
  mostInOneSecond,
  oneClick,
  quantile,
  sesAcceptTimes,
  statusCounts,
  type Timed,
  timedPost,
  v2Counter,
  writeSubscriberCsv,
} from './launch-world.ts';
import { describeMachine, loadAverage } from './machine.ts';
import { machineText } from './report.ts';

const USAGE = `Usage: tsx bench/launch.ts [options]
  --scale S          divides DynamoDB's per-partition limits (default 20)
  --rows N           rows of the migration (default 200000, or LAUNCH_ROWS)
  --burst-seconds T  length of the launch burst (default 60, or LAUNCH_BURST_SECONDS)
  --list N           the mass unsubscribe's list (default 200000/scale)
  --campaign N       recipients of each of the two campaigns sent at once (default 600)
  --send-rate R      the account's MaxSendRate during the two campaigns (default 20)
  --parts LIST       migration,burst,unsubscribe,campaigns (default all)
  --json FILE        also write the figures as JSON
  --side-by-side BEFORE.json AFTER.json   print two runs' figures side by side, run nothing`;

/** The rates the design is held to on AWS (docs/storage.md, "Hot keys"). */
const AWS_SIGN_UPS_PER_SECOND = 2_000;
const AWS_LIST = 200_000;
/** Lists of the later parts, apart from the migration's (1, 2, 4). */
const LIST = { leaving: 5, first: 6, second: 7 } as const;

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      scale: { type: 'string', default: '20' },
      rows: { type: 'string', default: process.env.LAUNCH_ROWS ?? '200000' },
      'burst-seconds': { type: 'string', default: process.env.LAUNCH_BURST_SECONDS ?? '60' },
      list: { type: 'string' },
      campaign: { type: 'string', default: '600' },
      'send-rate': { type: 'string', default: '20' },
      parts: { type: 'string', default: 'migration,burst,unsubscribe,campaigns' },
      json: { type: 'string' },
      'side-by-side': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const number = (name: keyof typeof values, least: number): number => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < least)
      throw new Error(`--${name} must be a number of at least ${least}\n${USAGE}`);
    return value;
  };
  const scale = number('scale', 1);
  values.list ??= String(Math.round(AWS_LIST / scale));
  return {
    help: values.help === true,
    sideBySide: values['side-by-side'] === true ? positionals : undefined,
    scale,
    rows: Math.round(number('rows', 1)),
    burstSeconds: number('burst-seconds', 1),
    list: Math.round(number('list', 10)),
    campaign: Math.round(number('campaign', 10)),
    sendRate: number('send-rate', 2),
    parts: new Set(String(values.parts).split(',')),
    ...(values.json ? { json: String(values.json) } : {}),
  };
}
type Options = ReturnType<typeof options>;

const started = performance.now();
const progress = (message: string): void => {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(5);
  process.stderr.write(`[${seconds} s] ${message}\n`);
};
const n = (value: number): string =>
  Number.isFinite(value) ? value.toLocaleString('en', { maximumFractionDigits: 1 }) : '—';

/** What the strict front refused, as numbers. */
type Refused = Record<string, number>;
function refusedNow(stack: LocalStack): Refused {
  const stats = stack.strictDynamoDb?.stats;
  return stats ? { ...stats } : {};
}
function refusedSince(stack: LocalStack, before: Refused): Refused {
  const now = refusedNow(stack);
  return Object.fromEntries(
    Object.entries(now)
      .filter(([name]) => name !== 'keyReads')
      .map(([name, value]) => [name, value - (before[name] ?? 0)]),
  );
}

interface Migration {
  readonly rows: number;
  readonly seconds: number;
  readonly imported: number;
  readonly existed: number;
  readonly rejected: number;
  readonly exitCode: number;
  readonly confirmedInFile: number;
  /** X-WP-Total after the stream settled: all, and status C. */
  readonly countedAll: number;
  readonly countedConfirmed: number;
  /** Subscriber items of the file in the table (from the final dump). */
  inTable?: number;
  readonly refused: Refused;
}

interface Burst {
  readonly perSecond: number;
  readonly seconds: number;
  readonly sent: number;
  readonly statuses: Record<string, number>;
  readonly accepted: number;
  readonly serverErrors: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Answers a second, from the first call to the last answer: what this machine served. */
  readonly served: number;
  /** The latest a call started behind its schedule (waiting for one of MOST_IN_FLIGHT). */
  readonly mostLateMs: number;
  /** Accepted addresses with no activation mail, and with more than one. */
  readonly withoutActivation: number;
  readonly extraActivations: number;
  readonly activationsSent: number;
  /** Accepted but not stored (from the final dump). */
  lost?: number;
  readonly refused: Refused;
  readonly clients: number;
}

interface Unsubscribe {
  readonly list: number;
  readonly sendSeconds: number;
  readonly campaignMissing: number;
  readonly clicks: number;
  readonly clickSeconds: number;
  readonly statuses: Record<string, number>;
  readonly serverErrors: number;
  readonly p99: number;
  readonly membersCounted: number;
  readonly membersExpected: number;
  /** Answered 200 but not `U` in the table (from the final dump). */
  lost?: number;
  readonly refused: Refused;
}

interface TwoCampaigns {
  readonly maxSendRate: number;
  readonly recipients: number;
  readonly seconds: number;
  readonly mostInOneSecond: number;
  readonly secondsOverRate: number;
  readonly sesCallsRefused: number;
  readonly missing: number;
  readonly duplicates: number;
  readonly statuses: string;
  readonly signUps: number;
  readonly signUpStatuses: Record<string, number>;
  readonly activationP50: number;
  readonly activationMax: number;
  readonly activationsMissing: number;
}

export interface LaunchFigures {
  readonly commit: string;
  readonly date: string;
  readonly scale: number;
  readonly holdMs: number;
  readonly machine: string;
  readonly uptime: string;
  readonly minutes: number;
  migration?: Migration;
  burst?: Burst;
  unsubscribe?: Unsubscribe;
  campaigns?: TwoCampaigns;
  integrityProblems: number;
  integrityFirst: string[];
  readonly refusedTotal: Refused;
  readonly functionErrors: string[];
}

interface Bench {
  readonly stack: LocalStack;
  readonly world: CampaignWorld;
  readonly dir: string;
  readonly opts: Options;
  readonly counted: (filter: string) => Promise<number>;
  readonly accepted: Map<string, number[]>;
  /** The commit's store on DynamoDB Local itself, past the front (set-up only). */
  readonly raw: DynamoStore;
}

/** The settings of the run: the demo settings and the lists of parts 3 and 4. */
function benchSettings() {
  return {
    ...DEMO_SETTINGS,
    lists: [
      ...DEMO_SETTINGS.lists,
      { id: LIST.leaving, name: 'Launch readers' },
      { id: LIST.first, name: 'First campaign' },
      { id: LIST.second, name: 'Second campaign' },
    ],
  };
}

async function migration(bench: Bench): Promise<Migration> {
  const { stack, dir, opts } = bench;
  const file = join(dir, 'migration.csv');
  const lists = ['1', '1 4', '4', '1 2'];
  const statusOf = (index: number) => (index % 20 === 0 ? 'U' : index % 20 === 1 ? 'S' : 'C');
  await writeSubscriberCsv(file, opts.rows, (index) => ({
    email: `migrated-${index}@example.com`,
    lists: `"${lists[index % lists.length]}"`,
    status: statusOf(index),
  }));
  let confirmedInFile = 0;
  for (let index = 0; index < opts.rows; index++) if (statusOf(index) === 'C') confirmedInFile++;
  const before = refusedNow(stack);
  progress(`migration: ${n(opts.rows)} rows through the CLI's import`);
  const run = await cliImport(stack, dir, file);
  progress(`  ${run.stdout.trim()} (${run.seconds.toFixed(1)} s, exit ${run.exitCode})`);
  if (run.exitCode !== 0) progress(`  import stderr: ${run.stderr.slice(-2000)}`);
  await stack.cloud.settled();
  return {
    rows: opts.rows,
    seconds: run.seconds,
    imported: run.imported,
    existed: run.existed,
    rejected: run.rejected,
    exitCode: run.exitCode,
    confirmedInFile,
    countedAll: await bench.counted(''),
    countedConfirmed: await bench.counted('status=confirmed'),
    refused: refusedSince(stack, before),
  };
}

async function burst(bench: Bench): Promise<{ figures: Burst; accepted: string[] }> {
  const { stack, opts } = bench;
  const perSecond = AWS_SIGN_UPS_PER_SECOND / opts.scale;
  const count = Math.round(perSecond * opts.burstSeconds);
  // A visitor signs up once or twice: a few per address, well inside every per-client limit.
  const clients = Math.max(40, Math.ceil(count / 3));
  const v2 = stack.apiRoot.replace(/\/v1$/, '/v2');
  const email = (index: number) => `burst-${index}@example.org`;
  const before = refusedNow(stack);
  progress(
    `launch burst: ${n(count)} keyless sign-ups at ${n(perSecond)}/s from ${n(clients)} addresses`,
  );
  const { answers, mostLateMs } = await atRate(count, perSecond, (index) => {
    const client = clientAddress(index % clients, 60);
    return index % 2 === 0
      ? timedPost(stack.apiRoot, '/subscribe', { email: email(index), lists: [1] }, client)
      : timedPost(v2, '/subscriptions', { email: email(index), lists: [1] }, client);
  });
  const statuses = statusCounts(answers);
  progress(`  answers ${JSON.stringify(statuses)}; waiting for the stream and the mailer`);
  for (const answer of answers.filter((a) => a.status >= 500).slice(0, 5))
    progress(`  ${answer.status}: ${answer.text.slice(0, 300)}`);
  await stack.cloud.settled();
  const accepted = answers.flatMap((answer, index) =>
    answer.status >= 200 && answer.status < 300 ? [email(index)] : [],
  );
  const mails = new Map<string, number>();
  for (const mail of await stack.ses.messages())
    for (const to of mail.destination.to)
      if (to.startsWith('burst-')) mails.set(to, (mails.get(to) ?? 0) + 1);
  await stack.ses.clear();
  const latencies = answers.map((answer) => answer.ms);
  const firstCall = Math.min(...answers.map((answer) => answer.at));
  const lastAnswer = Math.max(...answers.map((answer) => answer.at + answer.ms));
  return {
    accepted,
    figures: {
      perSecond,
      seconds: opts.burstSeconds,
      sent: count,
      statuses,
      accepted: accepted.length,
      serverErrors: answers.filter((answer) => answer.status >= 500 || answer.status === 0).length,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: Math.max(...latencies),
      served: answers.length / ((lastAnswer - firstCall) / 1000),
      mostLateMs,
      withoutActivation: accepted.filter((address) => !mails.has(address)).length,
      extraActivations: [...mails.values()].reduce((sum, value) => sum + value - 1, 0),
      activationsSent: [...mails.values()].reduce((sum, value) => sum + value, 0),
      refused: refusedSince(stack, before),
      clients,
    },
  };
}

/**
 * Puts `count` confirmed subscribers on `list` (set-up, not measured): the commit's own store
 * writes each (`createSubscriber`, with its list entries and counts as that commit keeps
 * them), straight to DynamoDB Local past the strict front, so that both sides of a comparison
 * start from the same whole list however their writes fare under contention.
 */
async function seedList(bench: Bench, prefix: string, count: number, list: number) {
  const { raw } = bench;
  const settings = parseSettings(JSON.stringify(benchSettings()));
  const first = await raw.reserveIds('subscriber', count);
  const now = new Date();
  let refused = 0;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      const record = newSubscriberRecord(
        `${prefix}-${index}@example.net`,
        { name: `Reader ${index}`, lists: [list], profile: {} },
        'C',
        settings,
        now,
        { preassigned: false },
      );
      const created = await raw.createSubscriber({
        ...record,
        id: first + index,
        version: 1,
        consent: { channel: 'cli', subscribed: { at: now.toISOString() } },
      });
      if (!created) refused++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  if (refused > 0) throw new Error(`set-up: ${refused} of ${count} ${prefix} subscribers refused`);
  await bench.stack.cloud.settled();
  return count;
}

async function unsubscribe(bench: Bench): Promise<{ figures: Unsubscribe; left: string[] }> {
  const { stack, world, opts } = bench;
  progress(`mass unsubscribe: a list of ${n(opts.list)}`);
  const listSize = await seedList(bench, 'leaving', opts.list, LIST.leaving);
  const subject = 'Launch issue';
  const id = await world.createIssue(subject, [LIST.leaving]);
  progress(`  sending issue ${id} to the list`);
  const sendStarted = performance.now();
  await world.send(id);
  await waitFor(async () => (await world.campaign(id))?.status === 'sent', 30 * 60_000, 500);
  const sendSeconds = (performance.now() - sendStarted) / 1000;
  const links: { email: string; url: string }[] = [];
  for (const mail of await stack.ses.messages()) {
    if (mail.subject !== subject) continue;
    const url = /<(https?:[^>]+)>/.exec(rawHeader(mail, 'List-Unsubscribe')[0] ?? '')?.[1];
    const email = (mail.destination.to[0] ?? '').replace(/^.*<|>$/g, '');
    if (url) links.push({ email, url });
  }
  await stack.ses.clear();
  const chosen = links.filter((_, index) => index % 10 === 0);
  const clickSeconds = 60;
  const before = refusedNow(stack);
  progress(
    `  sent in ${sendSeconds.toFixed(0)} s (${n(links.length)} mails); ${n(chosen.length)} one-click unsubscribes over ${clickSeconds} s`,
  );
  // Mailbox providers' few addresses send the one-click POSTs.
  const { answers } = await atRate(chosen.length, chosen.length / clickSeconds, (index) =>
    oneClick(stack.apiRoot, (chosen[index] as { url: string }).url, clientAddress(index % 8, 61)),
  );
  const statuses = statusCounts(answers);
  progress(`  answers ${JSON.stringify(statuses)}`);
  await stack.cloud.settled();
  const left = chosen.flatMap((link, index) =>
    answers[index]?.status === 200 ? [link.email] : [],
  );
  return {
    left,
    figures: {
      list: opts.list,
      sendSeconds,
      campaignMissing: listSize - new Set(links.map((link) => link.email)).size,
      clicks: chosen.length,
      clickSeconds,
      statuses,
      serverErrors: answers.filter((answer) => answer.status >= 500 || answer.status === 0).length,
      p99: quantile(
        answers.map((answer) => answer.ms),
        0.99,
      ),
      membersCounted: await bench.counted(`status=confirmed&list=${LIST.leaving}`),
      membersExpected: listSize - left.length,
      refused: refusedSince(stack, before),
    },
  };
}

async function twoCampaigns(bench: Bench): Promise<TwoCampaigns> {
  const { stack, world, opts } = bench;
  progress(`two campaigns at once: two lists of ${n(opts.campaign)}`);
  await seedList(bench, 'first', opts.campaign, LIST.first);
  await seedList(bench, 'second', opts.campaign, LIST.second);
  stack.ses.setQuota({ maxSendRate: opts.sendRate });
  // The functions read the quota and settings again after their cache's second.
  await sleep(3_000);
  const first = await world.createIssue('First campaign', [LIST.first]);
  const second = await world.createIssue('Second campaign', [LIST.second]);
  const from = Date.now();
  const callsFrom = stack.cloud.endpoint.calls.length;
  progress(`  both sent at MaxSendRate ${opts.sendRate}/s, a keyless sign-up a second meanwhile`);
  await Promise.all([world.send(first), world.send(second)]);
  const signUps: { address: string; answer: Timed }[] = [];
  let index = 0;
  const done = async () =>
    (await world.campaign(first))?.status === 'sent' &&
    (await world.campaign(second))?.status === 'sent';
  const limit = Date.now() + 30 * 60_000;
  while (!(await done()) && Date.now() < limit) {
    const at = Date.now();
    const address = `during-${index}@example.org`;
    const client = clientAddress(index, 62);
    void timedPost(stack.apiRoot, '/subscribe', { email: address, lists: [1] }, client).then(
      (answer) => signUps.push({ address, answer }),
    );
    index++;
    await sleep(Math.max(0, 1_000 - (Date.now() - at)));
  }
  const seconds = (Date.now() - from) / 1000;
  await waitFor(() => signUps.length === index, 60_000, 100);
  await stack.cloud.settled();
  const times = stack.ses.sendTimes().filter((time) => time >= from);
  const perSecond = new Map<number, number>();
  for (const time of times) {
    const second = Math.floor(time / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  const sesCalls = stack.cloud.endpoint.calls
    .slice(callsFrom)
    .filter((call) => call.service === 'ses' && /^Send/.test(call.operation)).length;
  // From the sign-up's request to the moment SES took its activation mail.
  const latencies: number[] = [];
  let activationsMissing = 0;
  for (const { address, answer } of signUps) {
    if (answer.status !== 200) continue;
    const mailed = bench.accepted.get(address)?.[0];
    if (mailed === undefined) activationsMissing++;
    else latencies.push(mailed - answer.at);
  }
  const firstMails = await world.mailsPerAddress('First campaign');
  const secondMails = await world.mailsPerAddress('Second campaign');
  const mails = [...firstMails.values(), ...secondMails.values()].reduce((a, b) => a + b, 0);
  await stack.ses.clear();
  return {
    maxSendRate: opts.sendRate,
    recipients: opts.campaign,
    seconds,
    mostInOneSecond: mostInOneSecond(times),
    secondsOverRate: [...perSecond.values()].filter((count) => count > opts.sendRate).length,
    sesCallsRefused: sesCalls - times.length,
    missing: 2 * opts.campaign - firstMails.size - secondMails.size,
    duplicates: mails - firstMails.size - secondMails.size,
    statuses: `${(await world.campaign(first))?.status}, ${(await world.campaign(second))?.status}`,
    signUps: index,
    signUpStatuses: statusCounts(signUps.map((signUp) => signUp.answer)),
    activationP50: quantile(latencies, 0.5),
    activationMax: Math.max(...latencies),
    activationsMissing,
  };
}

const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '—');
const json = (value: unknown): string => JSON.stringify(value).replace(/"/g, '');

/** The figures as table rows: part, figure, value. */
export function figureRows(figures: LaunchFigures): [string, string, string][] {
  const rows: [string, string, string][] = [];
  const { migration: m, burst: b, unsubscribe: u, campaigns: c } = figures;
  if (m) {
    rows.push(
      ['Migration', 'rows in the file', n(m.rows)],
      ['Migration', 'rows in the table', n(m.inTable ?? Number.NaN)],
      [
        'Migration',
        'the report: imported; existed; rejected',
        `${n(m.imported)}; ${n(m.existed)}; ${n(m.rejected)}`,
      ],
      [
        'Migration',
        'X-WP-Total: all; C (the file has C)',
        `${n(m.countedAll)}; ${n(m.countedConfirmed)} (${n(m.confirmedInFile)})`,
      ],
      ['Migration', 'time; rows a second', `${m.seconds.toFixed(1)} s; ${n(m.rows / m.seconds)}`],
      ['Migration', 'the front refused', json(m.refused)],
    );
  }
  if (b) {
    rows.push(
      [
        'Launch burst',
        'sign-ups sent (v1 and v2, keyless)',
        `${n(b.sent)} at ${n(b.perSecond)}/s for ${b.seconds} s from ${n(b.clients)} addresses`,
      ],
      ['Launch burst', 'answers', json(b.statuses)],
      ['Launch burst', '5xx (and no answer)', n(b.serverErrors)],
      ['Launch burst', 'lost (accepted, not stored)', n(b.lost ?? Number.NaN)],
      [
        'Launch burst',
        'activation mails sent; accepted without one; extra',
        `${n(b.activationsSent)}; ${n(b.withoutActivation)}; ${n(b.extraActivations)}`,
      ],
      ['Launch burst', 'latency p50; p99; max', `${ms(b.p50)}; ${ms(b.p99)}; ${ms(b.max)}`],
      [
        'Launch burst',
        'answered a second, first call to last answer (× scale); latest start behind schedule',
        `${n(b.served)} (${n(b.served * figures.scale)}); ${ms(b.mostLateMs)}`,
      ],
      ['Launch burst', 'the front refused', json(b.refused)],
    );
  }
  if (u) {
    rows.push(
      [
        'Mass unsubscribe',
        'list; the send to it',
        `${n(u.list)}; sent in ${u.sendSeconds.toFixed(0)} s, ${n(u.campaignMissing)} without the mail`,
      ],
      ['Mass unsubscribe', 'one-click POSTs', `${n(u.clicks)} over ${u.clickSeconds} s`],
      [
        'Mass unsubscribe',
        'answers; 5xx; p99',
        `${json(u.statuses)}; ${n(u.serverErrors)}; ${ms(u.p99)}`,
      ],
      ['Mass unsubscribe', 'lost (answered 200, not U)', n(u.lost ?? Number.NaN)],
      [
        'Mass unsubscribe',
        "the list's members counted (expected)",
        `${n(u.membersCounted)} (${n(u.membersExpected)})`,
      ],
      ['Mass unsubscribe', 'the front refused', json(u.refused)],
    );
  }
  if (c) {
    rows.push(
      ['Two campaigns', 'recipients; MaxSendRate', `2 × ${n(c.recipients)}; ${c.maxSendRate}/s`],
      [
        'Two campaigns',
        'most SES took in any second; seconds over the rate',
        `${c.mostInOneSecond}; ${c.secondsOverRate}`,
      ],
      ['Two campaigns', 'SES send calls refused (rate)', n(c.sesCallsRefused)],
      [
        'Two campaigns',
        'status; missing; duplicates; time',
        `${c.statuses}; ${n(c.missing)}; ${n(c.duplicates)}; ${c.seconds.toFixed(0)} s`,
      ],
      ['Two campaigns', 'sign-ups meanwhile; answers', `${c.signUps}; ${json(c.signUpStatuses)}`],
      [
        'Two campaigns',
        'activation mail: p50; max; missing',
        `${ms(c.activationP50)}; ${ms(c.activationMax)}; ${c.activationsMissing}`,
      ],
    );
  }
  rows.push(
    [
      'Whole table',
      'integrity problems (counts, indexes, tokens)',
      `${n(figures.integrityProblems)}${figures.integrityFirst.length ? `: ${figures.integrityFirst.slice(0, 3).join('; ')}` : ''}`,
    ],
    ['Whole table', 'the front refused, whole run', json(figures.refusedTotal)],
    ['Whole table', 'function errors logged', n(figures.functionErrors.length)],
  );
  return rows;
}

function markdown(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** Two runs' figures side by side, matched by part and figure. */
export function sideBySide(before: LaunchFigures, after: LaunchFigures): string {
  const earlier = new Map(
    figureRows(before).map(([part, name, value]) => [`${part}|${name}`, value]),
  );
  const rows = figureRows(after).map(([part, name, value]) => [
    part,
    name,
    earlier.get(`${part}|${name}`) ?? '—',
    value,
  ]);
  const what = (f: LaunchFigures) =>
    `${f.commit}, ${f.date}, scale ${f.scale}, hold ${f.holdMs} ms, ${f.minutes.toFixed(0)} min, uptime: ${f.uptime}`;
  return `${markdown(['part', 'figure', `before (${before.commit})`, `after (${after.commit})`], rows)}\n\n- before: ${what(before)}\n- after: ${what(after)}\n- machine: ${after.machine}\n`;
}

async function main(): Promise<void> {
  const opts = options();
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (opts.sideBySide) {
    const [beforeFile, afterFile] = opts.sideBySide;
    if (!beforeFile || !afterFile) throw new Error(USAGE);
    const read = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as LaunchFigures;
    process.stdout.write(sideBySide(await read(beforeFile), await read(afterFile)));
    return;
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const loadAtStart = loadAverage();
  const holdMs = 20;
  const commit = execFileSync('git', ['describe', '--always', '--dirty'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  }).trim();
  progress(
    `synthesizing the stack (commit ${commit}); strict DynamoDB front at scale ${opts.scale}`,
  );
  const errors: string[] = [];
  // Started here, so that the set-up can write to it past the stack's strict front.
  const local = await startDynamoDbLocal();
  const stack = await startLocalStack({
    sharedDynamoDb: local.endpoint,
    port: 0,
    mailPort: 0,
    seed: true,
    demoSubscribers: false,
    parameterCacheSeconds: 1,
    sesMaxSendRate: 1_000,
    sesMax24HourSend: 10_000_000,
    strictDynamoDb: { enabled: true, holdMs, scale: opts.scale },
    // API Gateway's throttles as an operator sets them for a launch of 2,000 sign-ups a second
    // (the defaults would answer most of the burst 429 before any function runs). Older
    // commits read `throttleRate` only; the newer keys are ignored there.
    context: {
      throttleRate: '2000',
      throttleBurst: '4000',
      signUpThrottleRate: '2000',
      signUpThrottleBurst: '4000',
      unsubscribeThrottleRate: '1000',
      unsubscribeThrottleBurst: '2000',
    },
    onLog: (line) => {
      if (/"level":"ERROR"/.test(line)) errors.push(line);
    },
  });
  const dir = await mkdtemp(join(tmpdir(), 'launch-bench-'));
  const world = await campaignWorld(stack);
  const rawClient = documentClient(local.endpoint);
  try {
    world.setSettings(benchSettings());
    await sleep(1_500);
    const bench: Bench = {
      stack,
      world,
      dir,
      opts,
      counted: await v2Counter(stack),
      accepted: sesAcceptTimes(stack),
      raw: new DynamoStore(rawClient, stack.tableName),
    };
    const figures: Omit<LaunchFigures, 'uptime' | 'machine' | 'minutes' | 'refusedTotal'> = {
      commit,
      date: new Date().toISOString(),
      scale: opts.scale,
      holdMs,
      integrityProblems: 0,
      integrityFirst: [],
      functionErrors: errors,
    };
    const part = (name: string) => opts.parts.has(name);
    let burstAccepted: string[] = [];
    let left: string[] = [];
    // Each part's figures go to stderr as soon as it ends: a run stopped later keeps them.
    const partDone = (name: string, value: unknown) =>
      progress(`  ${name} figures: ${JSON.stringify(value)}`);
    if (part('migration')) {
      figures.migration = await migration(bench);
      partDone('migration', figures.migration);
    }
    if (part('burst')) {
      const run = await burst(bench);
      figures.burst = run.figures;
      burstAccepted = run.accepted;
      partDone('burst', figures.burst);
    }
    if (part('unsubscribe')) {
      const run = await unsubscribe(bench);
      figures.unsubscribe = run.figures;
      left = run.left;
      partDone('unsubscribe', figures.unsubscribe);
    }
    if (part('campaigns')) {
      figures.campaigns = await twoCampaigns(bench);
      partDone('campaigns', figures.campaigns);
    }

    progress('integrity of the whole table');
    await stack.cloud.settled();
    const db = documentClient(stack.dynamo.endpoint);
    const { items, problems } = await checkIntegrity(db, stack.tableName);
    db.destroy();
    const status = new Map<string, string>();
    for (const item of items)
      if (String(item.pk).startsWith('SUBSCRIBER#'))
        status.set(String(item.email), String(item.status));
    figures.integrityProblems = problems.length;
    figures.integrityFirst = problems.slice(0, 10);
    if (figures.migration)
      figures.migration.inTable = [...status.keys()].filter((email) =>
        email.startsWith('migrated-'),
      ).length;
    if (figures.burst)
      figures.burst.lost = burstAccepted.filter((email) => !status.has(email)).length;
    if (figures.unsubscribe)
      figures.unsubscribe.lost = left.filter((email) => status.get(email) !== 'U').length;

    const complete: LaunchFigures = {
      ...figures,
      machine: machineText(describeMachine(), { start: loadAtStart, end: loadAverage() }),
      uptime: execFileSync('uptime', { encoding: 'utf8' }).trim(),
      minutes: (performance.now() - started) / 60_000,
      refusedTotal: refusedSince(stack, {}),
    };
    process.stdout.write(
      `\nLaunch day, ${commit}, scale ${opts.scale}\n\n${markdown(['part', 'figure', 'value'], figureRows(complete))}\n\n`,
    );
    for (const line of errors.slice(0, 10)) process.stderr.write(`function error: ${line}\n`);
    for (const problem of problems.slice(0, 10)) process.stderr.write(`integrity: ${problem}\n`);
    if (opts.json) await writeFile(opts.json, `${JSON.stringify(complete, null, 2)}\n`);
  } finally {
    world.close();
    rawClient.destroy();
    await stack.stop();
    await local.stop();
    await rm(dir, { recursive: true, force: true });
  }
  progress('done');
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
