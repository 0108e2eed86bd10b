/**
 * The console's import, part by part, against a fake API that answers each part as told
 * ([console.import]): the parts it posts, the file's line numbers in what it keeps, and what a
 * part that fails (a 503 that says what it wrote, a 413, a dropped connection) leaves to resume.
 */
import { describe, expect, it } from 'vitest';
import { type Api, ApiError } from '../../../console/src/api.ts';
import { csvRecords } from '../../../console/src/csv-parts.ts';
import {
  type ImportRun,
  lineRanges,
  previewImport,
  rejectedRows,
  rowsDone,
  runImport,
  startImport,
} from '../../../console/src/import-run.ts';

/** Five records after the header, one over two lines: lines 2, 3–4, 5, 6, 7. */
const FILE =
  'email,name\na@x.net,A\n"b@x.net","B\nsecond line"\nc@x.net,C\r\nd@x.net,D\ne@x.net,E\n';

type Reply = (text: string) => unknown;

/** An API whose n-th import call answers with `replies[n]` (a body, or a thrown failure). */
function fakeApi(replies: Reply[]): { api: Pick<Api, 'call'>; posted: string[] } {
  const posted: string[] = [];
  const api = {
    async call<T>(_path: string, options: { body?: unknown } = {}) {
      const text = String(options.body);
      posted.push(text);
      const reply = replies[posted.length - 1];
      if (!reply) throw new Error(`no reply for call ${posted.length}`);
      return { body: reply(text) as T, headers: new Headers() };
    },
  };
  return { api, posted };
}

/** Every row of the part imported. */
const allIn: Reply = (text) => ({
  imported: csvRecords(text).length - 1,
  updated: 0,
  existing: 0,
  rejected: [],
});

async function run(file: string, replies: Reply[], partRows = 2) {
  const started = startImport(file, partRows) as ImportRun;
  const world = fakeApi(replies);
  await runImport(world.api, started, () => {});
  return { run: started, ...world };
}

describe('[console.import] an import in parts', () => {
  it('posts the header with at most N records a part, and keeps refusals at their file lines', async () => {
    const { run: done, posted } = await run(FILE, [
      () => ({
        imported: 1,
        updated: 0,
        existing: 0,
        // The part's own line 3 is the file's line 3 (the two-line record).
        rejected: [{ line: 3, row: 'b@x.net,B', email: 'b@x.net', code: 'x', reason: 'bad' }],
      }),
      () => ({
        imported: 1,
        updated: 0,
        existing: 1,
        rejected: [{ line: 3, row: 'd', email: 'd@x.net', code: 'email_exists', reason: 'in' }],
      }),
      allIn,
    ]);
    expect(posted).toEqual([
      'email,name\na@x.net,A\n"b@x.net","B\nsecond line"\n',
      'email,name\nc@x.net,C\nd@x.net,D\n',
      'email,name\ne@x.net,E\n',
    ]);
    expect(done.notImported.map((row) => [row.line, row.code])).toEqual([
      [3, 'x'],
      [6, 'email_exists'],
    ]);
    expect([done.imported, done.existing, rejectedRows(done).length]).toEqual([3, 1, 1]);
    expect(done.pending).toEqual([]);
    expect(done.failure).toBeUndefined();
  });

  it('keeps what parts before a failure wrote, and resumes with the rows a 503 says it did not write', async () => {
    const { run: stopped, posted } = await run(FILE, [
      allIn,
      () => {
        throw new ApiError(503, 'unavailable', 'The service became unavailable', {
          code: 'unavailable',
          data: {
            status: 503,
            // Of the part's lines 2 (c) and 3 (d), only c was written.
            import: { imported: 1, existing: 0, rejected: [], unprocessed: [3] },
          },
        });
      },
    ]);
    expect(posted).toHaveLength(2);
    expect(stopped.imported).toBe(3);
    expect(stopped.failure).toMatchObject({ firstLine: 5, lastLine: 6, written: 'some' });
    expect(stopped.pending.map((each) => each.line)).toEqual([6, 7]);
    expect(rowsDone(stopped)).toBe(3);
    expect(lineRanges(stopped.pending)).toBe('6–7');

    // Resume: the rows not written, and nothing else, go again.
    const resumed = fakeApi([allIn]);
    await runImport(resumed.api, stopped, () => {});
    expect(resumed.posted).toEqual(['email,name\nd@x.net,D\ne@x.net,E\n']);
    expect([stopped.imported, stopped.pending.length, stopped.failure]).toEqual([5, 0, undefined]);
  });

  it('after a 413 nothing of the part is in, and a resume sends it in smaller parts', async () => {
    const { run: stopped } = await run(FILE, [
      () => {
        throw new ApiError(413, 'http_error', 'The API answered 413.');
      },
    ]);
    expect(stopped.failure).toMatchObject({ firstLine: 2, lastLine: 3, written: 'none' });
    expect(stopped.pending).toHaveLength(5);
    expect(stopped.partRows).toBe(1);
    const resumed = fakeApi([allIn, allIn, allIn, allIn, allIn]);
    await runImport(resumed.api, stopped, () => {});
    expect(resumed.posted).toHaveLength(5);
    expect(stopped.imported).toBe(5);
  });

  it('after a dropped connection the part may be in or not: all of it is sent again', async () => {
    const { run: stopped } = await run(FILE, [
      allIn,
      () => {
        throw new TypeError('Failed to fetch');
      },
    ]);
    expect(stopped.failure).toMatchObject({ firstLine: 5, lastLine: 6, written: 'unknown' });
    expect(stopped.failure?.error).toMatchObject({ status: 0, code: 'network' });
    expect(stopped.pending.map((each) => each.line)).toEqual([5, 6, 7]);
    expect(stopped.imported).toBe(2);
  });
});

