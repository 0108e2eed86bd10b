/**
 * `subscribers import --from SOURCE` ([import.sources]) and `--preview` ([import.preview]):
 * other services' exports, in their documented formats (test/fixtures/imports), into a table.
 */
import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from './cli-harness.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/imports');

let world: CliWorld;

beforeEach(async () => {
  await world?.close();
  world = await cliWorld();
});

afterAll(async () => {
  await world.close();
});

/** Copies a fixture into the world's folder, where the CLI reads it. */
async function given(name: string): Promise<string> {
  await copyFile(join(FIXTURES, name), join(world.dir, name));
  return name;
}

/** The status of each stored subscriber, by address, read from the base table. */
async function storedStatuses(): Promise<Record<string, unknown>> {
  const page = await world.client.send(new ScanCommand({ TableName: world.tableName }));
  return Object.fromEntries(
    (page.Items ?? [])
      .filter((item) => String(item.pk).startsWith('SUBSCRIBER#'))
      .map((item) => [item.email, item.status]),
  );
}

describe('[import.preview] subscribers import --preview', () => {
  it('prints each column and what it becomes and the rows by status, and writes nothing', async () => {
    // Arrange
    const name = await given('mailchimp-unsubscribed_members_export_1a2b3c.csv');
    const before = await readdir(world.dir);

    // Act
    const result = await world.cli([
      'subscribers',
      'import',
      '--file',
      name,
      '--from',
      'mailchimp',
      '--preview',
    ]);

    // Assert
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Nothing was written. Read as: mailchimp.');
    expect(result.stdout).toMatch(/^Email Address +email$/m);
    expect(result.stdout).toMatch(/^UNSUB_TIME +status: every row U$/m);
    expect(result.stdout).toContain('Status: every row U: the file has UNSUB_TIME.');
    expect(result.stdout).toContain('2 rows: would write 2 U; 0 refused.');
    // No subscriber, no checkpoint, no error report.
    expect(await storedStatuses()).toEqual({});
    expect(await readdir(world.dir)).toEqual(before);
  });
});

describe('[import.sources] subscribers import --from', () => {
  it('imports each source’s export with its statuses kept, never confirming the people it does not mail', async () => {
    // Arrange
    const files = [
      ['original', 'original-newsletter-subscribers.csv'],
      ['mailchimp', 'mailchimp-subscribed_members_export_1a2b3c.csv'],
      ['mailchimp', 'mailchimp-unsubscribed_members_export_1a2b3c.csv'],
      ['mailchimp', 'mailchimp-cleaned_members_export_1a2b3c.csv'],
      ['listmonk', 'listmonk-subscribers.csv'],
      ['substack', 'substack-email_list.example.csv'],
    ] as const;

    // Act
    const results = [];
    for (const [source, name] of files)
      results.push(
        await world.cli(['subscribers', 'import', '--file', await given(name), '--from', source]),
      );

    // Assert
    expect(results.map(({ code }) => code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(results[0]?.stderr).toMatch(
      /^Reading original-newsletter-subscribers\.csv as original: Email → email, .*Status → status, .*List 4 → lists \(list 4 when 1\)/,
    );
    expect(await storedStatuses()).toEqual({
      'ada@example.com': 'C',
      'grace@example.com': 'S',
      'alan@example.com': 'U',
      'bounce@example.com': 'B',
      'spam@example.com': 'P',
      'eve@example.com': 'C',
      'mc.ada@example.com': 'C',
      'mc.kay@example.com': 'C',
      'mc.left@example.com': 'U',
      'mc.gone@example.com': 'U',
      'mc.hard@example.com': 'B',
      'lm.ada@example.com': 'C',
      'lm.off@example.com': 'U',
      'lm.block@example.com': 'U',
      'ss.free@example.com': 'C',
      'ss.paid@example.com': 'C',
      'ss.off@example.com': 'U',
    });
    expect(await world.store.getSubscriber('ada@example.com')).toMatchObject({
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      lists: [1, 4],
    });
  });

  it('--status S makes the mailed people unconfirmed and leaves the others as their source says', async () => {
    // Act
    for (const name of [
      'mailchimp-subscribed_members_export_1a2b3c.csv',
      'mailchimp-cleaned_members_export_1a2b3c.csv',
    ])
      await world.cli([
        'subscribers',
        'import',
        '--file',
        await given(name),
        '--from',
        'mailchimp',
        '--status',
        'S',
        '--lists',
        '1,4',
      ]);

    // Assert
    expect(await storedStatuses()).toEqual({
      'mc.ada@example.com': 'S',
      'mc.kay@example.com': 'S',
      'mc.hard@example.com': 'B',
    });
    expect((await world.store.getSubscriber('mc.kay@example.com'))?.lists).toEqual([1, 4]);
  });

  it('refuses Mailchimp’s non-subscribed file as confirmed, before reading the table', async () => {
    // Arrange
    await copyFile(
      join(FIXTURES, 'mailchimp-subscribed_members_export_1a2b3c.csv'),
      join(world.dir, 'nonsubscribed_email_audience_export_1a2b3c.csv'),
    );

    // Act
    const result = await world.cli([
      'subscribers',
      'import',
      '--file',
      'nonsubscribed_email_audience_export_1a2b3c.csv',
      '--from',
      'mailchimp',
    ]);

    // Assert
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/never opted in .* import it with --status S/);
    expect(await storedStatuses()).toEqual({});
  });
});
