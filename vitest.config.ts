import { defineConfig } from 'vitest/config';
import type { InlineConfig } from 'vitest/node';
import SlowFoldersFirst from './test/support/sequencer.ts';

/** What every suite's files run with, the mutation runs' too (vitest.mutate.config.ts). */
export const fileOptions: InlineConfig = {
  setupFiles: ['test/support/setup.ts'],
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
};

/**
 * The suites that only import code and talk to the run's DynamoDB Local: the domain, the
 * operations over a table of their own, the CDK templates. They share a process per worker
 * (isolate: false), so aws-cdk-lib, the SDK and the domain are imported and warmed once per
 * worker rather than once per file: measured on this machine, the unit and integration files
 * took 127 CPU-s isolated and 90 shared, the infra files 65 and 27. The mutation runs have
 * run these files this way from the start.
 */
const SHARED_PROCESS = [
  'test/unit/**/*.test.ts',
  'test/integration/**/*.test.ts',
  'test/infra/**/*.test.ts',
  'test/rule-index.test.ts',
];

export default defineConfig({
  test: {
    // DynamoDB Local starts, and the stack is synthesized, once for the whole run: the root
    // config's global setup runs once, and both projects see what it provides.
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        test: { ...fileOptions, name: 'shared-process', include: SHARED_PROCESS, isolate: false },
      },
      {
        // Every file that runs the local cloud, a CLI or a DynamoDB Local of its own, in a
        // process of its own: module state, log sinks and aws-ses-v2-local's one store per
        // process.
        test: {
          ...fileOptions,
          name: 'own-process',
          include: ['test/**/*.test.ts'],
          exclude: [...SHARED_PROCESS, 'test/browser/**'],
          isolate: true,
        },
      },
      {
        // The same, in Chromium (`npm run test:browser`; README, "Tests").
        test: { ...fileOptions, name: 'browser', include: ['test/browser/**/*.test.ts'] },
      },
    ],
    // Two on two cores. Three once saved 18 s of 403 (docs/testing.md, "Where the suite's time
    // goes"), but since every stack sits behind the strict DynamoDB front and counts its
    // subscribers from the stream, three files at once starve each other and the one shared
    // DynamoDB Local: files that take 24-79 s alone (v2-journey, races) took 157-472 s in a
    // three-worker run, and tests that pass alone ran out of time (2026-11-29).
    maxWorkers: 2,
    // Longest files first also in a clean clone, which has no durations cached (CI).
    sequence: { sequencer: SlowFoldersFirst },
  },
});
