import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** CPU seconds of this process so far, its waited-for children (Lambda environments, CLIs) included. */
function processCpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime, stime, cutime, cstime: fields 14-17 of proc(5), 12-15 after the name.
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return ticks / 100;
}

let last = processCpuSeconds();

/**
 * With `FILE_CPU_LOG=<path>`, appends a line per test file: the CPU seconds its process (and
 * the children it reaped) spent since the last file of that process ended. The run's
 * DynamoDB Locals are not in it. docs/testing.md ("Where the suite's time goes") uses it.
 */
export function recordFileCpu(log: string | undefined, file: string | undefined): void {
  if (!log || !file) return;
  const now = processCpuSeconds();
  appendFileSync(log, `${(now - last).toFixed(2)} ${relative(process.cwd(), file)}\n`);
  last = now;
}
