import fc from 'fast-check';
import { afterAll, expect } from 'vitest';
import { recordFileCpu } from './file-cpu.ts';
import { dropMadeTables } from './made-tables.ts';

/**
 * Every property test runs the same cases on every run, so CI is reproducible; a failure
 * prints its seed, and `FC_SEED=<seed>` replays it. `npm run test:seeds` tries other seeds.
 */
export const FC_SEED = Number(process.env.FC_SEED ?? 20_261_123);
fc.configureGlobal({ seed: FC_SEED });

// Each file's tables go when it ends: the run's one DynamoDB Local slows down as they pile up.
afterAll(dropMadeTables);

// Registered before each file's own hooks, so it runs after them (vitest runs afterAll hooks
// last-registered first): the file's stacks are stopped and their processes reaped by then.
afterAll(() => recordFileCpu(process.env.FILE_CPU_LOG, expect.getState().testPath));
