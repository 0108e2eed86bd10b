/** Scheduling an issue: the time a caller writes, the schedule's name and expression, lateness. */
import { describe, expect, it } from 'vitest';
import {
  decideFiring,
  parseScheduleTime,
  scheduleExpression,
  scheduleName,
  scheduleTimeText,
} from '../../../shared/domain/campaign/campaign-schedule.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';

const NOW = new Date('2026-11-22T10:00:00.000Z');

describe('[campaign.schedule] the time to send at', () => {
  it('reads an ISO time with a zone, in whole seconds', () => {
    // Arrange / Act
    const at = parseScheduleTime('2026-12-01T10:00:30.750+01:00', NOW);
    // Assert
    expect(at).toEqual(new Date('2026-12-01T09:00:30.000Z'));
    if (isNewsletterError(at)) throw new Error(at.message);
    expect(scheduleTimeText(at)).toBe('2026-12-01T09:00:30Z');
    expect(scheduleExpression(at)).toBe('at(2026-12-01T09:00:30)');
    expect(scheduleName(7, at)).toBe('newsletter-7-20261201T090030Z');
  });

  it.each([
    [undefined, 'missing_parameter'],
    ['', 'missing_parameter'],
    ['2026-12-01T09:00:00', 'invalid_parameter'], // no zone: whose 09:00?
    ['tomorrow', 'invalid_parameter'],
    ['2026-13-01T09:00:00Z', 'invalid_parameter'],
    [1764579600000, 'invalid_parameter'],
    ['2026-11-22T10:00:00Z', 'invalid_parameter'], // now is not the future
    ['2026-11-01T09:00:00Z', 'invalid_parameter'],
    ['2028-11-01T09:00:00Z', 'invalid_parameter'], // more than a year ahead
  ])('refuses %s with %s', (value, code) => {
    const at = parseScheduleTime(value, NOW);
    expect(isNewsletterError(at) && at.code).toBe(code);
  });
});

describe('what the caller is told about the time to send at', () => {
  it.each([
    ['2026-12-01T09:00Z', '2026-12-01T09:00:00.000Z'], // seconds may be left out
    ['2026-12-01T09:00:30Z', '2026-12-01T09:00:30.000Z'], // seconds without a fraction
    ['  2026-12-01T09:00:00Z\n', '2026-12-01T09:00:00.000Z'], // spaces around are dropped
    ['2027-11-23T10:00:00Z', '2027-11-23T10:00:00.000Z'], // exactly the longest time ahead: 366 days
  ])('[campaign.schedule] accepts %j', (value, expected) => {
    // Act
    const at = parseScheduleTime(value, NOW);

    // Assert
    expect(isNewsletterError(at) ? at.message : at.toISOString()).toBe(expected);
  });

  it.each([
    [null, 'missing_parameter', 'at is required'],
    [undefined, 'missing_parameter', 'at is required'],
    [
      '2026-12-01T09:00:00',
      'invalid_parameter',
      'at must be an ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z',
    ],
    [
      '12026-12-01T09:00:00Z',
      'invalid_parameter',
      'at must be an ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z',
    ],
    [
      ' 2026-11-01T09:00:00Z',
      'invalid_parameter',
      'at must be in the future (it is 2026-11-01T09:00:00Z)',
    ],
    ['2027-11-23T10:00:01Z', 'invalid_parameter', 'at must be within a year from now'],
  ])('[campaign.schedule] refuses %j with %s, saying why', (value, code, message) => {
    // Act
    const at = parseScheduleTime(value, NOW);

    // Assert
    expect(isNewsletterError(at) && { code: at.code, message: at.message }).toEqual({
      code,
      message,
    });
  });
});

describe('[campaign.schedule-late] a schedule that fires late does not send', () => {
  const issue = { status: 'scheduled', scheduled_at: '2026-12-01T09:00:00Z' };
  const at = (text: string) => new Date(text);

  it('sends on time and up to the lateness after it', () => {
    expect(decideFiring(issue, issue.scheduled_at, at('2026-12-01T09:00:00Z'), 15)).toEqual({
      kind: 'send',
    });
    expect(decideFiring(issue, issue.scheduled_at, at('2026-12-01T09:15:00Z'), 15)).toEqual({
      kind: 'send',
    });
  });

  it('does not send a moment later than the lateness, nor hours later', () => {
    expect(decideFiring(issue, issue.scheduled_at, at('2026-12-01T09:15:01Z'), 15)).toEqual({
      kind: 'late',
      lateByMs: 901_000,
    });
    expect(decideFiring(issue, issue.scheduled_at, at('2026-12-01T13:00:00Z'), 15)).toEqual({
      kind: 'late',
      lateByMs: 4 * 3_600_000,
    });
    expect(decideFiring(issue, issue.scheduled_at, at('2026-12-01T09:20:00Z'), 30).kind).toBe(
      'send',
    );
  });

  it('does nothing for an issue no longer scheduled for that time', () => {
    const fired = at('2026-12-01T09:00:00Z');
    for (const status of ['draft', 'sending', 'paused', 'sent', 'cancelled'])
      expect(decideFiring({ ...issue, status }, issue.scheduled_at, fired, 15).kind).toBe('stale');
    expect(
      decideFiring(
        { ...issue, scheduled_at: '2026-12-02T09:00:00Z' },
        issue.scheduled_at,
        fired,
        15,
      ).kind,
    ).toBe('stale');
  });
});
