/** Other services' exports read as their documentation describes them ([import.sources]). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  type MappingOptions,
  sourceDelimiter,
  sourceMapping,
} from '../../../shared/domain/import-mapping.ts';
import { PreviewCounter } from '../../../shared/domain/import-preview.ts';
import type { ImportSource } from '../../../shared/domain/import-sources.ts';
import { SubscriberCsvError } from '../../../shared/domain/subscriber-csv.ts';
import { testSettings } from '../../support/fixtures.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/imports');
const settings = testSettings();
const confirmed: MappingOptions = { defaultStatus: 'C' };

/** A fixture's header and rows, split as the import splits them. */
function fixture(name: string, source: ImportSource): { header: string[]; rows: string[][] } {
  const text = readFileSync(join(FIXTURES, name), 'utf8');
  const [header = [], ...rows] = parse(text, {
    bom: true,
    delimiter: sourceDelimiter(source, text.split('\n')[0] ?? ''),
    relax_column_count: true,
    skip_empty_lines: true,
  }) as string[][];
  return { header, rows };
}

/** Each row of a fixture as the import would write it: address → status (and the row). */
function mapped(name: string, source: ImportSource, options: MappingOptions = confirmed) {
  const { header, rows } = fixture(name, source);
  const mapping = sourceMapping(source, header, settings, options);
  return {
    mapping,
    rows: rows.map((record) => {
      expect(mapping.lengthProblem(record)).toBeUndefined();
      return mapping.row(record);
    }),
  };
}

const statusesOf = (rows: readonly { email: string; status: string }[]) =>
  Object.fromEntries(rows.map((row) => [row.email, row.status]));

/** Every fixture with the addresses its source does not mail. */
const NOT_MAILED: readonly { file: string; source: ImportSource; emails: string[] }[] = [
  {
    file: 'original-newsletter-subscribers.csv',
    source: 'original',
    emails: ['alan@example.com', 'bounce@example.com', 'spam@example.com'],
  },
  {
    file: 'mailchimp-unsubscribed_members_export_1a2b3c.csv',
    source: 'mailchimp',
    emails: ['mc.left@example.com', 'mc.gone@example.com'],
  },
  {
    file: 'mailchimp-cleaned_members_export_1a2b3c.csv',
    source: 'mailchimp',
    emails: ['mc.hard@example.com'],
  },
  {
    file: 'listmonk-subscribers.csv',
    source: 'listmonk',
    emails: ['lm.off@example.com', 'lm.block@example.com'],
  },
  { file: 'substack-email_list.example.csv', source: 'substack', emails: ['ss.off@example.com'] },
];

describe('[import.sources] the original plugin’s export', () => {
  it('reads its `;`-separated, fully quoted rows with the trailing `;`, letters as ours', () => {
    // Act
    const { mapping, rows } = mapped('original-newsletter-subscribers.csv', 'original');

    // Assert
    expect(sourceDelimiter('original', '"Email";"Name";"Surname"')).toBe(';');
    expect(statusesOf(rows)).toEqual({
      'ada@example.com': 'C',
      'grace@example.com': 'S',
      'alan@example.com': 'U',
      'bounce@example.com': 'B',
      'spam@example.com': 'P',
      'eve@example.com': 'C',
    });
    expect(rows[0]?.parameters).toEqual({
      email: 'ada@example.com',
      name: 'Ada',
      surname: 'Lovelace',
      gender: 'f',
      profile: { '1': 'London' },
      lists: [1, 4],
    });
    // The original's formula guard (a leading ') is taken off, as our own export's is.
    expect(rows[5]?.parameters.name).toBe('=HYPERLINK(1)');
    const use = Object.fromEntries(mapping.columns.map(({ column, field }) => [column, field]));
    expect(use).toMatchObject({
      Email: 'email',
      Status: 'status',
      'Profile 1': 'profile_1',
      'Profile 2': 'not imported: no profile field 2 in the settings',
      'List 4': 'lists (list 4 when 1)',
      'List 7': 'not imported: no list 7 in the settings',
      Token: "not imported: not a field of the original plugin's export we store",
    });
  });

  it('refuses a row with a status letter it does not know, and a row of the wrong length', () => {
    // Arrange
    const { header, rows } = fixture('original-newsletter-subscribers.csv', 'original');
    const mapping = sourceMapping('original', header, settings, confirmed);
    const ada = rows[0] ?? [];
    const unknown = ada.map((cell, index) => (header[index] === 'Status' ? 'X' : cell));

    // Act
    const row = mapping.row(unknown);

    // Assert
    expect(row.refused).toBe('the original plugin status "X" is not one of s, c, u, b, p');
    expect(row.status).not.toBe('C');
    expect(mapping.lengthProblem(ada.slice(0, -2))).toBe(
      `the row has ${ada.length - 2} fields; the header has ${header.length}`,
    );
  });
});

