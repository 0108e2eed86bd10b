/**
 * The measured side of the architecture decisions (docs/benchmarks.md, "Decisions"): what the
 * deployed bundles would weigh and how long they would take to load with each adopted choice
 * undone, and what a consumer of the package bundles. Alternatives are built from the real
 * sources with one module or option changed (bench/variants/), in the same run and with the
 * same timing as the deployed bundles.
 */
import { join } from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Plugin } from 'esbuild';
import {
  FUNCTION_BUNDLING,
  SOURCE_MAPS_AT_RUN_TIME,
} from '../infra/cdk/constructs/newsletter-function.ts';
import {
  type Bundle,
  buildBundle,
  buildFunctions,
  PROJECT_ROOT,
  REFERENCE_BUNDLING,
} from './bundles.ts';

/** Resolves imports matching `filter` to a module of bench/variants/. */
function swap(name: string, filter: RegExp, file: string): Plugin {
  return {
    name,
    setup(build) {
      build.onResolve({ filter }, () => ({ path: join(PROJECT_ROOT, 'bench', 'variants', file) }));
    },
  };
}

/** One adopted choice, undone. */
export interface Alternative {
  readonly key: string;
  /** What the deployed functions do instead. */
  readonly adopted: string;
  /** What this build does. */
  readonly alternative: string;
  readonly bundling: BundlingOptions;
  readonly plugins: readonly Plugin[];
  /** NODE_OPTIONS the alternative's bundles are timed with (the deployed functions set none). */
  readonly nodeOptions?: string;
}

const { esbuildArgs: _alias, ...WITHOUT_ALIAS } = FUNCTION_BUNDLING;

export const ALTERNATIVES: readonly Alternative[] = [
  {
    key: 'sdk-parameters',
    adopted: 'parameters through the Parameters and Secrets extension',
    alternative: '@aws-sdk/client-ssm GetParameters in the function',
    bundling: FUNCTION_BUNDLING,
    plugins: [swap('sdk-parameters', /\/extension-source\.ts$/, 'sdk-parameter-source.ts')],
  },
  {
    key: 'credential-chain',
    adopted: 'environment credentials only (esbuild alias)',
    alternative: "the SDK's default credential chain",
    bundling: WITHOUT_ALIAS,
    plugins: [],
  },
  {
    key: 'source-maps',
    adopted: 'source maps built, not enabled at run time',
    alternative: `NODE_OPTIONS=${SOURCE_MAPS_AT_RUN_TIME}`,
    bundling: FUNCTION_BUNDLING,
    plugins: [],
    nodeOptions: SOURCE_MAPS_AT_RUN_TIME,
  },
  {
    key: 'no-powertools',
    adopted: 'Powertools Logger and Metrics (EMF)',
    alternative: 'no logger, no metrics',
    bundling: FUNCTION_BUNDLING,
    plugins: [
      swap(
        'no-powertools',
        /^@aws-lambda-powertools\/(logger|metrics)(\/middleware)?$/,
        'no-powertools.ts',
      ),
    ],
  },
];

/** The functions each alternative is built for: one without mail, one with. */
export const DECISION_FUNCTIONS = ['subscribers-list', 'subscribe'] as const;

/** Every alternative's bundles of DECISION_FUNCTIONS, and the package consumers' bundles. */
export async function buildDecisions(outdir: string): Promise<{
  readonly alternatives: ReadonlyMap<string, ReadonlyMap<string, Bundle>>;
  readonly consumer: Bundle;
  readonly consumerClass: Bundle;
}> {
  const alternatives = new Map<string, ReadonlyMap<string, Bundle>>();
  for (const alternative of ALTERNATIVES) {
    alternatives.set(
      alternative.key,
      await buildFunctions(
        join(outdir, alternative.key),
        alternative.bundling,
        alternative.plugins,
        DECISION_FUNCTIONS,
      ),
    );
  }
  const consumer = await buildBundle(
    'consumer: add_subscriber only',
    join(PROJECT_ROOT, 'bench', 'consumer-handler.ts'),
    join(outdir, 'consumer'),
    REFERENCE_BUNDLING,
  );
  const consumerClass = await buildBundle(
    'consumer: Newsletter.add_subscriber (the class)',
    join(PROJECT_ROOT, 'bench', 'consumer-class-handler.ts'),
    join(outdir, 'consumer-class'),
    REFERENCE_BUNDLING,
  );
  return { alternatives, consumer, consumerClass };
}
