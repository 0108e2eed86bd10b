import { DynamoStore } from '../shared/adapters/store/dynamo-store.ts';
import { isNewsletterError } from '../shared/domain/errors.ts';
import type { Settings } from '../shared/domain/settings-schema.ts';
import { createNewsletter, type NewsletterOperations } from '../shared/newsletter.ts';
import { type CallContext, NO_METRICS } from '../shared/operations/dependencies.ts';
import { RecordingLogger } from '../test/support/fixtures.ts';
import { seedListings } from './capacity.ts';
import { CapacityMeter, createBenchTable, type LocalClients, totalUnits } from './dynamo.ts';
import { median, percentile, ratio } from './stats.ts';

/** One listing at one table size. */
export interface ScalePoint {
  readonly subscribers: number;
  /** Read units of one call (every call of the run consumed the same). */
  readonly readUnits: number;
  readonly medianMs: number;
  readonly p99Ms: number;
}

/** One listing at both sizes. */
export interface ScalingRow {
  readonly operation: string;
  readonly small: ScalePoint;
  readonly large: ScalePoint;
  readonly unitRatio: number;
  readonly latencyRatio: number;
}

/** Sizes and repetitions of the scaling run. */
export interface ScalingOptions {
  readonly small: number;
  readonly large: number;
  readonly repetitions: number;
  readonly progress: (message: string) => void;
}

const LISTINGS: readonly {
  name: string;
  run: (newsletter: NewsletterOperations) => Promise<unknown>;
}[] = [
  { name: 'subscribers', run: (newsletter) => newsletter.subscribers() },
  {
    name: 'newsletters (keyless)',
    run: (newsletter) => newsletter.newsletters({}, { trusted: false } satisfies CallContext),
  },
  { name: 'newsletters (with key)', run: (newsletter) => newsletter.newsletters() },
];

/**
 * `subscribers` and `newsletters` over a table of `small` and one of `large` 1 KB
 * subscribers (same item shape, same 40 issues). Both tables live in the same DynamoDB Local
 * and are queried alternately, call by call, so the latency ratio compares like with like.
 */
export async function measureScaling(
  clients: LocalClients,
  settings: Settings,
  options: ScalingOptions,
): Promise<ScalingRow[]> {
  const meter = new CapacityMeter(clients);
  const tables = [
    { size: options.small, name: 'scale-small' },
    { size: options.large, name: 'scale-large' },
  ];
  const stores: DynamoStore[] = [];
  for (const table of tables) {
    await createBenchTable(clients, table.name);
    const store = new DynamoStore(clients.doc, table.name, meter.listener);
    const started = performance.now();
    // Loaded in slices so that a long load shows it is alive.
    const slice = 20_000;
    for (let from = 1; from <= table.size; from += slice) {
      const count = Math.min(slice, table.size - from + 1);
      await seedListings(clients, store, table.name, settings, count, from);
      options.progress(`  ${table.name}: ${from + count - 1} of ${table.size} subscribers`);
    }
    const seconds = (performance.now() - started) / 1000;
    options.progress(
      `  ${table.name}: loaded in ${seconds.toFixed(1)} s (${Math.round(table.size / seconds)} items/s)`,
    );
    stores.push(store);
  }
  const newsletters = stores.map((store) =>
    createNewsletter({
      store,
      settings: async () => settings,
      now: () => new Date(),
      log: new RecordingLogger(),
      metrics: NO_METRICS,
    }),
  );
  const use = (index: number): NewsletterOperations => {
    const newsletter = newsletters[index];
    if (!newsletter) throw new Error('bench: no store');
    return newsletter;
  };

  const rows: ScalingRow[] = [];
  for (const listing of LISTINGS) {
    const units = stores.map(() => new Set<number>());
    const times = stores.map(() => [] as number[]);
    const warmUp = Math.min(30, options.repetitions);
    for (let round = 0; round < warmUp + options.repetitions; round += 1) {
      // Alternate which table goes first, so neither always runs right after the other.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const newsletter = use(index);
        meter.reset();
        const started = performance.now();
        const result = await listing.run(newsletter);
        const elapsed = performance.now() - started;
        if (isNewsletterError(result)) throw new Error(`bench: ${listing.name} failed`);
        if (round < warmUp) continue;
        times[index]?.push(elapsed);
        units[index]?.add(totalUnits(meter.snapshot().read));
      }
    }
    const point = (index: number): ScalePoint => {
      const seen = [...(units[index] ?? [])];
      if (seen.length !== 1) {
        throw new Error(`bench: ${listing.name} read units varied: ${seen.join(', ')}`);
      }
      return {
        subscribers: tables[index]?.size ?? 0,
        readUnits: seen[0] ?? Number.NaN,
        medianMs: median(times[index] ?? []),
        p99Ms: percentile(times[index] ?? [], 0.99),
      };
    };
    const small = point(0);
    const large = point(1);
    rows.push({
      operation: listing.name,
      small,
      large,
      unitRatio: ratio(large.readUnits, small.readUnits),
      latencyRatio: ratio(large.medianMs, small.medianMs),
    });
  }
  return rows;
}
