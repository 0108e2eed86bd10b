#!/usr/bin/env node
// The `newsletter` command: runs cli/main.ts through tsx, so the CLI needs no build step.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every run under Node 20; the CLI supports Node 20 deliberately.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
const { run } = await import('../cli/main.ts');
process.exitCode = await run(process.argv.slice(2));
