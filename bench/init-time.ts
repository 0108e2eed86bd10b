import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { median } from './stats.ts';

/** Cold-start figures of one bundle, from fresh processes paired with empty ones. */
export interface InitTiming {
  readonly name: string;
  /** Median wall time of a process importing the bundle, ms. */
  readonly bundleMs: number;
  /** Median wall time of the empty `node -e 0` paired with it, ms. */
  readonly emptyMs: number;
  /** Median of the pairwise differences (bundle minus empty), wall clock, ms. */
  readonly overheadMs: number;
  /** The same difference in CPU time (user + system) of the two processes, ms. */
  readonly overheadCpuMs: number;
  readonly pairs: number;
}

// Both processes report their CPU time when they exit, so the hook costs both the same.
const CPU_HOOK =
  "process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu '+(u.user+u.system)+'\\n')});";

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function run(script: string, env: NodeJS.ProcessEnv): Run {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['-e', script], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== 0) {
    throw new Error(`bench: process failed (status ${child.status}):\n${child.stderr}`);
  }
  const cpu = /cpu (\d+)\s*$/.exec(child.stderr)?.[1];
  if (cpu === undefined) throw new Error(`bench: no CPU time reported:\n${child.stderr}`);
  return { wallMs, cpuMs: Number(cpu) / 1000 };
}

/**
 * Measures module initialisation the way that holds on a noisy machine: for each bundle, a
 * fresh `node` that imports it and checks that `handler` is a function, paired with an empty
 * `node -e 0` run right next to it; the overhead is the median of the pairwise differences.
 * Rounds visit the bundles in rotating order and alternate which process of a pair goes first,
 * so drift in machine load falls on every bundle alike.
 *
 * `env` is the whole environment of both processes (set NODE_OPTIONS as the Lambda has it).
 */
export function measureInit(
  bundles: readonly {
    readonly name: string;
    readonly file: string;
    /** Environment of this bundle's pairs, instead of `env`. */
    readonly env?: NodeJS.ProcessEnv;
  }[],
  pairs: number,
  env: NodeJS.ProcessEnv,
  onRound?: (round: number) => void,
): InitTiming[] {
  const samples = bundles.map(() => ({ bundle: [] as number[], empty: [] as number[] }));
  const wallDiffs = bundles.map(() => [] as number[]);
  const cpuDiffs = bundles.map(() => [] as number[]);
  const importScripts = bundles.map(
    (bundle) =>
      `${CPU_HOOK}import(${JSON.stringify(pathToFileURL(bundle.file).href)}).then((m)=>{` +
      "if(typeof m.handler!=='function'){process.stderr.write('handler is not a function');process.exitCode=3}});",
  );
  const emptyScript = `${CPU_HOOK}0`;
  for (let round = 0; round < pairs; round += 1) {
    for (let step = 0; step < bundles.length; step += 1) {
      const index = (step + round) % bundles.length;
      const script = importScripts[index] ?? '';
      const pairEnv = bundles[index]?.env ?? env;
      let empty: Run;
      let loaded: Run;
      if (round % 2 === 0) {
        empty = run(emptyScript, pairEnv);
        loaded = run(script, pairEnv);
      } else {
        loaded = run(script, pairEnv);
        empty = run(emptyScript, pairEnv);
      }
      samples[index]?.bundle.push(loaded.wallMs);
      samples[index]?.empty.push(empty.wallMs);
      wallDiffs[index]?.push(loaded.wallMs - empty.wallMs);
      cpuDiffs[index]?.push(loaded.cpuMs - empty.cpuMs);
    }
    onRound?.(round + 1);
  }
  return bundles.map((bundle, index) => ({
    name: bundle.name,
    bundleMs: median(samples[index]?.bundle ?? []),
    emptyMs: median(samples[index]?.empty ?? []),
    overheadMs: median(wallDiffs[index] ?? []),
    overheadCpuMs: median(cpuDiffs[index] ?? []),
    pairs,
  }));
}
