/** The pure rules of the campaign engine: pacing, the rate, the recheck, the link token. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { campaignRate, isRunComplete } from '../../../shared/domain/campaign/campaign.ts';
import {
  campaignLinkHash,
  mintCampaignLink,
  parseCampaignLink,
} from '../../../shared/domain/campaign/campaign-link.ts';
import {
  LATE_SLOT_MS,
  paceFor,
  slotTimes,
  takeSlot,
  WINDOW_SLACK_MS,
} from '../../../shared/domain/campaign/pace.ts';
import { listsPlannedUnder, recheckRecipient } from '../../../shared/domain/campaign/recipient.ts';
import { CHUNK_SIZE, chunkMessages } from '../../../shared/domain/campaign/work-messages.ts';
import type { SubscriberRecord } from '../../../shared/domain/subscriber.ts';
import { subscriberRecord } from '../../support/fixtures.ts';

/**
 * Send times of `workers` workers sharing one run's slots as the store's pace item shares
 * them: each reserves the next block after every slot reserved before (never before its own
 * now), takes its slots in order, drops one that is too late, and sends at the slot's time
 * plus a lateness from `late` (cycled). A worker is free again `busyMs` after a slot.
 */
function shared(
  rate: number,
  workers: number,
  seconds: number,
  late: readonly number[] = [0],
  busyMs = 1,
): number[] {
  const pace = paceFor(rate, workers, 4);
  let next = 0;
  const clocks = Array.from({ length: workers }, (_, worker) => worker * 7);
  const slots = clocks.map((): number[] => []);
  const sends: number[] = [];
  for (let turn = 0; ; turn += 1) {
    const worker = clocks.indexOf(Math.min(...clocks));
    const now = clocks[worker] as number;
    if (now > seconds * 1000) return sends;
    const own = slots[worker] as number[];
    const slot = takeSlot(own, now);
    if (slot === undefined) {
      const start = Math.max(now, next);
      next = start + pace.block * pace.spacingMs;
      own.push(...slotTimes(start, pace.block, pace));
      continue;
    }
    // The lateness is the send's own (a timer, the network): the worker's lanes go on.
    const at = Math.max(now, slot);
    sends.push(at + (late[turn % late.length] ?? 0));
    clocks[worker] = at + busyMs;
  }
}

/** The most sends in any window of `ms` (half-open) over the merged start times. */
function busiestWindow(times: readonly number[], ms = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= ms) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('[campaign.pacing] workers share one rate without exceeding it', () => {
  it('N workers together never send more than R in any second, and reach at least 90% of R', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 500 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: LATE_SLOT_MS }), { minLength: 1, maxLength: 20 }),
        (rate, workers, late) => {
          const sends = shared(rate, workers, 20, late);
          expect(busiestWindow(sends)).toBeLessThanOrEqual(Math.floor(rate));
          const span = (Math.max(...sends) - Math.min(...sends)) / 1000;
          expect(sends.length / span).toBeGreaterThanOrEqual(rate * 0.9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a rate that is not whole keeps its floor in any second: 11.2 sends 11, never 12', () => {
    const sends = shared(11.2, 2, 30);
    expect(busiestWindow(sends)).toBe(11);
  });

  it('below one mail per second, the slots are whole seconds and more apart', () => {
    const pace = paceFor(0.5, 2, 4);
    expect(pace.block).toBe(1);
    expect(pace.spacingMs).toBe((1000 + WINDOW_SLACK_MS) / 0.5);
    expect(busiestWindow(shared(0.5, 2, 20), 2000)).toBeLessThanOrEqual(1);
  });

  it('reserves nothing where the workers cannot reach the rate: 200 a second a lane', () => {
    expect(paceFor(1_599, 2, 4).unpaced).toBe(false);
    expect(paceFor(1_600, 2, 4).unpaced).toBe(true);
    expect(paceFor(80_000, 2, 4).unpaced).toBe(true);
  });

  it('drops a slot once it is more than LATE_SLOT_MS late, rather than send a bunch', () => {
    const slots = [0, 10, 40];
    expect(takeSlot(slots, LATE_SLOT_MS + 1)).toBe(10);
    expect(takeSlot(slots, 60)).toBeUndefined();
    expect(slots).toEqual([]);
  });

  it('refuses a rate of nothing', () => {
    expect(() => paceFor(0, 2, 4)).toThrow(RangeError);
  });
});

describe('[campaign.rate] a campaign never uses more than 80% of SES’s maximum send rate', () => {
  it('takes the settings’ rate under the ceiling, the ceiling otherwise', () => {
    expect(campaignRate(undefined, 14)).toBe(11.2);
    expect(campaignRate(5, 14)).toBe(5);
    expect(campaignRate(50, 14)).toBe(11.2);
    expect(campaignRate(undefined, 1)).toBe(0.8);
  });

  it('fails loudly when SES allows nothing', () => {
    expect(() => campaignRate(undefined, 0)).toThrow(RangeError);
  });
});

const subscriber = (overrides: Partial<SubscriberRecord> = {}): SubscriberRecord =>
  subscriberRecord({ confirmed_at: '2026-11-01T00:00:00.000Z', ...overrides });
const context = { lists: [1, 2], startedAt: '2026-11-20T00:00:00.000Z' };

