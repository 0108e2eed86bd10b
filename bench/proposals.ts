/**
 * `npm run bench -- --proposals`: builds the functions with each proposed change and times
 * them the same way as the deployed bundles, so every proposal in the report comes with a
 * measured gain. Code changes in shared/ and functions/ are simulated by swapping the module
 * they replace for the proposed implementation in bench/proposals/ at build time (an esbuild
 * plugin); the functions' sources stay as they are.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Plugin } from 'esbuild';
import { routes } from '../functions/routes.ts';
import { FUNCTION_BUNDLING } from '../infra/cdk/constructs/newsletter-function.ts';
import { type Bundle, buildAll, buildBundle, PROJECT_ROOT, REFERENCE } from './bundles.ts';
import { type InitTiming, measureInit } from './init-time.ts';
import { kb, markdownTable, ms, type Row, TARGETS, times } from './report.ts';
import { ratio } from './stats.ts';

const PROPOSALS = join(PROJECT_ROOT, 'bench', 'proposals');

/** Swaps imports matching `filter` for a proposal module. */
function swap(name: string, filter: RegExp, file: string): Plugin {
  return {
    name,
    setup(build) {
      build.onResolve({ filter }, () => ({ path: join(PROPOSALS, file) }));
    },
  };
}

const LIGHT_SSM = swap('light-ssm', /^@aws-sdk\/client-ssm$/, 'ssm-light.ts');
const FORMDATA = swap('formdata', /^@fastify\/busboy$/, 'busboy-formdata.ts');
const LIGHT_MIME = swap('light-mime', /^nodemailer\/lib\/mail-composer$/, 'mail-composer-light.ts');
const LAZY_SES = swap('lazy-ses', /\/aws\/ses-client\.ts$/, 'lazy-ses-client.ts');
// C4 (LAZY_SES) is measured alone; it showed no gain above noise, so the sets leave it out.
const CODE_CHANGES = [LIGHT_SSM, FORMDATA, LIGHT_MIME];

const NO_KEEP_NAMES: BundlingOptions = { ...FUNCTION_BUNDLING, keepNames: false };
const ENV_CREDENTIALS: BundlingOptions = {
  ...FUNCTION_BUNDLING,
  // A bundling option CDK passes as `--alias:…`; the path is relative to the project root.
  esbuildArgs: {
    '--alias': '@aws-sdk/credential-provider-node=./bench/proposals/lambda-credentials.ts',
  },
};
const BOTH_BUNDLING: BundlingOptions = { ...ENV_CREDENTIALS, keepNames: false };

/** One way of building the functions. */
interface Variant {
  readonly key: string;
  readonly title: string;
  readonly bundling: BundlingOptions;
  readonly plugins: readonly Plugin[];
  /** Bundles of this variant whose cold start is timed (the reference always is). */
  readonly timed: readonly string[] | 'all';
  /** Time with NODE_OPTIONS unset instead of the functions' `--enable-source-maps`. */
  readonly withoutSourceMaps?: boolean;
}

const REPRESENTATIVE = ['subscribers-list', 'subscribe', 'subscription-confirm'];

const VARIANTS: readonly Variant[] = [
  {
    key: 'deployed',
    title: 'As deployed (FUNCTION_BUNDLING)',
    bundling: FUNCTION_BUNDLING,
    plugins: [],
    timed: [...REPRESENTATIVE, 'openapi'],
  },
  {
    key: 'no-keep-names',
    title: 'B1 bundling: keepNames false',
    bundling: NO_KEEP_NAMES,
    plugins: [],
    timed: REPRESENTATIVE,
  },
  {
    key: 'env-credentials',
    title: 'B2 bundling: alias the credential chain to environment credentials',
    bundling: ENV_CREDENTIALS,
    plugins: [],
    timed: REPRESENTATIVE,
  },
  {
    key: 'light-ssm',
    title: 'C1 code: GetParameters without @aws-sdk/client-ssm',
    bundling: FUNCTION_BUNDLING,
    plugins: [LIGHT_SSM],
    timed: ['subscribers-list', 'subscribe'],
  },
  {
    key: 'formdata',
    title: 'C2 code: multipart with Response.formData() instead of busboy',
    bundling: FUNCTION_BUNDLING,
    plugins: [FORMDATA],
    timed: ['subscribers-list'],
  },
  {
    key: 'light-mime',
    title: 'C3 code: MIME writer instead of nodemailer',
    bundling: FUNCTION_BUNDLING,
    plugins: [LIGHT_MIME],
    timed: ['subscribe'],
  },
  {
    key: 'lazy-ses',
    title: 'C4 code: SES client built on first send',
    bundling: FUNCTION_BUNDLING,
    plugins: [LAZY_SES],
    timed: ['subscribe'],
  },
  {
    key: 'size-minimum',
    title: 'B2 + C1 + C3: the least that meets 400 KB',
    bundling: ENV_CREDENTIALS,
    plugins: [LIGHT_SSM, LIGHT_MIME],
    timed: REPRESENTATIVE,
  },
  {
    key: 'code',
    title: 'C1–C3 together, deployed bundling options',
    bundling: FUNCTION_BUNDLING,
    plugins: CODE_CHANGES,
    timed: REPRESENTATIVE,
  },
  {
    key: 'all',
    title: 'All: B1 + B2 + C1–C3',
    bundling: BOTH_BUNDLING,
    plugins: CODE_CHANGES,
    timed: 'all',
  },
  {
    key: 'all-no-source-maps',
    title: 'All, run without --enable-source-maps',
    bundling: BOTH_BUNDLING,
    plugins: CODE_CHANGES,
    timed: REPRESENTATIVE,
    withoutSourceMaps: true,
  },
];

