/**
 * `npm run bench:campaigns -- --compare <commit>`: the campaign bench's workload on an earlier
 * commit and on this checkout, one after the other in one run on this machine, and the ratio
 * (docs/benchmarks.md, "Against an earlier commit"). Each side runs its own bench/campaigns.ts
 * in a process of its own, with the options it supports, and its printed table is read: an
 * older harness's world and local cloud differ from this one's, and a process each keeps their
 * one-per-process stand-ins (the local SES) apart. The earlier commit is checked out in a
 * temporary git worktree, which is removed at the end; it shares this checkout's node_modules
 * when its package-lock.json is the same, and gets its own `npm install` otherwise.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../infra/local/synthesize.ts';
import { describeMachine, loadAverage } from './machine.ts';
import { machineText } from './report.ts';

/** What both sides run: option name (without `--`) to value. */
export type Workload = Readonly<Record<string, string>>;

/** What one side printed, as far as the comparison reads it. */
export interface SideFigures {
  readonly recipients: number;
  /** From the send call to the campaign's `sent` (s). */
  readonly sentSeconds: number;
  /** Mails per second, to the last mail. */
  readonly mailsPerSecond: number;
  readonly lostAndDuplicates: string;
  /** CPU ms per mail of the whole local world, and per process role. */
  readonly cpuMs: number;
  readonly cpuParts: ReadonlyMap<string, number>;
  /** The paced send's rate as a percentage of R, if it ran. */
  readonly pacedPercent?: number;
}

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();

/** The options a bench/campaigns.ts accepts: the keys of its parseArgs options. */
export function benchOptions(source: string): Set<string> {
  return new Set(
    [...source.matchAll(/^\s+'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/gm)].map(
      (match) => match[1] as string,
    ),
  );
}

/** The workload as command-line options, without those the side does not know. */
function flagsFor(workload: Workload, known: ReadonlySet<string>) {
  const flags: string[] = [];
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(workload)) {
    if (known.has(name)) flags.push(`--${name}=${value}`);
    else dropped.push(`--${name}`);
  }
  return { flags: [...flags, '--out=-'], dropped };
}

/** Reads the throughput, CPU and pacing rows of a bench/campaigns.ts table. */
export function parseFigures(output: string): SideFigures {
  const rows = output
    .split('\n')
    .filter((line) => line.startsWith('| Campaign |'))
    .map((line) => line.split(' | ').map((cell) => cell.trim()));
  const row = (subject: RegExp) => rows.find((cells) => subject.test(cells[1] ?? ''));
  const throughput = row(/^throughput: /);
  const cpu = row(/^local CPU per mail/);
  if (!throughput || !cpu) throw new Error(`no throughput or CPU row in:\n${output}`);
  const number = (text: string | undefined, pattern: RegExp): number => {
    const found = text?.match(pattern)?.[1];
    if (found === undefined) throw new Error(`${pattern} not found in "${text}"`);
    return Number(found.replace(/,/g, ''));
  };
  const measured = throughput[2];
  // "10.3 ms: host 3.8, DynamoDB Local 3.4, sender 2.9, planner 0.1"
  const cpuParts = new Map(
    (cpu[2] ?? '')
      .replace(/^[\d.]+ ms: /, '')
      .split(', ')
      .flatMap((part) => {
        const match = part.match(/^(.+) ([\d.]+)$/);
        return match ? [[match[1] as string, Number(match[2])] as const] : [];
      }),
  );
  const paced = row(/^pacing: /);
  return {
    recipients: number(throughput[1], /^throughput: ([\d,]+) recipients/),
    sentSeconds: number(measured, /^([\d.]+) s to `sent`/),
    mailsPerSecond: number(measured, /([\d,.]+) mails\/s/),
    lostAndDuplicates: (throughput[3] ?? '').replace(/^record sent [\d,]+; /, ''),
    cpuMs: number(cpu[2], /^([\d.]+) ms/),
    cpuParts,
    ...(paced ? { pacedPercent: number(paced[2], /\((\d+)% of R\)/) } : {}),
  };
}

/** Runs one side's bench/campaigns.ts in `dir`, its progress on stderr; its stdout. */
function runSide(dir: string, label: string, flags: readonly string[]): Promise<string> {
  const bin = join(dir, 'node_modules', '.bin');
  return new Promise((resolve, reject) => {
    const child = spawn(join(bin, 'tsx'), ['bench/campaigns.ts', ...flags], {
      cwd: dir,
      // The side's own Node (the npm package `node`, as `npm run` would put first).
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n'))
        if (line.trim() !== '') process.stderr.write(`[${label}] ${line}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${label}: bench exited with ${code}`)),
    );
  });
}

/**
 * Whether `theirs` (an earlier lock file) installs nothing `ours` does not install alike: every
 * package it names is here at the same place and version (ours may add packages; type
 * declarations, which no run or bundle loads, may differ).
 */
export function locksAgree(theirs: string, ours: string): boolean {
  type Lock = { packages?: Record<string, { version?: string }> };
  const before = (JSON.parse(theirs) as Lock).packages ?? {};
  const now = (JSON.parse(ours) as Lock).packages ?? {};
  return Object.entries(before).every(
    ([path, entry]) =>
      path === '' || path.includes('node_modules/@types/') || now[path]?.version === entry.version,
  );
}

