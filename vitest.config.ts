import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // DynamoDB Local, the local SES and the parameter store start once for the whole run.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/quiet-logs.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only queue up behind Java.
    maxWorkers: 2,
  },
});
