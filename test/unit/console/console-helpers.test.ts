/**
 * The console's own small pieces that hold no API rule: cutting an import file into the parts
 * `POST /subscribers/import` takes, and a wall-clock time in a zone as the instant `schedule`
 * takes.
 */
import { describe, expect, it } from 'vitest';
import { csvParts, csvRecords } from '../../../console/src/csv-parts.ts';
import { instantOf } from '../../../console/src/zoned-time.ts';

describe('csvParts', () => {
  it('repeats the header in every part of at most N records, with the file line of each', () => {
    // Arrange: five records after the header, one with a quoted line break.
    const file =
      'email,name\na@x.net,A\n"b@x.net","B\nsecond line"\nc@x.net,C\r\nd@x.net,D\ne@x.net,E\n';

    // Act
    const parts = csvParts(file, 2);

    // Assert
    expect(parts.map((part) => part.text)).toEqual([
      'email,name\na@x.net,A\n"b@x.net","B\nsecond line"\n',
      'email,name\nc@x.net,C\nd@x.net,D\n',
      'email,name\ne@x.net,E\n',
    ]);
    expect(parts.map((part) => part.firstLine)).toEqual([2, 5, 7]);
    expect(parts.map((part) => part.records)).toEqual([2, 2, 1]);
  });

  it('gives no part for a file with only a header, and drops a byte order mark', () => {
    expect(csvParts('\uFEFFemail\n')).toEqual([]);
    expect(csvRecords('\uFEFFemail\na@x.net').map((r) => r.record)).toEqual([
      '\uFEFFemail',
      'a@x.net',
    ]);
    expect(csvParts('\uFEFFemail\na@x.net')[0]?.text).toBe('email\na@x.net\n');
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
