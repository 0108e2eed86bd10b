import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { CliError } from './cli-error.ts';
import type { CliIo } from './io.ts';

/**
 * Parsers for option values. They throw commander's InvalidArgumentError, which commander
 * turns into `error: option '--x <v>' argument 'y' is invalid. <reason>` and exit code 2.
 */

const TRUE_WORDS = new Set(['true', 'yes', '1', 'on']);
const FALSE_WORDS = new Set(['false', 'no', '0', 'off']);

/** `true/false`, `yes/no`, `1/0`, `on/off`: the words the API itself accepts. */
export function parseBoolean(value: string): boolean {
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new InvalidArgumentError('Expected true or false.');
}

/** A whole number of at least 1. */
export function parsePositiveInteger(value: string): number {
  if (!/^\s*\d{1,9}\s*$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError('Expected a whole number of at least 1.');
  }
  return Number(value);
}

/** A whole number of at least 0. */
export function parseNonNegativeInteger(value: string): number {
  if (!/^\s*\d{1,9}\s*$/.test(value)) throw new InvalidArgumentError('Expected a whole number.');
  return Number(value);
}

/** Reads a text file, or standard input for `-`. */
export async function readTextInput(
  path: string,
  io: Pick<CliIo, 'stdin' | 'cwd'>,
): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`Cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : String(code)}`);
  }
}
