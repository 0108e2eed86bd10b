/**
 * How many campaign workers, and how much memory each, a campaign rate needs (docs/deploy.md,
 * "Sizing the campaign workers"). Pure functions over a few measured or published figures; the
 * stack derives its workers' event source mapping and the sender's memory from them, and the
 * table in docs/deploy.md is generated from them (test/infra/worker-sizing.test.ts keeps the
 * two equal).
 *
 * The model: a worker runs SENDS_IN_FLIGHT lanes, each sending one mail after the other. Per
 * mail a lane spends CPU (the sender's CPU per mail, stretched by the share of a vCPU its
 * memory buys) and waits for its calls (the claim, the SES send, the record). That is a closed
 * system of SENDS_IN_FLIGHT customers with one CPU: its throughput is at most
 * min(N / (D + Z), 1 / D), D the CPU time per mail and Z the wait (the asymptotic bounds of
 * operational analysis: Lazowska et al., "Quantitative System Performance", 1984, chapter 5).
 * It is an upper bound, hence the headroom of TARGET_UTILISATION when sizing.
 */
import { SENDS_IN_FLIGHT } from '../../shared/operations/campaign/send-recipients.ts';

/**
 * CPU milliseconds (of one vCPU) the sender spends per mail: rendering, MIME, and signing and
 * serializing its calls. Measured by `npm run bench:sender` (docs/benchmarks.md, "Sender CPU
 * per mail, alone"): 1.21 to 1.47 ms a mail on Node 24 on a loaded 2-core machine; rounded up
 * to 1.5. When it changes, regenerate the table (`UPDATE_DOCS=1 npx vitest run
 * test/infra/worker-sizing.test.ts`).
 */
export const SENDER_CPU_MS_PER_MAIL = 1.5;

/**
 * Round trip of one SES send, in ms. No AWS figure exists and this repository has not measured
 * one on AWS; AWS's own SES load-testing sample says "Sending an email via the SES API or SDK
 * generally takes 40 to 60 milliseconds ... With an average duration of 50 ms per API call"
 * (github.com/aws-samples/load-testing-sample-amazon-ses, README, "Solution queuing
 * mechanics"). Its mails are small templated ones; ours are raw MIME of tens of KB.
 */
export const SES_SEND_ROUND_TRIP_MS = 50;

/**
 * Round trip of one DynamoDB write from Lambda in the table's region, in ms: DynamoDB is sold on
 * "single-digit millisecond performance at any scale" (aws.amazon.com/dynamodb); 5 ms is the
 * middle of that.
 */
export const STORE_WRITE_ROUND_TRIP_MS = 5;

/**
 * Writes a lane waits for per mail besides the send: the record of the outcome after it
 * (shared/operations/campaign/send-recipients.ts); the chunk's claim and release are two
 * writes per 100 mails, made once per chunk, and do not count.
 */
export const STORE_WRITES_PER_MAIL = 1;

/**
 * Lambda gives a function CPU in proportion to its memory: "At 1,769 MB, a function has the
 * equivalent of one vCPU (one vCPU-second of credits per second)" (AWS Lambda Developer Guide,
 * "Configure Lambda function memory",
 * docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
 */
export const MB_PER_VCPU = 1769;

/**
 * Share of the model's rate a worker is sized for: the model is an upper bound (no queueing,
 * no per-chunk reads of the campaign and the subscribers, no pacing reservations, SES's latency
 * taken as its average), so a fifth stays free.
 */
export const TARGET_UTILISATION = 0.8;

/** Memory sizes the derivation chooses from for a worker (MB); the table shows the first three. */
export const WORKER_MEMORY_CHOICES = [256, 512, 1024, 1769] as const;

/** The least the workers' event source mapping allows (SQS `MaximumConcurrency`), and the most the stack accepts. */
export const MIN_WORKERS = 2;
export const MAX_WORKERS = 100;

/** What the model is computed from. */
export interface WorkerModel {
  /** CPU ms of one vCPU per mail. */
  readonly cpuMsPerMail: number;
  /** What a lane waits for per mail besides CPU: the SES send and the store's writes (ms). */
  readonly waitMsPerMail: number;
  /** Sends in flight per worker. */
  readonly inFlight: number;
}

/** The model with this repository's figures. */
export const WORKER_MODEL: WorkerModel = {
  cpuMsPerMail: SENDER_CPU_MS_PER_MAIL,
  waitMsPerMail: SES_SEND_ROUND_TRIP_MS + STORE_WRITES_PER_MAIL * STORE_WRITE_ROUND_TRIP_MS,
  inFlight: SENDS_IN_FLIGHT,
};

/**
 * The vCPUs a function of `memoryMb` may use, as far as one Node.js thread can use them: a
 * worker's JavaScript runs on one thread, so memory beyond one vCPU's worth buys it nothing.
 */
export function vcpuShare(memoryMb: number): number {
  if (!(memoryMb > 0)) throw new RangeError(`no CPU share for ${memoryMb} MB`);
  return Math.min(1, memoryMb / MB_PER_VCPU);
}

