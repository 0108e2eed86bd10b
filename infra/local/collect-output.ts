import type { ChildProcess } from 'node:child_process';

/** What a finished child process printed, stdout and stderr in the order they came. */
export interface CollectedOutput {
  readonly code: number | null;
  readonly output: string;
}

/** Waits for a child started with stdout and stderr piped, keeping what it printed. */
export function collectOutput(child: ChildProcess): Promise<CollectedOutput> {
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => done({ code, output }));
  });
}