describe('[campaign.recheck] each recipient is checked again when their mail goes out', () => {
  it('sends to a subscriber who is still C on one of the lists', () => {
    expect(recheckRecipient(7, subscriber(), context)).toEqual({ send: true });
    expect(recheckRecipient(7, subscriber({ confirmed_at: undefined }), context)).toEqual({
      send: true,
    });
  });

  it.each([
    ['deleted', undefined, 'deleted'],
    ['the address now another subscriber', subscriber({ id: 8 }), 'deleted'],
    ['unsubscribed', subscriber({ status: 'U' }), 'unsubscribed'],
    ['bounced', subscriber({ status: 'B' }), 'bounced'],
    ['complained', subscriber({ status: 'P' }), 'complained'],
    ['off the lists', subscriber({ lists: [3] }), 'off_lists'],
    [
      'confirmed after the start',
      subscriber({ confirmed_at: '2026-11-20T00:00:01.000Z' }),
      'confirmed_after_start',
    ],
  ] as const)('skips one %s', (_what, record, reason) => {
    expect(recheckRecipient(7, record, context)).toEqual({ send: false, reason });
  });

  it('plans C subscribers under each of their lists, once, and nobody else', () => {
    expect(listsPlannedUnder(subscriber({ lists: [2, 1, 2] }))).toEqual([2, 1]);
    for (const status of ['S', 'U', 'B', 'P'] as const)
      expect(listsPlannedUnder(subscriber({ status, lists: [1] }))).toEqual([]);
    expect(listsPlannedUnder(undefined)).toEqual([]);
  });
});

describe('recheck and planning edges', () => {
  it('[campaign.recheck] skips a subscriber no longer confirmed (S) as not_confirmed', () => {
    expect(recheckRecipient(7, subscriber({ status: 'S' }), context)).toEqual({
      send: false,
      reason: 'not_confirmed',
    });
  });

  it('[campaign.recheck] sends to one on one of the lists and on others too, or confirmed the very moment the run started', () => {
    expect(recheckRecipient(7, subscriber({ lists: [3, 2] }), context)).toEqual({ send: true });
    expect(recheckRecipient(7, subscriber({ confirmed_at: context.startedAt }), context)).toEqual({
      send: true,
    });
  });

  it('[campaign.plan] plans a subscriber on one of the lists and on others too', () => {
    expect(listsPlannedUnder(subscriber({ lists: [4, 1] }))).toContain(1);
  });
});

describe('pacing edges', () => {
  it('[campaign.pacing] a worker that keeps up sends its first mail at once', () => {
    expect(shared(50, 2, 1)[0]).toBe(0);
  });

  it('[campaign.pacing] refuses no workers, saying what it was given', () => {
    expect(() => paceFor(10, 0, 4)).toThrow('no pace for rate 10 over 0 workers');
    expect(() => paceFor(0, 2, 4)).toThrow('no pace for rate 0 over 2 workers');
  });
});

describe('[campaign.unsubscribe-link] campaign links carry ids and a secret only their hash checks', () => {
  it('round-trips, and the stored hash is not the secret', () => {
    const link = mintCampaignLink(12, 345, { run: 2, first: 301 });
    const parsed = parseCampaignLink(link.raw);
    expect(parsed).toMatchObject({
      newsletterId: 12,
      subscriberId: 345,
      chunk: { run: 2, first: 301 },
    });
    if (!parsed) throw new Error('unparsed');
    expect(campaignLinkHash(parsed)).toBe(link.hash);
    expect(link.raw).not.toContain(link.hash);
    expect(parsed.secret).toHaveLength(43);
  });

  it.each([
    '',
    'abc',
    '0.1.x',
    `1.2.${'a'.repeat(42)}`,
    `1.2.${'a'.repeat(44)}`,
    `01.2.${'a'.repeat(43)}`,
    42,
    // A repeated query parameter arrives as an array; read as text it would match.
    [`1.2.${'a'.repeat(43)}`],
  ])('refuses %j', (raw) => {
    expect(parseCampaignLink(raw)).toBeUndefined();
  });
});

describe('[campaign.complete] a run is over when every page is planned and every recipient settled', () => {
  it('needs both', () => {
    const counts = { total: 3, sent: 2, skipped: 1, failed: 0 };
    expect(isRunComplete({ ...counts, plan_done: true })).toBe(true);
    expect(isRunComplete({ ...counts, plan_done: false })).toBe(false);
    expect(isRunComplete({ ...counts, sent: 1, plan_done: true })).toBe(false);
  });

  it('chunks recipients for the workers without losing or repeating any', () => {
    const recipients = Array.from({ length: CHUNK_SIZE * 2 + 7 }, (_, i) => ({
      id: i + 1,
      email: `r${i}@example.com`,
    }));
    const chunks = chunkMessages(1, 1, recipients);
    expect(chunks.map((chunk) => chunk.recipients.length)).toEqual([CHUNK_SIZE, CHUNK_SIZE, 7]);
    expect(chunks.flatMap((chunk) => chunk.recipients)).toEqual(recipients);
  });
});

describe('run completion and chunking edges', () => {
  it('[campaign.complete] counts failed recipients as settled', () => {
    expect(isRunComplete({ total: 3, sent: 1, skipped: 1, failed: 1, plan_done: true })).toBe(true);
  });

  it('[campaign.complete] makes no empty chunk for a page that fills chunks exactly, or has no one', () => {
    const recipients = Array.from({ length: CHUNK_SIZE }, (_, i) => ({
      id: i + 1,
      email: `r${i}@example.com`,
    }));
    expect(chunkMessages(1, 1, recipients).map((chunk) => chunk.recipients.length)).toEqual([
      CHUNK_SIZE,
    ]);
    expect(chunkMessages(1, 1, [])).toEqual([]);
  });
});

it('[campaign.rate] says SES allows no sending, with the rate SES gave', () => {
  expect(() => campaignRate(undefined, 0)).toThrow('SES allows no sending (MaxSendRate 0)');
});
