import fc from 'fast-check';
import { afterAll } from 'vitest';
import { dropMadeTables } from './made-tables.ts';

/**
 * Every property test runs the same cases on every run, so CI is reproducible; a failure
 * prints its seed, and `FC_SEED=<seed>` replays it. `npm run test:seeds` tries other seeds.
 */
export const FC_SEED = Number(process.env.FC_SEED ?? 20_261_123);
fc.configureGlobal({ seed: FC_SEED });

// Each file's tables go when it ends: the run's one DynamoDB Local slows down as they pile up.
afterAll(dropMadeTables);