/** Mails per second one worker of `memoryMb` sends at most (the model's upper bound). */
export function mailsPerSecondPerWorker(memoryMb: number, model = WORKER_MODEL): number {
  const cpuMs = model.cpuMsPerMail / vcpuShare(memoryMb);
  const byLanes = (model.inFlight * 1000) / (cpuMs + model.waitMsPerMail);
  const byCpu = 1000 / cpuMs;
  return Math.min(byLanes, byCpu);
}

/** Workers and memory for a rate, and whether they reach it. */
export interface WorkerSizing {
  /** The rate sized for (mails per second, all workers together). */
  readonly rate: number;
  readonly workers: number;
  readonly memoryMb: number;
  /** The model's mails per second per worker at that memory. */
  readonly perWorker: number;
  /** What the workers are sized to send together: workers × perWorker × TARGET_UTILISATION. */
  readonly capacity: number;
  /** Whether the capacity reaches the rate. */
  readonly reaches: boolean;
  /** Which of the two were given rather than derived. */
  readonly given: { readonly workers: boolean; readonly memory: boolean };
}

/**
 * Sizes the campaign workers for `rate` mails per second. What is given is kept; what is not
 * is derived: for each memory size the least workers that reach the rate (at least
 * MIN_WORKERS), and of those the pair that costs least per second of sending, workers ×
 * memory (a worker is billed for all its wall time, pacing waits included), then the fewer
 * workers. When nothing reaches the rate, the pair that comes closest, with `reaches` false.
 */
export function sizeWorkers(
  rate: number,
  given: { readonly workers?: number; readonly memoryMb?: number } = {},
  model = WORKER_MODEL,
): WorkerSizing {
  if (!(rate > 0)) throw new RangeError(`no sizing for a rate of ${rate}`);
  const memories = given.memoryMb === undefined ? WORKER_MEMORY_CHOICES : [given.memoryMb];
  const candidates = memories.map((memoryMb) => {
    const perWorker = mailsPerSecondPerWorker(memoryMb, model);
    const needed = Math.ceil(rate / (perWorker * TARGET_UTILISATION));
    const workers = given.workers ?? Math.min(MAX_WORKERS, Math.max(MIN_WORKERS, needed));
    const capacity = workers * perWorker * TARGET_UTILISATION;
    return {
      rate,
      workers,
      memoryMb,
      perWorker,
      capacity,
      reaches: capacity >= rate,
      given: { workers: given.workers !== undefined, memory: given.memoryMb !== undefined },
    };
  });
  const reaching = candidates.filter((candidate) => candidate.reaches);
  if (reaching.length === 0)
    return candidates.reduce((best, each) => (each.capacity > best.capacity ? each : best));
  return reaching.reduce((best, each) => {
    const cost = each.workers * each.memoryMb;
    const bestCost = best.workers * best.memoryMb;
    return cost < bestCost || (cost === bestCost && each.workers < best.workers) ? each : best;
  });
}

/** The synth's warning when the settings cannot reach the rate; undefined when they can. */
export function sizingWarning(sizing: WorkerSizing): string | undefined {
  if (sizing.reaches) return undefined;
  const each = (sizing.perWorker * TARGET_UTILISATION).toFixed(1);
  const what = sizing.given.workers
    ? `campaignWorkers=${sizing.workers}`
    : `${sizing.workers} campaign workers (the most the stack allows)`;
  const advice = sizing.given.workers
    ? `Raise campaignWorkers to ${sizeWorkers(sizing.rate, sizing.given.memory ? { memoryMb: sizing.memoryMb } : {}).workers}, or leave it unset to derive it`
    : 'Lower campaignMaxRate, or send what is left later';
  return (
    `campaignMaxRate ${sizing.rate}/s is out of reach: ${what} of ${sizing.memoryMb} MB send ` +
    `about ${sizing.capacity.toFixed(1)}/s together (${each}/s each; docs/deploy.md, "Sizing ` +
    `the campaign workers"). ${advice}.`
  );
}

/** Memory sizes of the table in docs/deploy.md. */
export const TABLE_MEMORIES = [256, 512, 1024] as const;

/** The table of docs/deploy.md: mails per second per worker at each memory size, as computed. */
export function workerTable(model = WORKER_MODEL): string {
  const rows = TABLE_MEMORIES.map((memoryMb) => {
    const share = vcpuShare(memoryMb);
    const cpuMs = model.cpuMsPerMail / share;
    const byLanes = (model.inFlight * 1000) / (cpuMs + model.waitMsPerMail);
    const byCpu = 1000 / cpuMs;
    const perWorker = mailsPerSecondPerWorker(memoryMb, model);
    return `| ${memoryMb.toLocaleString('en')} MB | ${share.toFixed(3)} | ${cpuMs.toFixed(1)} ms | ${byLanes.toFixed(1)} | ${byCpu.toFixed(1)} | **${perWorker.toFixed(1)}** | ${(perWorker * TARGET_UTILISATION).toFixed(1)} |`;
  });
  return [
    '| memory | vCPU share | CPU per mail | lanes bound (mails/s) | CPU bound (mails/s) | mails/s per worker | sized for (80%) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}
