/**
 * The sizing of the campaign workers (infra/cdk/worker-sizing.ts): the model's bounds, the
 * derivation of workers and memory from a rate, the warning, and the table of docs/deploy.md,
 * which must be what the module computes (`UPDATE_DOCS=1` rewrites it from the module).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MAX_WORKERS,
  MB_PER_VCPU,
  mailsPerSecondPerWorker,
  SENDER_CPU_MS_PER_MAIL,
  sizeWorkers,
  sizingWarning,
  vcpuShare,
  WORKER_MODEL,
  workerTable,
} from '../../infra/cdk/worker-sizing.ts';
import { SENDS_IN_FLIGHT } from '../../shared/operations/campaign/send-recipients.ts';

/** A worker whose lanes wait 60 ms a mail, with the CPU cost given. */
const model = (cpuMsPerMail: number) => ({ cpuMsPerMail, waitMsPerMail: 60, inFlight: 4 });

describe('[campaign.workers-sized] what one campaign worker sends', () => {
  it('gets CPU in proportion to its memory, one vCPU at 1,769 MB, and one thread uses one at most', () => {
    expect(vcpuShare(MB_PER_VCPU)).toBe(1);
    expect(vcpuShare(256)).toBeCloseTo(256 / 1769, 12);
    expect(vcpuShare(2 * MB_PER_VCPU)).toBe(1);
    expect(() => vcpuShare(0)).toThrow(RangeError);
  });

  it('is bounded by its lanes, N / (CPU + wait), or by its CPU, 1 / CPU, whichever is lower', () => {
    // 1 vCPU, 2 ms a mail: the lanes bound (4 / 62 ms), far below the CPU's 500 a second.
    expect(mailsPerSecondPerWorker(MB_PER_VCPU, model(2))).toBeCloseTo(4000 / 62, 9);
    // 256 MB, 20 ms a mail of one vCPU: 138 ms of its share, the CPU bound (7.2 a second).
    const cpuMs = 20 / (256 / 1769);
    expect(mailsPerSecondPerWorker(256, model(20))).toBeCloseTo(1000 / cpuMs, 9);
    expect(1000 / cpuMs).toBeLessThan(4000 / (cpuMs + 60));
  });

  it("takes the sender's sends in flight and the sender's CPU figure", () => {
    expect(WORKER_MODEL.inFlight).toBe(SENDS_IN_FLIGHT);
    expect(WORKER_MODEL.cpuMsPerMail).toBe(SENDER_CPU_MS_PER_MAIL);
  });
});

describe('[campaign.workers-sized] workers and memory sized for a rate', () => {
  it('derives the least workers (2 at least) at the memory that costs least per second', () => {
    const sizing = sizeWorkers(500);
    const perWorker = mailsPerSecondPerWorker(256);
    expect(sizing).toMatchObject({ memoryMb: 256, reaches: true, perWorker });
    expect(sizing.workers).toBe(Math.ceil(500 / (perWorker * 0.8)));
    expect(sizing.capacity).toBeGreaterThanOrEqual(500);
    expect(sizeWorkers(11.2)).toMatchObject({ workers: 2, memoryMb: 256, reaches: true });
  });

  it('buys memory where the CPU bounds a worker, and of equal costs takes fewer workers', () => {
    // 20 ms a mail: 256 MB needs 18 workers, 512 MB 9 (the same MB in all), 1,024 MB 5.
    expect(sizeWorkers(100, {}, model(20))).toMatchObject({ workers: 9, memoryMb: 512 });
  });

  it('keeps what is given and derives the rest', () => {
    const memory = sizeWorkers(500, { memoryMb: 1024 });
    expect(memory).toMatchObject({ memoryMb: 1024, reaches: true, given: { memory: true } });
    expect(memory.workers).toBe(Math.ceil(500 / (mailsPerSecondPerWorker(1024) * 0.8)));
    expect(sizeWorkers(100, { workers: 4 })).toMatchObject({ workers: 4, memoryMb: 256 });
  });

  it('says when the given workers, or the most allowed, cannot reach the rate, and what would', () => {
    const few = sizeWorkers(500, { workers: 4 });
    expect(few.reaches).toBe(false);
    // The closest it comes: the memory that sends most.
    expect(few.memoryMb).toBe(1769);
    expect(sizingWarning(few)).toMatch(
      new RegExp(
        `^campaignMaxRate 500/s is out of reach: campaignWorkers=4 of 1769 MB send about [\\d.]+/s together .*Raise campaignWorkers to ${sizeWorkers(500).workers}, or leave it unset`,
      ),
    );
    const huge = sizeWorkers(100_000);
    expect(huge).toMatchObject({ workers: MAX_WORKERS, reaches: false });
    expect(sizingWarning(huge)).toMatch(/100 campaign workers \(the most the stack allows\)/);
    expect(sizingWarning(sizeWorkers(500))).toBeUndefined();
  });
});

describe('[campaign.workers-sized] the table of docs/deploy.md', () => {
  it('is the one the sizing module computes', () => {
    const file = new URL('../../docs/deploy.md', import.meta.url);
    const doc = readFileSync(file, 'utf8');
    const start = '<!-- worker-sizing:start -->';
    const end = '<!-- worker-sizing:end -->';
    const before = doc.slice(0, doc.indexOf(start) + start.length);
    const after = doc.slice(doc.indexOf(end));
    const table = workerTable();
    // UPDATE_DOCS=1 rewrites the table from the module (then review the diff).
    if (process.env.UPDATE_DOCS) writeFileSync(file, `${before}\n${table}\n${after}`);
    expect(doc.indexOf(start)).toBeGreaterThan(0);
    expect(doc.slice(before.length, doc.length - after.length).trim()).toBe(table);
  });
});
