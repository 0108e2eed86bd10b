import { open } from 'node:fs/promises';
import type { Info, Parser } from 'csv-parse';

/** A record of a CSV file, the line it starts on (the header is line 1), and bytes read so far. */
export interface NumberedRecord {
  readonly record: string[];
  readonly line: number;
  readonly bytes: number;
}

/**
 * The records of a csv-parse parser made with `info: true`, numbered by the line each starts
 * on: after the previous record's last line and any blank lines between, as the error report
 * and the checkpoint count rows.
 */
export async function* numberedRecords(parser: Parser): AsyncGenerator<NumberedRecord> {
  let lastLine = 0;
  let lastEmptyLines = 0;
  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
    const line = lastLine + 1 + (info.empty_lines - lastEmptyLines);
    lastLine = info.lines;
    lastEmptyLines = info.empty_lines;
    yield { record, line, bytes: info.bytes };
  }
}

/** The header line of a file (its first 64 KiB at most), to tell its delimiter before parsing. */
export async function readHeaderLine(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    return end === -1 ? text : text.slice(0, end);
  } finally {
    await handle.close();
  }
}
