/**
 * A CSV part whose import DynamoDB fails under ([v2.subscribers-import-stop]): no lane takes
 * another row once a write failed, the writes under way finish before the answer, and the
 * answer is a 503 that says what the part wrote and which lines it did not.
 */
import { describe, expect, it } from 'vitest';
import { errorResponse } from '../../../functions/http/responses.ts';
import { DependencyError, isNewsletterError } from '../../../shared/domain/errors.ts';
import type { SubscriberRecord } from '../../../shared/domain/subscriber.ts';
import {
  type ImportPartDependencies,
  importCsvPart,
} from '../../../shared/operations/subscribers/import-csv-part.ts';
import { RecordingLogger, testSettings } from '../../support/fixtures.ts';

const ROWS = 40;
/** The write that fails: the 6th begun. */
const FAILING = 6;

/** A store whose writes take a few turns of the event loop; the FAILING-th one fails. */
function failingStore() {
  const events: string[] = [];
  let begun = 0;
  let inFlight = 0;
  const created: string[] = [];
  const turns = (n: number) =>
    Array.from({ length: n }).reduce<Promise<void>>(
      (chain) => chain.then(() => new Promise((go) => setImmediate(go))),
      Promise.resolve(),
    );
  const store = {
    async reserveIds(_kind: string, count: number) {
      return 1 + begun * count;
    },
    async createSubscriber(record: SubscriberRecord) {
      begun += 1;
      const n = begun;
      inFlight += 1;
      events.push(`start ${n}`);
      try {
        // Later writes take longer, so lanes overlap the failure.
        await turns(1 + (n % 3));
        if (n === FAILING) {
          events.push(`fail ${n}`);
          throw new DependencyError('dynamodb', { cause: new Error('throttled') });
        }
        created.push(record.email);
        events.push(`end ${n}`);
        return true;
      } finally {
        inFlight -= 1;
      }
    },
  };
  return { store, events, created, inFlight: () => inFlight };
}

describe('[v2.subscribers-import-stop] a part DynamoDB fails under', () => {
  it('stops taking rows, lets the writes under way finish, and answers what it wrote', async () => {
    const world = failingStore();
    const log = new RecordingLogger();
    const csv = `email,name\n${Array.from({ length: ROWS }, (_, i) => `r${i}@example.com,R${i}`).join('\n')}\n`;
    const deps = {
      // Only the writes an import makes are faked.
      store: world.store as unknown as ImportPartDependencies['store'],
      settings: async () => testSettings(),
      now: () => new Date('2026-12-01T09:00:00Z'),
      log,
    };

    const answer = await importCsvPart(deps, csv, { source: 'newsletter', defaultStatus: 'C' });

    // Nothing of the part is still writing when it answers, and nothing began after the failure.
    expect(world.inFlight()).toBe(0);
    const failedAt = world.events.indexOf(`fail ${FAILING}`);
    expect(failedAt).toBeGreaterThan(0);
    expect(world.events.slice(failedAt).filter((event) => event.startsWith('start'))).toEqual([]);
    expect(world.created.length).toBeLessThan(ROWS - 1);

    // A 503 that says what it wrote, and which lines (the header is line 1) it did not.
    if (!isNewsletterError(answer)) throw new Error('expected the import to stop');
    expect([answer.code, answer.status]).toEqual(['unavailable', 503]);
    const lineOf = (email: string) => Number(/^r(\d+)@/.exec(email)?.[1]) + 2;
    const written = new Set(world.created.map(lineOf));
    const all = Array.from({ length: ROWS }, (_, i) => i + 2);
    expect(answer.data?.import).toEqual({
      imported: world.created.length,
      existing: 0,
      rejected: [],
      unprocessed: all.filter((line) => !written.has(line)),
    });
    const body = JSON.parse(errorResponse(answer, 'req-1').body) as {
      data: { status: number; import: { unprocessed: number[] } };
    };
    expect(body.data.status).toBe(503);
    expect(body.data.import.unprocessed).toHaveLength(ROWS - world.created.length);
    expect(log.lines.map((line) => line.event)).toEqual(['dependency_unavailable']);
  });
});
