import { defineConfig } from 'vitest/config';
import { fileOptions } from './vitest.config.ts';

/**
 * What `npm run mutate` (Stryker) runs against each mutant: the unit suites, and the
 * integration suites, which test the operations over DynamoDB Local and need no synthesized
 * stack, so only DynamoDB Local is started. The stack-level suites (e2e, hardening, deployed)
 * run the bundles `cdk synth` built before any mutant existed, so they could not see one.
 * MUTATE_SUITES=unit narrows a run to the unit suites (how much the pure domain's own tests
 * catch).
 */
const suites = (process.env.MUTATE_SUITES ?? 'unit,integration').split(',');

export default defineConfig({
  test: {
    ...fileOptions,
    include: suites.map((suite) => `test/${suite}/**/*.test.ts`),
    globalSetup: ['test/support/dynamo-global-setup.ts'],
    isolate: false,
    maxWorkers: 3,
  },
});
