import fc from 'fast-check';
import { setLogSink } from '../../shared/runtime/logger.ts';

// The service logs one JSON line per request; in tests that is noise around the results.
// Tests that look at log lines install their own sink. NEWSLETTER_TEST_LOGS=1 shows them.
if (!process.env.NEWSLETTER_TEST_LOGS) setLogSink(() => undefined);

/**
 * Every property test runs the same cases on every run, so CI is reproducible; a failure
 * prints its seed, and `FC_SEED=<seed>` replays it. `npm run test:seeds` tries other seeds.
 */
export const FC_SEED = Number(process.env.FC_SEED ?? 20_261_123);
fc.configureGlobal({ seed: FC_SEED });
