/**
 * The subscriber export over HTTP, in parts ([v2.subscribers-csv]): each part reads at most its
 * pages of the `recent` index, and the parts concatenate into the file the CLI's export writes.
 */
import { stringify } from 'csv-stringify/sync';
import { expect, it } from 'vitest';
import type { ListingOptions } from '../../../shared/adapters/store/dynamo-store.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { SAFE_CELLS } from '../../../shared/domain/spreadsheet-cells.ts';
import { type SubscriberRecord, toSubscriber } from '../../../shared/domain/subscriber.ts';
import { exportColumns, subscriberRow } from '../../../shared/domain/subscriber-csv.ts';
import { v2SubscribersCsvPart } from '../../../shared/operations/v2/v2-subscribers-csv.ts';
import { testSettings } from '../../support/fixtures.ts';

const settings = testSettings({ profile_fields: [{ id: 'city', name: 'City' }] });

/** Subscribers with ids 3, 6, 9, ...; what each listing asked for is kept. */
function storeOf(count: number) {
  const records: SubscriberRecord[] = Array.from({ length: count }, (_, index) => ({
    id: (index + 1) * 3,
    email: `s${index}@example.com`,
    name: index % 2 ? '=SUM(A1)' : `Name, ${index}`,
    surname: '',
    gender: '',
    lists: [1, 2],
    profile: { city: 'Rome' },
    status: 'C',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    version: 1,
    tokens: {},
  }));
  const listings: ListingOptions[] = [];
  let read = 0;
  return {
    records,
    listings,
    read: () => read,
    store: {
      async *allSubscribers(options: ListingOptions = {}) {
        listings.push(options);
        for (const record of records) {
          if (record.id <= (options.after ?? 0)) continue;
          read += 1;
          yield record;
        }
      },
    },
  };
}

it('[v2.subscribers-csv] parts of at most `pages` pages concatenate into the CLI export', async () => {
  const world = storeOf(25);
  const deps = { store: world.store, settings: async () => settings };
  const texts: string[] = [];
  let after: string | undefined;
  const parts: { header: boolean; next?: number }[] = [];
  for (let round = 0; round < 10; round += 1) {
    const part = await v2SubscribersCsvPart(
      deps,
      after === undefined ? {} : { after },
      { pages: 2, bytes: 5_000_000 },
      5,
    );
    if (isNewsletterError(part)) throw new Error(part.message);
    texts.push(part.text);
    parts.push({ header: part.header, ...(part.next === undefined ? {} : { next: part.next }) });
    if (part.next === undefined) break;
    after = String(part.next);
  }
  // 25 rows, 10 a part: three parts, each after the last id of the one before.
  expect(parts).toEqual([
    { header: true, next: 30 },
    { header: false, next: 60 },
    { header: false },
  ]);
  const whole = stringify(
    [
      exportColumns(settings),
      ...world.records.map((record) => subscriberRow(toSubscriber(record), settings)),
    ],
    SAFE_CELLS,
  );
  expect(texts.join('')).toBe(whole);
  // The formula escape of the CLI's export.
  expect(whole).toContain(",'=SUM(A1),");
  // Each part read its own rows and at most the first of the next page, never the rest.
  expect(world.listings.map((listing) => listing.after)).toEqual([0, 30, 60]);
  expect(world.read()).toBeLessThanOrEqual(25 + 2);
});

it('[v2.subscribers-csv] a part ends before a page that would pass the byte limit; filters and a bad after are refused', async () => {
  const world = storeOf(12);
  const deps = { store: world.store, settings: async () => settings };
  const part = await v2SubscribersCsvPart(deps, {}, { pages: 5, bytes: 600 }, 4);
  if (isNewsletterError(part)) throw new Error(part.message);
  // The header and the first page always; the second page would pass 600 bytes.
  expect(part.next).toBe(12);
  expect(part.text.split('\n').filter(Boolean)).toHaveLength(1 + 4);
  for (const params of [{ status: 'confirmed' }, { list: '1' }, { search: 'a' }, { after: 'x' }]) {
    const refused = await v2SubscribersCsvPart(deps, params);
    expect(isNewsletterError(refused) && refused.code).toBe('invalid_parameter');
  }
});
