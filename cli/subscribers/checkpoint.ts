import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { CliError } from '../cli-error.ts';

/**
 * The checkpoint of an import, `<file>.checkpoint`: every row up to `row` (a line number of the
 * CSV, the header being line 1) is fully processed, its outcome in the error report. Written
 * atomically (temporary file, then rename), so a crash leaves the previous checkpoint or the
 * new one, never half of one.
 */
export interface Checkpoint {
  readonly format: 1;
  readonly row: number;
  /** Size of the CSV when the import started; a resume refuses a file that changed. */
  readonly file_size: number;
  readonly updated: string;
}

/** Where the checkpoint of an import file lives. */
export function checkpointPath(file: string): string {
  return `${file}.checkpoint`;
}

/** The checkpoint, or undefined when there is none. */
export function readCheckpoint(path: string): Checkpoint | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let value: Partial<Checkpoint>;
  try {
    value = JSON.parse(text) as Partial<Checkpoint>;
  } catch {
    throw new CliError(`${path} is not a checkpoint file; delete it to start over.`);
  }
  if (value.format !== 1 || !Number.isInteger(value.row) || !Number.isInteger(value.file_size)) {
    throw new CliError(`${path} is not a checkpoint file; delete it to start over.`);
  }
  return value as Checkpoint;
}

/** Replaces the checkpoint atomically. Synchronous, so it is ordered with the report's writes. */
export function writeCheckpoint(path: string, row: number, fileSize: number): void {
  const checkpoint: Checkpoint = {
    format: 1,
    row,
    file_size: fileSize,
    updated: new Date().toISOString(),
  };
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(checkpoint)}\n`);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Removes the checkpoint once the import has completed. */
export function removeCheckpoint(path: string): void {
  rmSync(path, { force: true });
}