/** The measured variants. */
export interface ProposalResults {
  readonly variants: readonly {
    readonly variant: Variant;
    readonly reference: Bundle;
    readonly functions: ReadonlyMap<string, Bundle>;
    readonly init: ReadonlyMap<string, InitTiming>;
  }[];
  /** C5: functions/openapi.ts as a handler of its own (deployed options). */
  readonly openapi: { readonly bundle: Bundle; readonly init: InitTiming | undefined };
}

/** Builds every variant and times the bundles each one names. */
export async function measureProposals(
  outdir: string,
  options: { pairs: number; env: NodeJS.ProcessEnv; progress: (message: string) => void },
): Promise<ProposalResults> {
  const built = [];
  for (const variant of VARIANTS) {
    const { reference, functions } = await buildAll(
      join(outdir, variant.key),
      variant.bundling,
      variant.plugins,
    );
    built.push({ variant, reference, functions });
  }
  const openapi = await buildBundle(
    'openapi (own handler)',
    join(PROPOSALS, 'openapi-handler.ts'),
    join(outdir, 'openapi-own'),
    FUNCTION_BUNDLING,
  );

  // Identical bytes need timing once: plugins leave the reference as it is.
  const environment = (variant: Variant): NodeJS.ProcessEnv =>
    variant.withoutSourceMaps ? { ...options.env, NODE_OPTIONS: '' } : options.env;
  const targets = new Map<string, { name: string; file: string; env: NodeJS.ProcessEnv }>();
  const keyOf = new Map<string, string>();
  const add = async (id: string, bundle: Bundle, env: NodeJS.ProcessEnv) => {
    const content = createHash('sha256')
      .update(await readFile(bundle.file))
      .update(env.NODE_OPTIONS ?? '')
      .digest('hex');
    keyOf.set(id, content);
    if (!targets.has(content)) targets.set(content, { name: id, file: bundle.file, env });
  };
  for (const { variant, reference, functions } of built) {
    await add(`${variant.key}/${REFERENCE}`, reference, environment(variant));
    const names = variant.timed === 'all' ? [...functions.keys()] : variant.timed;
    for (const name of names) {
      const bundle = functions.get(name);
      if (bundle) await add(`${variant.key}/${name}`, bundle, environment(variant));
    }
  }
  await add('openapi-own', openapi, options.env);
  options.progress(`  timing ${targets.size} distinct bundles, ${options.pairs} pairs each`);
  const timings = measureInit([...targets.values()], options.pairs, options.env, (round) => {
    if (round % 10 === 0 || round === options.pairs) options.progress(`  round ${round}`);
  });
  const byContent = new Map(
    [...targets.keys()].map((content, index) => [content, timings[index]] as const),
  );
  const timingOf = (id: string): InitTiming | undefined => {
    const content = keyOf.get(id);
    return content === undefined ? undefined : byContent.get(content);
  };

  return {
    variants: built.map(({ variant, reference, functions }) => {
      const init = new Map<string, InitTiming>();
      for (const name of [REFERENCE, ...functions.keys()]) {
        const timing = timingOf(`${variant.key}/${name}`);
        if (timing) init.set(name, timing);
      }
      return { variant, reference, functions, init };
    }),
    openapi: { bundle: openapi, init: timingOf('openapi-own') },
  };
}

