import { defineConfig } from 'vitest/config';
import SlowFoldersFirst from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // DynamoDB Local starts, and the stack is synthesized, once for the whole run.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What the suites assume, pinned rather than left to defaults: every file in a process of
    // its own (module state, log sinks and aws-ses-v2-local's one store per process).
    pool: 'forks',
    isolate: true,
    // Three on two cores: since the stacks' stream pollers idle at four reads a second, a file
    // spends much of its time waiting on its stack (mail, streams, queues), not on a core. On
    // this 2-core machine the whole run took 403 s with two workers and 385 s with three
    // (docs/testing.md, "Where the suite's time goes").
    maxWorkers: 3,
    // Longest files first also in a clean clone, which has no durations cached (CI).
    sequence: { sequencer: SlowFoldersFirst },
  },
});
