/**
 * `npm run test:seeds [runs] [files…]`: the property-based suites with fresh random seeds, as
 * many runs as asked (default 3), beyond the one fixed seed every `npm test` uses. Prints each
 * seed and its outcome; a failing seed replays with `FC_SEED=<seed> npx vitest run <files>`.
 */
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

const [runsText, ...files] = process.argv.slice(2);
const runs = Number(runsText ?? 3);
const targets = files.length ? files : ['test/hardening', 'test/unit/params'];
let failed = 0;
for (let run = 1; run <= runs; run += 1) {
  const seed = randomInt(2 ** 31 - 1);
  const result = spawnSync('npx', ['vitest', 'run', ...targets], {
    env: { ...process.env, FC_SEED: String(seed) },
    stdio: 'inherit',
  });
  const ok = result.status === 0;
  if (!ok) failed += 1;
  process.stdout.write(`seed ${seed}: ${ok ? 'passed' : 'FAILED'}\n`);
}
process.exit(failed === 0 ? 0 : 1);
