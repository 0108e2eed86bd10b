/**
 * Runs the project's tests with the proposed replacements swapped in, the same swaps
 * bench/proposals.ts makes at build time, so that each proposal is shown to behave, not only
 * to be smaller:
 *
 *   npx vitest run --config bench/proposals/vitest.config.ts test/unit/mail test/e2e
 */
import { join } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

const here = import.meta.dirname;

export default mergeConfig(
  base,
  defineConfig({
    root: join(here, '..', '..'),
    resolve: {
      alias: [
        { find: /^@aws-sdk\/client-ssm$/, replacement: join(here, 'ssm-light.ts') },
        { find: /^@fastify\/busboy$/, replacement: join(here, 'busboy-formdata.ts') },
        {
          find: /^nodemailer\/lib\/mail-composer$/,
          replacement: join(here, 'mail-composer-light.ts'),
        },
        {
          find: /^(\.\.\/)+(shared\/)?aws\/ses-client\.ts$/,
          replacement: join(here, 'lazy-ses-client.ts'),
        },
        {
          find: /^@aws-sdk\/credential-provider-node$/,
          replacement: join(here, 'lambda-credentials.ts'),
        },
      ],
    },
  }),
);