/**
 * A worktree of `sha` with node_modules: this checkout's when its lock file installs every
 * package of `sha`'s alike (locksAgree), else an install of its own.
 */
export async function worktreeOf(sha: string): Promise<{ dir: string; remove: () => void }> {
  const parent = await mkdtemp(join(tmpdir(), `newsletter-bench-${sha.slice(0, 7)}-`));
  const dir = join(parent, 'tree');
  git('worktree', 'add', '--detach', dir, sha);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git('worktree', 'remove', '--force', dir);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  };
  const lock = await readFile(join(PROJECT_ROOT, 'package-lock.json'), 'utf8');
  if (locksAgree(git('show', `${sha}:package-lock.json`), lock)) {
    process.stderr.write(`same package versions: ${sha.slice(0, 7)} uses this node_modules\n`);
    await symlink(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } else {
    process.stderr.write(`package-lock.json differs: npm install in ${dir}\n`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      stdio: ['ignore', process.stderr, process.stderr],
    });
  }
  return { dir, remove };
}

const ratio = (value: number): string => `${value.toFixed(2)}×`;

/** The comparison table: the earlier commit, this checkout, and their ratio. */
export function comparisonTable(before: SideFigures, after: SideFigures, label: string): string {
  const lines = [
    `| figure | ${label} | this checkout | this checkout against ${label} |`,
    '| --- | ---: | ---: | --- |',
    `| end to end: ${before.recipients.toLocaleString('en')} recipients, send call to \`sent\` | ${before.sentSeconds.toFixed(2)} s | ${after.sentSeconds.toFixed(2)} s | ${ratio(before.sentSeconds / after.sentSeconds)} as fast |`,
    `| mails per second (to the last mail) | ${before.mailsPerSecond.toFixed(1)} | ${after.mailsPerSecond.toFixed(1)} | ${ratio(after.mailsPerSecond / before.mailsPerSecond)} |`,
    `| local CPU per mail, all processes | ${before.cpuMs.toFixed(1)} ms | ${after.cpuMs.toFixed(1)} ms | ${ratio(after.cpuMs / before.cpuMs)} |`,
  ];
  const roles = [...new Set([...before.cpuParts.keys(), ...after.cpuParts.keys()])];
  for (const role of roles) {
    const was = before.cpuParts.get(role);
    const now = after.cpuParts.get(role);
    const ms = (value: number | undefined) => (value === undefined ? '< 0.05 ms' : `${value} ms`);
    lines.push(
      `| CPU per mail: ${role} | ${ms(was)} | ${ms(now)} | ${was && now ? ratio(now / was) : '—'} |`,
    );
  }
  if (before.pacedPercent !== undefined && after.pacedPercent !== undefined)
    lines.push(
      `| paced send: share of R kept | ${before.pacedPercent}% | ${after.pacedPercent}% | — |`,
    );
  lines.push(
    `| lost, duplicates (throughput run) | ${before.lostAndDuplicates} | ${after.lostAndDuplicates} | — |`,
  );
  return lines.join('\n');
}

/**
 * Runs `workload` on `commit` (in a temporary worktree) and then on this checkout, and prints
 * both sides' figures and their ratios.
 */
export async function compareWithCommit(commit: string, workload: Workload): Promise<void> {
  const sha = git('rev-parse', '--verify', `${commit}^{commit}`);
  const label = sha.slice(0, 7);
  const here = git('describe', '--always', '--dirty');
  const ours = flagsFor(
    workload,
    benchOptions(await readFile(join(PROJECT_ROOT, 'bench', 'campaigns.ts'), 'utf8')),
  );
  const theirs = flagsFor(workload, benchOptions(git('show', `${sha}:bench/campaigns.ts`)));
  if (theirs.dropped.length > 0)
    process.stderr.write(
      `${label}'s bench has no ${theirs.dropped.join(', ')}: its run does without them\n`,
    );
  const loadAtStart = loadAverage();
  const tree = await worktreeOf(sha);
  const cleanUp = () => {
    tree.remove();
    process.exit(130);
  };
  process.once('SIGINT', cleanUp);
  process.once('SIGTERM', cleanUp);
  try {
    process.stderr.write(`${label}: bench/campaigns.ts ${theirs.flags.join(' ')}\n`);
    const before = parseFigures(await runSide(tree.dir, label, theirs.flags));
    process.stderr.write(`this checkout (${here}): bench/campaigns.ts ${ours.flags.join(' ')}\n`);
    const after = parseFigures(await runSide(PROJECT_ROOT, here, ours.flags));
    const machine = machineText(describeMachine(), { start: loadAtStart, end: loadAverage() });
    process.stdout.write(
      `\nCampaign bench, ${label} against this checkout (${here}), one after the other on ` +
        `${new Date().toISOString()}, options ${ours.flags.join(' ')}\n\n` +
        `${comparisonTable(before, after, label)}\n\n**Machine:** ${machine}\n`,
    );
  } finally {
    process.off('SIGINT', cleanUp);
    process.off('SIGTERM', cleanUp);
    tree.remove();
  }
}