/** The proposals table (one row per variant and bundle) and its Markdown section. */
export function proposalSection(results: ProposalResults): { table: string; markdown: string } {
  const rows: Row[] = [];
  const deployed = results.variants.find((entry) => entry.variant.key === 'deployed');
  for (const { variant, reference, functions, init } of results.variants) {
    const refInit = init.get(REFERENCE);
    const sizes = [...functions.values()].map((bundle) => bundle.bytes);
    const largest = Math.max(...sizes);
    const deployedLargest = Math.max(
      ...[...(deployed?.functions.values() ?? [])].map((bundle) => bundle.bytes),
    );
    rows.push({
      area: variant.key,
      subject: `${variant.title}: all bundles`,
      measured: `${kb(Math.min(...sizes))}–${kb(largest)}; reference ${kb(reference.bytes)}`,
      compared: `largest ${kb(largest - deployedLargest)} vs deployed`,
      target: `≤ ${kb(TARGETS.bundleBytes)}`,
      met: largest <= TARGETS.bundleBytes,
    });
    rows.push({
      area: variant.key,
      subject: 'reference init',
      measured: `+${ms(refInit?.overheadMs ?? Number.NaN)} ms (CPU +${ms(refInit?.overheadCpuMs ?? Number.NaN)} ms)`,
      compared: '—',
      target: '—',
    });
    for (const [name, timing] of init) {
      if (name === REFERENCE) continue;
      const bundle = functions.get(name);
      const route = routes.find((candidate) => candidate.name === name);
      const limit = route?.access.sendsMail ? TARGETS.heaviestInitRatio : TARGETS.mailLessInitRatio;
      const wall = ratio(timing.overheadMs, refInit?.overheadMs ?? Number.NaN);
      const deployedTiming = deployed?.init.get(name);
      rows.push({
        area: variant.key,
        subject: name,
        measured: `${kb(bundle?.bytes ?? Number.NaN)}; init +${ms(timing.overheadMs)} ms (CPU +${ms(timing.overheadCpuMs)} ms)`,
        compared: `${times(wall)} reference (CPU ${times(ratio(timing.overheadCpuMs, refInit?.overheadCpuMs ?? Number.NaN))})${
          deployedTiming && variant.key !== 'deployed'
            ? `; ${ms(timing.overheadMs - deployedTiming.overheadMs)} ms vs deployed`
            : ''
        }`,
        target: `≤ ${limit}×`,
        met: wall <= limit,
      });
    }
  }
  const own = results.openapi;
  const deployedRef = deployed?.init.get(REFERENCE);
  const deployedOpenapi = deployed?.init.get('openapi');
  rows.push({
    area: 'openapi-own',
    subject: 'C5 code: openapi as a handler of its own',
    measured: `${kb(own.bundle.bytes)}; init +${ms(own.init?.overheadMs ?? Number.NaN)} ms (CPU +${ms(own.init?.overheadCpuMs ?? Number.NaN)} ms)`,
    compared: `${times(ratio(own.init?.overheadMs ?? Number.NaN, deployedRef?.overheadMs ?? Number.NaN))} reference; deployed openapi +${ms(deployedOpenapi?.overheadMs ?? Number.NaN)} ms`,
    target: `≤ ${TARGETS.mailLessInitRatio}×`,
    met:
      ratio(own.init?.overheadMs ?? Number.NaN, deployedRef?.overheadMs ?? Number.NaN) <=
      TARGETS.mailLessInitRatio,
  });
  const table = markdownTable(rows);
  const markdown = `## Proposals, measured

\`npm run bench -- --proposals\` builds the functions with each proposed change (code changes
are swapped in at build time from bench/proposals/, the sources stay as they are) and times
them like the deployed bundles, ${results.variants[0]?.init.get(REFERENCE)?.pairs ?? '?'} pairs per
bundle. Each variant's ratios are to its own reference, built with the same options; "vs
deployed" is the change of the overhead in ms against the deployed bundle in the same run.

- B1 (bundling): \`keepNames: false\`. Every error class the code logs sets \`name\` itself.
- B2 (bundling): \`esbuildArgs: {'--alias': '@aws-sdk/credential-provider-node=…'}\` to a
  module exporting \`defaultProvider = fromEnv\` (bench/proposals/lambda-credentials.ts); Lambda
  always puts the role's credentials in the environment.
- C1 (shared/config, shared/aws): GetParameters as one SigV4-signed JSON POST
  (bench/proposals/ssm-light.ts) instead of \`@aws-sdk/client-ssm\`.
- C2 (functions/http/parse-request.ts): multipart via \`Response.formData()\`
  (bench/proposals/busboy-formdata.ts) instead of \`@fastify/busboy\`.
- C3 (shared/mail/build-mime.ts): a MIME writer (bench/proposals/mail-composer-light.ts)
  instead of nodemailer's MailComposer.
- C4 (shared/aws/ses-client.ts): SES client built on the first send.
- C5 (functions/openapi.ts): a handler of its own (bench/proposals/openapi-handler.ts).

C1–C4 pass the project's unit mail tests and end-to-end tests with the swap in place:
\`npx vitest run --config bench/proposals/vitest.config.ts test/unit/mail test/e2e\`.

${table}

Largest packages of the \`all\` variant:

${[...(results.variants.find((entry) => entry.variant.key === 'all')?.functions.values() ?? [])]
  .map(
    (bundle) =>
      `- \`${bundle.name}\` (${kb(bundle.bytes)}): ${bundle.packages
        .slice(0, 6)
        .map((entry) => `${entry.name} ${kb(entry.bytes)}`)
        .join(', ')}`,
  )
  .join('\n')}`;
  return { table, markdown };
}
