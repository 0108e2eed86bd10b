/**
 * The console's own small pieces that hold no API rule: finding an import file's records, and a
 * wall-clock time in a zone as the instant `schedule` takes.
 */
import { describe, expect, it } from 'vitest';
import { csvRecords } from '../../../console/src/csv-parts.ts';
import { instantOf } from '../../../console/src/zoned-time.ts';

describe('csvRecords', () => {
  it('finds records by quote state, with the line each starts on', () => {
    const file = 'email,name\na@x.net,A\n"b@x.net","B\nsecond line"\nc@x.net,C\r\n\nd@x.net,D';
    expect(csvRecords(file)).toEqual([
      { record: 'email,name', line: 1 },
      { record: 'a@x.net,A', line: 2 },
      { record: '"b@x.net","B\nsecond line"', line: 3 },
      { record: 'c@x.net,C', line: 5 },
      { record: 'd@x.net,D', line: 7 },
    ]);
    expect(csvRecords('\uFEFFemail\na@x.net').map((r) => r.record)).toEqual([
      '\uFEFFemail',
      'a@x.net',
    ]);
  });
});

describe('instantOf', () => {
  it('reads a date and time in the zone chosen, summer and winter time alike', () => {
    expect(instantOf('2027-01-15', '09:00', 'Europe/Amsterdam').toISOString()).toBe(
      '2027-01-15T08:00:00.000Z',
    );
    expect(instantOf('2027-07-15', '09:00', 'Europe/Amsterdam').toISOString()).toBe(
      '2027-07-15T07:00:00.000Z',
    );
    expect(instantOf('2027-07-15', '09:30', 'America/New_York').toISOString()).toBe(
      '2027-07-15T13:30:00.000Z',
    );
    expect(instantOf('2027-07-15', '09:30', 'UTC').toISOString()).toBe('2027-07-15T09:30:00.000Z');
  });
});
