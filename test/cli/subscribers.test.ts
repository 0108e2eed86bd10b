import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { unescapeCell } from '../../shared/domain/spreadsheet-cells.ts';
import type { Subscriber } from '../../shared/domain/subscriber.ts';
import { runDynamoEndpoint } from '../support/run-dynamo.ts';
import { type CliWorld, cliWorld } from './cli-harness.ts';
import { startFailingProxy } from './failing-proxy.ts';
import { byEmail, parseCsv, STORED_COLUMNS, writeGeneratedCsv } from './subscriber-csv.ts';

let world: CliWorld;

beforeEach(async () => {
  await world?.close();
  world = await cliWorld();
});

afterAll(async () => {
  await world.close();
});

/** Every subscriber item in the table, read from the base table (not the index). */
async function subscriberItems(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await world.client.send(
      new ScanCommand({
        TableName: world.tableName,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []).filter((item) => String(item.pk).startsWith('SUBSCRIBER#')));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Asserts one item per address and one address per id. */
async function expectNoDuplicates(expected: number): Promise<void> {
  const items = await subscriberItems();
  expect(items).toHaveLength(expected);
  expect(new Set(items.map((item) => item.email)).size).toBe(expected);
  expect(new Set(items.map((item) => item.id)).size).toBe(expected);
}

/** The stored columns of an exported CSV, cells un-escaped as the import reads them. */
function storedColumnsOf(exported: string[][]): string[][] {
  const [header = [], ...rows] = exported;
  const at = STORED_COLUMNS.map((column) => header.indexOf(column));
  return rows.map((row) => at.map((index) => unescapeCell(row[index] ?? '')));
}

const file = (name: string) => join(world.dir, name);

describe('subscribers import and export', () => {
  it('imports 10,000 generated subscribers and exports them back identical', async () => {
    // Arrange
    const generated = await writeGeneratedCsv(file('many.csv'), 10_000);
    // Act
    const imported = await world.cli(['subscribers', 'import', '--file', 'many.csv']);
    const exported = await world.cli(['subscribers', 'export', '--out', 'export.csv']);
    // Assert
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toBe(
      'Imported 10,000 new subscribers; 0 addresses already existed; 0 rows rejected.\n',
    );
    expect(exported.code).toBe(0);
    expect(exported.stderr).toBe('Exported 10,000 subscribers to export.csv.\n');
    const rows = parseCsv(await readFile(file('export.csv'), 'utf8'));
    expect(rows[0]).toEqual([
      'id',
      'email',
      'name',
      'surname',
      'gender',
      'lists',
      'status',
      'created',
      'updated',
      'profile_city',
      'profile_company',
    ]);
    expect(byEmail(storedColumnsOf(rows))).toEqual(byEmail(generated));
    // Oldest first, every id distinct; the functions' sequence continues after the import.
    const ids = rows.slice(1).map((row) => Number(row[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(10_000);
    expect(await world.store.nextId('subscriber')).toBeGreaterThan(Math.max(...ids));
    // No checkpoint and no report are left behind by a clean run.
    expect(existsSync(file('many.csv.checkpoint'))).toBe(false);
    expect(existsSync(file('many.csv.errors.csv'))).toBe(false);
    // 10,000 rows each way through DynamoDB Local: about 37 s idle, over 120 s on a machine
    // loaded by other test runs.
  }, 300_000);

  it('an exported file imports into another table unchanged, formula cells included', async () => {
    await writeGeneratedCsv(file('small.csv'), 60);
    await world.cli(['subscribers', 'import', '--file', 'small.csv']);
    await world.cli(['subscribers', 'export', '--out', 'first.csv']);
    const first = await readFile(file('first.csv'), 'utf8');
    // Cells a spreadsheet would run are neutralised in the file itself.
    expect(first).toContain(",'=SUM(A1),");
    expect(first).not.toMatch(/,=SUM/);

    const other = await cliWorld();
    try {
      await writeFile(join(other.dir, 'first.csv'), first);
      const again = await other.cli(['subscribers', 'import', '--file', 'first.csv']);
      expect(again.code).toBe(0);
      await other.cli(['subscribers', 'export', '--out', 'second.csv']);
      const second = parseCsv(await readFile(join(other.dir, 'second.csv'), 'utf8'));
      expect(byEmail(storedColumnsOf(second))).toEqual(byEmail(storedColumnsOf(parseCsv(first))));
    } finally {
      await other.close();
    }
  });

  it('exports JSON across query pages, oldest first, to stdout', async () => {
    await writeGeneratedCsv(file('json.csv'), 25);
    await world.cli(['subscribers', 'import', '--file', 'json.csv', '--concurrency', '1']);
    const result = await world.cli([
      'subscribers',
      'export',
      '--format',
      'json',
      '--page-size',
      '7',
    ]);
    expect(result.code).toBe(0);
    const subscribers = JSON.parse(result.stdout) as Subscriber[];
    expect(subscribers).toHaveLength(25);
    expect(subscribers.map((s) => s.email)).toEqual(
      Array.from({ length: 25 }, (_, i) =>
        i % 5 === 0 ? `first.last+tag${i}@sub${i % 3}.example.org` : `user${i}@example.com`,
      ),
    );
    expect(Object.keys(subscribers[0] ?? {}).sort()).toEqual([
      'consent',
      'created',
      'email',
      'gender',
      'id',
      'lists',
      'name',
      'profile',
      'status',
      'surname',
      'updated',
    ]);
    // [subscribe.consent] The export carries the evidence: these joined through the import.
    expect(subscribers[0]?.consent).toMatchObject({ channel: 'import' });
    const empty = await (await cliWorld()).cli(['subscribers', 'export', '--format', 'json']);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('an exported file is readable only by its owner and never left half-written', async () => {
    await writeGeneratedCsv(file('mode.csv'), 3);
    await world.cli(['subscribers', 'import', '--file', 'mode.csv']);
    await world.cli(['subscribers', 'export', '--out', 'out.csv']);
    expect((await stat(file('out.csv'))).mode & 0o777).toBe(0o600);
    expect((await readdir(world.dir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('shows a progress bar on a terminal, and only the summary otherwise', async () => {
    await writeGeneratedCsv(file('tty.csv'), 40);
    const tty = await world.cli(['subscribers', 'import', '--file', 'tty.csv'], {
      ttyStderr: true,
    });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/Importing .*100% \| 40 rows: 40 new, 0 existing, 0 rejected/);
    const piped = await world.cli(['subscribers', 'export', '--out', 'tty-out.csv']);
    expect(piped.stderr).toBe('Exported 40 subscribers to tty-out.csv.\n');
    const exportTty = await world.cli(['subscribers', 'export', '--out', 'tty-out.csv'], {
      ttyStderr: true,
    });
    expect(exportTty.stderr).toMatch(/Exporting subscribers \| 40 written/);
  });
});

describe('subscribers import: bad rows', () => {
  it('reports every rejected or existing row with its row number and imports the good ones', async () => {
    // Arrange: one address exists already; rows 4.. are bad in different ways.
    await world.cli(['subscribers', 'import', '--file', await seed('seed.csv', 'old@example.com')]);
    const lines = [
      'email,name,lists,status,gender,profile_city',
      'good1@example.com,Good,1 2,C,f,Paris', // row 2
      'GOOD2@Example.com,Good two,,S,,', // row 3
      'not-an-address,Bad,1,C,,', // row 4
      'unknown-list@example.com,Bad,1 99,C,,', // row 5
      'gender@example.com,Bad,,C,x,', // row 6
      'short@example.com,Bad', // row 7
      'old@example.com,Again,,C,,', // row 8
      'good1@example.com,Twice,,C,,', // row 9
      '"multi@example.com","two', // row 10, a quoted cell over two lines
      'lines",,C,,',
      'status@example.com,Bad,,Z,,', // row 12
      '',
      'good3@example.com,Last,4,U,n,Rome', // row 14, after a blank line
    ];
    await writeFile(file('bad.csv'), `${lines.join('\n')}\n`);
    // Act
    const result = await world.cli(['subscribers', 'import', '--file', 'bad.csv']);
    // Assert
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^Imported 3 new subscribers; 2 addresses already existed; 6 rows rejected\.\nReport of rows not imported: .*bad\.csv\.errors\.csv\n$/,
    );
    const report = parseCsv(await readFile(file('bad.csv.errors.csv'), 'utf8'));
    expect(report[0]).toEqual(['row', 'email', 'code', 'message']);
    expect(
      report
        .slice(1)
        .map(([row, email, code]) => [Number(row), email, code])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    ).toEqual([
      [4, 'not-an-address', 'invalid_email'],
      [5, 'unknown-list@example.com', 'unknown_list'],
      [6, 'gender@example.com', 'invalid_parameter'],
      [7, 'short@example.com', 'invalid_row'],
      [8, 'old@example.com', 'email_exists'],
      [9, 'good1@example.com', 'email_exists'],
      [10, 'multi@example.com', 'invalid_parameter'],
      [12, 'status@example.com', 'invalid_parameter'],
    ]);
    const messages = report.slice(1).map((row) => row[3]);
    expect(messages).toContain('lists: list 99 does not exist');
    expect(messages).toContain('name must not contain control characters');
    expect(messages).toContain('status must be one of S, C, U, B, P');

    expect(await world.store.getSubscriber('good1@example.com')).toMatchObject({
      name: 'Good',
      // Exactly the row's lists: an import adds no pre-assigned list.
      lists: [1, 2],
      status: 'C',
      gender: 'f',
      profile: { city: 'Paris' },
    });
    expect(await world.store.getSubscriber('good2@example.com')).toMatchObject({
      name: 'Good two',
      lists: [],
      status: 'S',
      profile: {},
    });
    expect(await world.store.getSubscriber('good3@example.com')).toMatchObject({
      lists: [4],
      status: 'U',
      gender: 'n',
    });
    expect(await world.store.getSubscriber('old@example.com')).toMatchObject({ name: 'Seed' });
    await expectNoDuplicates(4);
  });

  it('--status sets the status of rows that have none', async () => {
    await writeFile(file('nostatus.csv'), 'email\nplain@example.com\n');
    await world.cli(['subscribers', 'import', '--file', 'nostatus.csv', '--status', 'S']);
    expect((await world.store.getSubscriber('plain@example.com'))?.status).toBe('S');
  });

  it('refuses a file without email column, with unknown profile columns, or empty', async () => {
    await writeFile(file('noemail.csv'), 'name\nAda\n');
    const noEmail = await world.cli(['subscribers', 'import', '--file', 'noemail.csv']);
    expect(noEmail.code).toBe(1);
    expect(noEmail.stderr).toMatch(/no email column/);

    await writeFile(file('profile.csv'), 'email,profile_shoe_size\na@example.com,42\n');
    const profile = await world.cli(['subscribers', 'import', '--file', 'profile.csv']);
    expect(profile.code).toBe(1);
    expect(profile.stderr).toMatch(/not profile fields in the settings: profile_shoe_size/);

    await writeFile(file('empty.csv'), '');
    const empty = await world.cli(['subscribers', 'import', '--file', 'empty.csv']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/empty\.csv is empty/);

    const missing = await world.cli(['subscribers', 'import', '--file', 'nowhere.csv']);
    expect(missing.code).toBe(1);
    expect(await subscriberItems()).toEqual([]);
    expect(existsSync(file('noemail.csv.checkpoint'))).toBe(false);
  });

  it('stops at a CSV syntax error, naming the line, with nothing after it imported', async () => {
    await writeFile(
      file('syntax.csv'),
      'email,name\nok1@example.com,A\nok2@example.com,"B\nbad"x\nok3@example.com,D\n',
    );
    const result = await world.cli(['subscribers', 'import', '--file', 'syntax.csv']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /syntax\.csv is not valid CSV: Invalid Closing Quote: .* at line 4/,
    );
    expect(result.stderr).toMatch(/fix it and import it again/i);
    expect(await world.store.getSubscriber('ok3@example.com')).toBeUndefined();
    expect(existsSync(file('syntax.csv.checkpoint'))).toBe(false);
  });

  it('ignores columns it does not know, saying so', async () => {
    await writeFile(file('extra.csv'), 'email,signup_source,name\nx@example.com,web,Xavier\n');
    const result = await world.cli(['subscribers', 'import', '--file', 'extra.csv']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Ignoring columns: signup_source');
    expect(await world.store.getSubscriber('x@example.com')).toMatchObject({ name: 'Xavier' });
  });
});

describe('subscribers import: checkpoint and --resume', () => {
  it('--limit stops with a checkpoint; --resume continues after it', async () => {
    await writeGeneratedCsv(file('part.csv'), 300);
    // Act 1: stop after 100 rows, as a crash right after a checkpoint would.
    const first = await world.cli([
      'subscribers',
      'import',
      '--file',
      'part.csv',
      '--limit',
      '100',
      '--checkpoint-every',
      '10',
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /Imported 100 new subscribers.*\nStopped after 100 rows \(--limit\)\. Run again with --resume/,
    );
    const checkpoint = JSON.parse(await readFile(file('part.csv.checkpoint'), 'utf8'));
    expect(checkpoint).toMatchObject({ format: 1, row: 101 });
    await expectNoDuplicates(100);

    // A run without --resume does not silently start over.
    const fresh = await world.cli(['subscribers', 'import', '--file', 'part.csv']);
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toMatch(/stopped after row 101.*Pass --resume/);

    // Act 2
    const resumed = await world.cli(['subscribers', 'import', '--file', 'part.csv', '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe(
      'Imported 200 new subscribers; 0 addresses already existed; 0 rows rejected; 100 rows done by an earlier run skipped.\n',
    );
    expect(existsSync(file('part.csv.checkpoint'))).toBe(false);
    await expectNoDuplicates(300);
  });

  it('rows processed again after a crash are reported as existing, never duplicated', async () => {
    await writeGeneratedCsv(file('crash.csv'), 200);
    await world.cli(['subscribers', 'import', '--file', 'crash.csv', '--limit', '150']);
    // The crash: the last checkpoint said row 51, but rows up to 151 had been written, and
    // the report had a line for one of them.
    const checkpoint = JSON.parse(await readFile(file('crash.csv.checkpoint'), 'utf8'));
    await writeFile(file('crash.csv.checkpoint'), JSON.stringify({ ...checkpoint, row: 51 }));
    await writeFile(
      file('crash.csv.errors.csv'),
      'row,email,code,message\n40,a@example.com,invalid_email,kept\n120,b@example.com,invalid_email,dropped\n',
    );

    const resumed = await world.cli(['subscribers', 'import', '--file', 'crash.csv', '--resume']);

    expect(resumed.stdout).toMatch(
      /^Imported 50 new subscribers; 100 addresses already existed; 0 rows rejected; 50 rows done by an earlier run skipped\./,
    );
    await expectNoDuplicates(200);
    const report = parseCsv(await readFile(file('crash.csv.errors.csv'), 'utf8')).slice(1);
    // The line of row 40 (before the checkpoint) is kept; row 120's is replaced by this run's.
    expect(report.filter((row) => row[3] === 'kept')).toHaveLength(1);
    expect(report.filter((row) => row[3] === 'dropped')).toHaveLength(0);
    const existing = report.filter((row) => row[2] === 'email_exists').map((row) => Number(row[0]));
    expect(existing.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => 52 + i));
  });

  it('a resume refuses a file that changed since the checkpoint', async () => {
    await writeGeneratedCsv(file('changed.csv'), 20);
    await world.cli(['subscribers', 'import', '--file', 'changed.csv', '--limit', '5']);
    await writeGeneratedCsv(file('changed.csv'), 30);
    const result = await world.cli(['subscribers', 'import', '--file', 'changed.csv', '--resume']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/changed since the checkpoint/);
    await expectNoDuplicates(5);
  });

  it('stops when DynamoDB fails mid-run; the checkpoint never passes an unwritten row', async () => {
    // Arrange: writes finish out of order, and every write after the 150th fails.
    await writeGeneratedCsv(file('outage.csv'), 400);
    const proxy = await startFailingProxy(runDynamoEndpoint(), 150);
    let stopped: Awaited<ReturnType<CliWorld['cli']>>;
    try {
      // Act 1
      stopped = await world.cli([
        '--endpoint-dynamodb',
        proxy.endpoint,
        'subscribers',
        'import',
        '--file',
        'outage.csv',
        '--checkpoint-every',
        '7',
      ]);
    } finally {
      await proxy.stop();
    }
    // Assert 1: exactly the writes that got through are stored, and every row up to the
    // checkpoint is among them.
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(
      /The import stopped: InternalServerError: injected failure\nEvery row up to row \d+ is done; run the same command with --resume/,
    );
    await expectNoDuplicates(150);
    const { row } = JSON.parse(await readFile(file('outage.csv.checkpoint'), 'utf8'));
    const stored = new Set((await subscriberItems()).map((item) => item.email));
    const csv = parseCsv(await readFile(file('outage.csv'), 'utf8'));
    // Row n of the file (header = row 1) is csv[n - 1]: no cell here spans lines.
    for (let n = 2; n <= row; n += 1) expect(stored.has(csv[n - 1]?.[0])).toBe(true);

    // Act 2: DynamoDB is back.
    const resumed = await world.cli(['subscribers', 'import', '--file', 'outage.csv', '--resume']);

    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/rows done by an earlier run skipped/);
    await expectNoDuplicates(400);
  }, 60_000);

  it('an import killed mid-run (SIGKILL) resumes to completion without duplicates', async () => {
    await writeGeneratedCsv(file('killed.csv'), 1_000);
    // 100 rows reach DynamoDB; the writes after them are held unanswered, so the import is
    // paused with rows in flight and its checkpoints written, whatever the machine's speed.
    const proxy = await startFailingProxy(runDynamoEndpoint(), 100, 'hold');
    const bin = join(import.meta.dirname, '../../bin/newsletter.mjs');
    const child = spawn(
      process.execPath,
      [
        bin,
        '--local',
        '--data-dir',
        world.dir,
        '--endpoint-dynamodb',
        proxy.endpoint,
        'subscribers',
        'import',
        '--file',
        'killed.csv',
        '--concurrency',
        '16',
        '--checkpoint-every',
        '20',
      ],
      { cwd: world.dir, stdio: 'ignore' },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    await proxy.holding;
    // The allowed writes are forwarded after a small delay each: wait until DynamoDB applied
    // them all, so the count below does not race them.
    await proxy.answered;
    // The checkpoint of the rows done so far is written as they complete; wait for the file
    // itself (the test's timeout bounds the wait, not a clock of ours).
    while (!existsSync(file('killed.csv.checkpoint'))) await sleep(10);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await proxy.stop();
    expect((await subscriberItems()).length).toBe(100);
    const { row } = JSON.parse(await readFile(file('killed.csv.checkpoint'), 'utf8'));
    expect(row).toBeGreaterThan(1);

    const resumed = await world.cli(['subscribers', 'import', '--file', 'killed.csv', '--resume']);

    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/rows done by an earlier run skipped/);
    await expectNoDuplicates(1_000);
  }, 60_000);
});

describe('subscribers unasked', () => {
  it('[subscribe.expiry-asked-only] lists the S subscribers never sent an activation, not those asked or confirmed', async () => {
    await writeFile(file('mixed.csv'), 'email,status\nquiet@example.com,S\nsure@example.com,C\n');
    await world.cli(['subscribers', 'import', '--file', 'mixed.csv']);
    // An S that was asked: its activation went out.
    const asked = {
      id: await world.store.nextId('subscriber'),
      email: 'asked@example.com',
      name: '',
      surname: '',
      gender: '' as const,
      lists: [],
      profile: {},
      status: 'S' as const,
      created: '2026-11-01T00:00:00.000Z',
      updated: '2026-11-01T00:00:00.000Z',
      version: 1,
      tokens: {},
      activation_sent_at: Date.parse('2026-11-01T00:00:00.000Z'),
      activation_log: [Date.parse('2026-11-01T00:00:00.000Z')],
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
    };
    expect(await world.store.createSubscriber(asked)).toBe(true);

    const table = await world.cli(['subscribers', 'unasked']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('quiet@example.com');
    expect(table.stdout).toContain('import');
    expect(table.stdout).not.toContain('asked@example.com');
    expect(table.stdout).not.toContain('sure@example.com');
    expect(table.stderr).toContain('1 subscriber never asked to confirm');

    const json = await world.cli(['subscribers', 'unasked', '--format', 'json']);
    expect(JSON.parse(json.stdout).map((s: { email: string }) => s.email)).toEqual([
      'quiet@example.com',
    ]);
  });
});

/** A one-row file for an address that must exist beforehand. */
async function seed(name: string, email: string): Promise<string> {
  await writeFile(file(name), `email,name\n${email},Seed\n`);
  return name;
}
