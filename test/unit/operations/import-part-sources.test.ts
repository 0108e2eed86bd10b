/**
 * `POST /subscribers/import` with another service's export ([import.sources]) and its preview
 * ([import.preview]): the same mapping as the CLI, and a preview that touches no table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import type { SubscriberRecord } from '../../../shared/domain/subscriber.ts';
import {
  type ImportPartDependencies,
  importCsvPart,
  importPartOptions,
} from '../../../shared/operations/subscribers/import-csv-part.ts';
import { RecordingLogger, testSettings } from '../../support/fixtures.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/imports');
const text = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** A store that records every call made to it, and creates what it is given. */
function recordingStore() {
  const calls: string[] = [];
  const created: SubscriberRecord[] = [];
  const store = new Proxy(
    {
      async reserveIds(_kind: string, count: number) {
        return 1000 + created.length * count;
      },
      async createSubscriber(record: SubscriberRecord) {
        created.push(record);
        return true;
      },
    },
    {
      get(target, name, receiver) {
        calls.push(String(name));
        return Reflect.get(target, name, receiver);
      },
    },
  );
  return { store: store as unknown as ImportPartDependencies['store'], calls, created };
}

function deps(store: ImportPartDependencies['store']): ImportPartDependencies {
  return {
    store,
    settings: async () => testSettings(),
    now: () => new Date('2026-12-01T09:00:00Z'),
    log: new RecordingLogger(),
  };
}

describe('[import.preview] a previewed part', () => {
  it('answers the columns, the status rule and the rows by status, and calls the store not once', async () => {
    // Arrange
    const world = recordingStore();
    const csv = text('original-newsletter-subscribers.csv');

    // Act
    const answer = await importCsvPart(deps(world.store), csv, {
      source: 'original',
      defaultStatus: 'C',
      preview: true,
    });

    // Assert
    expect(world.calls).toEqual([]);
    expect(world.created).toEqual([]);
    if (isNewsletterError(answer) || !('preview' in answer)) throw new Error('no preview');
    expect(answer.preview).toMatchObject({
      source: 'original',
      rows: 6,
      statuses: { C: 2, S: 1, U: 1, B: 1, P: 1 },
      refused: 0,
      status_rule: expect.stringContaining('the Status column: s → S, c → C, u → U'),
    });
    expect(answer.preview.columns[0]).toEqual({ column: 'Email', field: 'email' });
  });
});

describe('[import.sources] a part of another service’s export', () => {
  it('writes a Mailchimp unsubscribed file as U, even when the default status is C', async () => {
    // Arrange
    const world = recordingStore();

    // Act
    const answer = await importCsvPart(
      deps(world.store),
      text('mailchimp-unsubscribed_members_export_1a2b3c.csv'),
      { source: 'mailchimp', defaultStatus: 'C', lists: [1] },
    );

    // Assert
    expect(answer).toEqual({ imported: 2, updated: 0, existing: 0, rejected: [] });
    expect(world.created.map(({ email, status, lists }) => ({ email, status, lists }))).toEqual(
      expect.arrayContaining([
        { email: 'mc.left@example.com', status: 'U', lists: [1] },
        { email: 'mc.gone@example.com', status: 'U', lists: [1] },
      ]),
    );
  });

  it('rejects the rows the mapping refuses, by line, and writes the others', async () => {
    // Arrange
    const world = recordingStore();
    const csv = `${text('listmonk-subscribers.csv')}0000,lm.new@example.com,New,{},paused,x,y\n`;

    // Act
    const answer = await importCsvPart(deps(world.store), csv, {
      source: 'listmonk',
      defaultStatus: 'C',
    });

    // Assert
    if (isNewsletterError(answer) || 'preview' in answer) throw new Error('no import');
    expect(answer.imported).toBe(3);
    expect(answer.rejected).toEqual([
      {
        line: 5,
        row: '0000,lm.new@example.com,New,{},paused,x,y',
        email: 'lm.new@example.com',
        code: 'invalid_parameter',
        reason: 'listmonk status "paused" is not one of enabled, disabled, blocklisted',
      },
    ]);
  });

  it('reads the query: source, preview, lists and status, and refuses what it does not know', () => {
    expect(importPartOptions({})).toEqual({
      source: 'newsletter',
      defaultStatus: 'C',
      preview: false,
    });
    expect(
      importPartOptions({ source: 'substack', preview: 'true', lists: '1,4', status: 'S' }),
    ).toEqual({ source: 'substack', defaultStatus: 'S', preview: true, lists: [1, 4] });
    for (const bad of [
      { source: 'hubspot' },
      { preview: 'yes' },
      { lists: '1,x' },
      { status: 'U' },
    ])
      expect(importPartOptions(bad)).toMatchObject({ code: 'invalid_parameter' });
  });
});