describe('[import.preview] the console’s preview and another service’s export', () => {
  /** An API that records the paths called and answers each preview part from `preview`. */
  function previewApi() {
    const paths: string[] = [];
    const api = {
      async call<T>(path: string, options: { body?: unknown } = {}) {
        paths.push(path);
        const records = csvRecords(String(options.body)).length - 1;
        // The part's last row refused, at its line in the part.
        const body = {
          preview: {
            source: 'listmonk',
            columns: [{ column: 'email', field: 'email' }],
            status_rule: 'the status column',
            rows: records,
            statuses: { C: records - 1 },
            refused: 1,
            refusals: [{ line: records + 1, email: 'x', reason: 'no' }],
            attributes_not_imported: [`key${paths.length}`],
          },
        };
        return { body: body as T, headers: new Headers() };
      },
    };
    return { api, paths };
  }

  it('previews every part with preview=true and adds the answers up, refusals at file lines', async () => {
    // Arrange
    const world = previewApi();

    // Act
    const preview = await previewImport(world.api, FILE, 'listmonk', 2);

    // Assert
    expect(world.paths).toEqual(Array(3).fill('/subscribers/import?source=listmonk&preview=true'));
    expect(preview).toMatchObject({
      rows: 5,
      statuses: { C: 2 },
      refused: 3,
      attributes_not_imported: ['key1', 'key2', 'key3'],
    });
    // Parts hold lines 2, 3–4 | 5, 6 | 7: each part's last record.
    expect(preview?.refusals.map(({ line }) => line)).toEqual([3, 6, 7]);
  });

  it('imports with the source in the path, and ours without one', async () => {
    // Arrange
    const paths: string[] = [];
    const api = {
      async call<T>(path: string, options: { body?: unknown } = {}) {
        paths.push(path);
        return { body: allIn(String(options.body)) as T, headers: new Headers() };
      },
    };

    // Act
    await runImport(api, startImport(FILE, 10, 'mailchimp') as ImportRun, () => {});
    await runImport(api, startImport(FILE, 10) as ImportRun, () => {});

    // Assert
    expect(paths).toEqual(['/subscribers/import?source=mailchimp', '/subscribers/import']);
  });
});
