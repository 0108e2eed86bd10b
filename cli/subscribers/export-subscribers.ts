import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Settings } from '../../shared/domain/settings-schema.ts';
import { SAFE_CELLS } from '../../shared/domain/spreadsheet-cells.ts';
import { type Subscriber, toSubscriber } from '../../shared/domain/subscriber.ts';
import { exportColumns, subscriberRow } from '../../shared/domain/subscriber-csv.ts';
import type { Services } from '../connection/services.ts';
import type { CliIo } from '../io.ts';
import { startProgress } from '../progress.ts';

/** Output formats of `subscribers export`. */
export type ExportFormat = 'csv' | 'json';

/** Options of `subscribers export`. */
export interface ExportOptions {
  readonly format: ExportFormat;
  /** File to write; standard output when absent. */
  readonly out?: string;
  /** Query page size (tests use small pages to cross page boundaries). */
  readonly pageSize?: number;
}

/** JSON: one array, one subscriber per line, written as the rows come. */
async function* jsonChunks(subscribers: AsyncIterable<Subscriber>): AsyncGenerator<string> {
  let first = true;
  for await (const subscriber of subscribers) {
    yield `${first ? '[\n' : ',\n'}${JSON.stringify(subscriber)}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

async function* csvRecords(
  subscribers: AsyncIterable<Subscriber>,
  settings: Settings,
): AsyncGenerator<string[]> {
  for await (const subscriber of subscribers) yield subscriberRow(subscriber, settings);
}

/**
 * Streams every subscriber, oldest first (ascending id): the order they were created in, so an
 * import of the file recreates them in the same order, and subscribers who sign up during the
 * export land at the end instead of shifting pages already read. Only one Query page and the
 * stream buffers are in memory at any time; a file is written under a temporary name and
 * renamed when complete, so a failed export never leaves a truncated file behind.
 *
 * @returns the number of subscribers written.
 */
export async function exportSubscribers(
  services: Services,
  settings: Settings,
  options: ExportOptions,
  io: CliIo,
): Promise<number> {
  let count = 0;
  const progress = startProgress(
    io.stderr,
    'Exporting subscribers | {value} written | {duration_formatted}',
    0,
  );
  async function* counted(): AsyncGenerator<Subscriber> {
    for await (const record of services.store().allSubscribers({
      order: 'oldest-first',
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    })) {
      count += 1;
      progress.update(count);
      yield toSubscriber(record);
    }
  }
  // csv-stringify quotes cells with commas, quotes or line breaks (RFC 4180); SAFE_CELLS
  // neutralises formulas.
  const write = (destination: Writable, end: boolean): Promise<void> =>
    options.format === 'json'
      ? pipeline(Readable.from(jsonChunks(counted())), destination, { end })
      : pipeline(
          Readable.from(csvRecords(counted(), settings)),
          stringify({ ...SAFE_CELLS, header: true, columns: exportColumns(settings) }),
          destination,
          { end },
        );

  try {
    if (options.out === undefined) {
      // Standard output belongs to the process: write to it, never end it.
      await write(io.stdout, false);
    } else {
      const target = resolve(io.cwd, options.out);
      const partial = `${target}.${randomUUID()}.partial`;
      try {
        await write(createWriteStream(partial, { mode: 0o600 }), true);
        await rename(partial, target);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    }
  } finally {
    progress.stop();
  }
  return count;
}
