/**
 * `npm run bench:cold-start`: the cold start of every API function, by the bundle bench's own
 * parts: each function built as `cdk synth` builds it (FUNCTION_BUNDLING, bench/bundles.ts),
 * its size, and its init overhead against the bare DocumentClient bundle's (the reference,
 * REFERENCE_BUNDLING), measured as bench/init-time.ts measures it: fresh processes importing
 * the bundle paired with empty ones, the median of the differences, rounds rotating. With
 * `--compare <commit>`, the same functions of an earlier commit (built from a git worktree,
 * with this checkout's bundling options, so only the code differs) are timed in the same
 * rounds, so the two sides meet the same machine load. Prints a Markdown
 * table for docs/benchmarks.md ("API cold start"). Targets (issue 46, point 8): at most
 * 400 KB and 1.3× the reference's init, for every function.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { routes } from '../functions/routes.ts';
import { FUNCTION_BUNDLING } from '../infra/cdk/constructs/newsletter-function.ts';
import { type Bundle, buildFunctions, buildReference, PROJECT_ROOT } from './bundles.ts';
import { worktreeOf } from './compare-commit.ts';
import { type InitTiming, measureInit } from './init-time.ts';
import { describeMachine, loadAverage } from './machine.ts';
import { machineText } from './report.ts';
import { median, ratio } from './stats.ts';
import { lambdaEnvironment } from './warm-environment.ts';

const USAGE = `Usage: tsx bench/cold-start.ts [options]
  --pairs N          fresh-process pairs per bundle (default 31, at least 11)
  --compare COMMIT   also build and time that commit's functions, in the same rounds`;

/** Issue 46, point 8: the most a function may weigh, and its init against the reference's. */
export const COLD_START_TARGETS = { bytes: 400 * 1024, initRatio: 1.3 } as const;

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();

const started = performance.now();
const progress = (message: string): void => {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${seconds} s] ${message}\n`);
};

/** One side's figures of a function: size and init ratio to the reference. */
interface Side {
  readonly bytes: number;
  readonly initRatio: number;
  readonly cpuRatio: number;
  readonly largest: string;
}

function sideOf(bundle: Bundle, timing: InitTiming | undefined, reference: InitTiming): Side {
  return {
    bytes: bundle.bytes,
    initRatio: ratio(timing?.overheadMs ?? Number.NaN, reference.overheadMs),
    cpuRatio: ratio(timing?.overheadCpuMs ?? Number.NaN, reference.overheadCpuMs),
    largest: bundle.packages
      .filter((entry) => !entry.name.startsWith('@smithy/') && !entry.name.startsWith('(app)'))
      .slice(0, 3)
      .map((entry) => `${entry.name} ${(entry.bytes / 1024).toFixed(0)}`)
      .join(', '),
  };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const times = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '—');
const met = (side: Side): string =>
  side.bytes <= COLD_START_TARGETS.bytes && side.initRatio <= COLD_START_TARGETS.initRatio
    ? 'yes'
    : 'no';

/** Worst, median and how many meet the targets, of one side. */
function summary(label: string, sides: readonly Side[]): string {
  const bytes = sides.map((side) => side.bytes);
  const ratios = sides.map((side) => side.initRatio);
  const largest = Math.max(...bytes);
  const slowest = Math.max(...ratios);
  return (
    `${label}: largest ${kb(largest)}, slowest ${times(slowest)}, median ${kb(median(bytes))} ` +
    `and ${times(median(ratios))}; ${sides.filter((side) => met(side) === 'yes').length} of ` +
    `${sides.length} within ${COLD_START_TARGETS.bytes / 1024} KB and ${COLD_START_TARGETS.initRatio}×`
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pairs: { type: 'string', default: '31' },
      compare: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const pairs = Number(values.pairs);
  if (!Number.isInteger(pairs) || pairs < 11) throw new Error(`--pairs: at least 11\n${USAGE}`);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const loadAtStart = loadAverage();
  const outdir = await mkdtemp(join(tmpdir(), 'newsletter-cold-start-'));
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  const here = git('describe', '--always', '--dirty');

  progress(`building the reference and ${routes.length} functions of ${here}`);
  const reference = await buildReference(outdir);
  const after = await buildFunctions(join(outdir, 'after'), FUNCTION_BUNDLING);
  let before: Map<string, Bundle> | undefined;
  let label: string | undefined;
  if (values.compare) {
    const sha = git('rev-parse', '--verify', `${values.compare}^{commit}`);
    label = sha.slice(0, 7);
    const tree = await worktreeOf(sha);
    try {
      progress(`building ${label}'s functions`);
      before = await buildFunctions(
        join(outdir, 'before'),
        FUNCTION_BUNDLING,
        [],
        undefined,
        tree.dir,
      );
    } finally {
      tree.remove();
    }
  }

  progress(`init: ${pairs} process pairs per bundle`);
  const targets = [
    reference,
    ...[...after.values()].map((bundle) => ({ name: `after/${bundle.name}`, file: bundle.file })),
    ...[...(before?.values() ?? [])].map((bundle) => ({
      name: `before/${bundle.name}`,
      file: bundle.file,
    })),
  ];
  const init = new Map(
    measureInit(targets, pairs, lambdaEnvironment(), (round) => {
      if (round % 5 === 0 || round === pairs) progress(`  round ${round}`);
    }).map((timing) => [timing.name, timing]),
  );
  const referenceInit = init.get(reference.name);
  if (!referenceInit) throw new Error('bench: the reference was not timed');

  const rows: string[] = [];
  const afterSides: Side[] = [];
  const beforeSides: Side[] = [];
  for (const route of routes) {
    const now = after.get(route.name);
    if (!now) continue;
    const a = sideOf(now, init.get(`after/${route.name}`), referenceInit);
    afterSides.push(a);
    const was = before?.get(route.name);
    const b = was ? sideOf(was, init.get(`before/${route.name}`), referenceInit) : undefined;
    if (b) beforeSides.push(b);
    rows.push(
      `| ${route.name} | ${b ? `${kb(b.bytes)} | ${times(b.initRatio)} | ` : ''}` +
        `${kb(a.bytes)} | ${times(a.initRatio)} (CPU ${times(a.cpuRatio)}) | ${met(a)} | ${a.largest} |`,
    );
  }
  const head = before
    ? `| Function | ${label} size | ${label} init | ${here} size | ${here} init | Met | Largest packages (KB; not the SDK's core) |\n| --- | ---: | ---: | ---: | ---: | --- | --- |`
    : `| Function | Size | Init | Met | Largest packages (KB; not the SDK's core) |\n| --- | ---: | ---: | --- | --- |`;
  const machine = machineText(describeMachine(), { start: loadAtStart, end: loadAverage() });
  process.stdout.write(
    [
      `Reference (bare DocumentClient, plain esbuild): ${kb(reference.bytes)}, init +${referenceInit.overheadMs.toFixed(1)} ms (CPU +${referenceInit.overheadCpuMs.toFixed(1)} ms); ${pairs} pairs per bundle.`,
      `Machine: ${machine}`,
      '',
      head,
      ...rows,
      '',
      ...(before && label ? [`- ${summary(label, beforeSides)}`] : []),
      `- ${summary(here, afterSides)}`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