describe('[import.sources] Mailchimp’s audience export', () => {
  it('takes each file’s status from the columns only that file has', () => {
    // Act
    const subscribed = mapped('mailchimp-subscribed_members_export_1a2b3c.csv', 'mailchimp');
    const unsubscribed = mapped('mailchimp-unsubscribed_members_export_1a2b3c.csv', 'mailchimp');
    const cleaned = mapped('mailchimp-cleaned_members_export_1a2b3c.csv', 'mailchimp');

    // Assert
    expect(statusesOf(subscribed.rows)).toEqual({
      'mc.ada@example.com': 'C',
      'mc.kay@example.com': 'C',
    });
    expect(subscribed.rows[0]?.parameters).toEqual({
      email: 'mc.ada@example.com',
      name: 'Ada',
      surname: 'Lovelace',
    });
    expect(statusesOf(unsubscribed.rows)).toEqual({
      'mc.left@example.com': 'U',
      'mc.gone@example.com': 'U',
    });
    expect(unsubscribed.mapping.statusRule).toBe('every row U: the file has UNSUB_TIME');
    expect(statusesOf(cleaned.rows)).toEqual({ 'mc.hard@example.com': 'B' });
  });

  it('refuses a file without its Email Address column', () => {
    expect(() => sourceMapping('mailchimp', ['email', 'name'], settings, confirmed)).toThrow(
      new SubscriberCsvError(
        "The file has no email address column, so it is not Mailchimp's export (the first row must be its header).",
      ),
    );
  });
});

describe('[import.sources] listmonk’s subscriber export', () => {
  it('maps enabled to the default status, disabled and blocklisted to U, attributes to profile fields', () => {
    // Act
    const { rows } = mapped('listmonk-subscribers.csv', 'listmonk', { defaultStatus: 'S' });

    // Assert
    expect(statusesOf(rows)).toEqual({
      'lm.ada@example.com': 'S',
      'lm.off@example.com': 'U',
      'lm.block@example.com': 'U',
    });
    expect(rows[0]?.parameters).toEqual({
      email: 'lm.ada@example.com',
      name: 'Ada Lovelace',
      profile: { company: 'Analytical Engines' },
    });
    expect(rows[0]?.droppedAttributes).toEqual(['plan']);
  });

  it('refuses a row whose attributes are not a JSON object, or whose status it does not know', () => {
    // Arrange
    const { header, rows } = fixture('listmonk-subscribers.csv', 'listmonk');
    const mapping = sourceMapping('listmonk', header, settings, confirmed);
    const ada = rows[0] ?? [];

    // Act
    const broken = mapping.row(ada.map((cell, i) => (header[i] === 'attributes' ? '[1]' : cell)));
    const unknown = mapping.row(ada.map((cell, i) => (header[i] === 'status' ? 'paused' : cell)));

    // Assert
    expect(broken.refused).toBe('attributes is not a JSON object');
    expect(unknown.refused).toBe(
      'listmonk status "paused" is not one of enabled, disabled, blocklisted',
    );
  });
});

describe('[import.sources] Substack’s email list', () => {
  it('maps email_disabled readers to U and the others to the default status', () => {
    // Act
    const { rows } = mapped('substack-email_list.example.csv', 'substack');

    // Assert
    expect(statusesOf(rows)).toEqual({
      'ss.free@example.com': 'C',
      'ss.paid@example.com': 'C',
      'ss.off@example.com': 'U',
    });
    expect(rows[0]?.parameters).toEqual({ email: 'ss.free@example.com' });
  });
});

describe('[import.sources] never confirmed', () => {
  it.each(NOT_MAILED)(
    '$file: the people $source does not mail keep a status that blocks mail',
    ({ file, source, emails }) => {
      for (const defaultStatus of ['C', 'S'] as const) {
        // Act
        const statuses = statusesOf(mapped(file, source, { defaultStatus }).rows);

        // Assert
        for (const email of emails) expect(['U', 'B', 'P']).toContain(statuses[email]);
      }
    },
  );

  it('gives the rows that name no list the lists asked for, and no others', () => {
    // Act
    const { rows } = mapped('original-newsletter-subscribers.csv', 'original', {
      defaultStatus: 'C',
      lists: [4],
    });

    // Assert
    expect(rows.map((row) => row.parameters.lists)).toEqual([[1, 4], [1], [1], [4], [1], [4]]);
  });
});

describe('[import.preview] the preview', () => {
  it('counts what an import would write by status, and the rows it would refuse', () => {
    // Arrange
    const { header, rows } = fixture('listmonk-subscribers.csv', 'listmonk');
    const counter = new PreviewCounter(
      sourceMapping('listmonk', header, settings, confirmed),
      settings,
    );
    const bad = (rows[0] ?? []).map((cell, i) => (header[i] === 'email' ? 'not-an-address' : cell));

    // Act
    for (const [index, record] of rows.entries()) counter.add(index + 2, record);
    counter.add(5, bad);
    counter.add(6, ['too', 'short']);
    const preview = counter.result();

    // Assert
    expect(preview).toMatchObject({
      source: 'listmonk',
      rows: 5,
      statuses: { C: 1, U: 2 },
      refused: 2,
      attributes_not_imported: ['city', 'plan'],
    });
    expect(preview.refusals.map(({ line, email }) => [line, email])).toEqual([
      [5, 'not-an-address'],
      [6, 'short'],
    ]);
    expect(preview.columns).toContainEqual({
      column: 'attributes',
      field: 'profile fields named by its keys',
    });
  });
});
