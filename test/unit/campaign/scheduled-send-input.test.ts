/**
 * What a firing schedule passes the starter (readScheduledSend in schedule-campaign.ts): only an
 * input of the shape our schedules are made with is read; anything else is "not one of ours".
 */
import { describe, expect, it } from 'vitest';
import { readScheduledSend } from '../../../shared/operations/campaign/schedule-campaign.ts';

const AT = '2026-11-23T09:00:00Z';
const API_ROOT = 'https://api.example.com/api/newsletter/v1';

describe('a firing schedule’s input', () => {
  it('[campaign.schedule] reads the issue, its time and the scheduler’s api_root', () => {
    // Arrange / Act
    const read = readScheduledSend({ newsletter_id: 7, at: AT, api_root: API_ROOT });
    // Assert
    expect(read).toStrictEqual({ newsletter_id: 7, at: AT, api_root: API_ROOT });
  });

  it.each([
    ['no input', undefined],
    ['null', null],
    ['a schedule name', 'newsletter-7-20261123T090000Z'],
    ['an id as text', { newsletter_id: '7', at: AT }],
    ['a fractional id', { newsletter_id: 7.5, at: AT }],
    ['id 0', { newsletter_id: 0, at: AT }],
    ['a time that is no time', { newsletter_id: 7, at: 'tomorrow' }],
    // Date.parse would read both (it coerces to text): only a string is a schedule's time.
    ['a time as a number', { newsletter_id: 7, at: 2026 }],
    ['a time in a list', { newsletter_id: 7, at: [AT] }],
  ])('[campaign.schedule] is not one of ours with %s', (_what, input) => {
    expect(readScheduledSend(input)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['a number', 42],
    ['a list', [API_ROOT]],
  ])(
    '[campaign.schedule] leaves out an api_root that is %s, so links follow the settings',
    (_what, apiRoot) => {
      const read = readScheduledSend({ newsletter_id: 7, at: AT, api_root: apiRoot });
      expect(read).toStrictEqual({ newsletter_id: 7, at: AT });
    },
  );
});
