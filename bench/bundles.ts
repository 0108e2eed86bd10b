import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build, type Metafile, type Plugin } from 'esbuild';
import { sesFeedback } from '../functions/feedback/feedback-function.ts';
import { type Route, routes } from '../functions/routes.ts';
import { streamConsumers } from '../functions/streams/consumers.ts';
import { esbuildOptionsFor } from './esbuild-options.ts';

/** The repository root: esbuild runs there, as CDK's local bundling does. */
export const PROJECT_ROOT = join(import.meta.dirname, '..');

/** Name under which the reference bundle appears next to the functions. */
export const REFERENCE = 'reference';

/**
 * How the reference is built: plain esbuild as ../shared/spec/toolchain.md measures it,
 * `--bundle --minify --format=esm --platform=node --target=node22 --main-fields=module,main`,
 * with no option of ours, so that what the functions' own options save counts in their favour
 * and the yardstick does not move when those options change.
 */
export const REFERENCE_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  externalModules: [],
  mainFields: ['module', 'main'],
};

/** A built bundle and what its metafile says about it. */
export interface Bundle {
  /** Route name, or REFERENCE. */
  readonly name: string;
  /** The `.mjs` Lambda loads. */
  readonly file: string;
  /** Minified bytes of the `.mjs` only; the source map is a separate file. */
  readonly bytes: number;
  /** The same, gzip level 9: roughly what the deployment zip and the network carry. */
  readonly gzipBytes: number;
  /** Bytes of the separate `.mjs.map` (not counted above). */
  readonly mapBytes: number;
  /** `@aws-sdk/client-*` packages with code in the bundle, short names (`dynamodb`). */
  readonly clients: readonly string[];
  /** Output bytes per package (`nodemailer`, `@smithy/core`, `(app) shared`), largest first. */
  readonly packages: readonly { readonly name: string; readonly bytes: number }[];
}

/**
 * Builds one entry exactly as `bundling` says, into `outdir`, from `projectRoot` (another
 * checkout's, to compare with an earlier commit).
 */
export async function buildBundle(
  name: string,
  entry: string,
  outdir: string,
  bundling: BundlingOptions,
  plugins: readonly Plugin[] = [],
  projectRoot: string = PROJECT_ROOT,
): Promise<Bundle> {
  const options = esbuildOptionsFor(bundling, entry, outdir, projectRoot);
  const result = await build({ ...options, plugins: [...plugins] });
  const file = options.outfile ?? join(outdir, 'index.mjs');
  const content = await readFile(file);
  const map = await stat(`${file}.map`).catch(() => undefined);
  const output = outputOf(result.metafile ?? { inputs: {}, outputs: {} }, file);
  const packages = packageBytes(output);
  return {
    name,
    file,
    bytes: content.length,
    gzipBytes: gzipSync(content, { level: 9 }).length,
    mapBytes: map?.size ?? 0,
    clients: packages
      .map((entry) => /^@aws-sdk\/client-(.+)$/.exec(entry.name)?.[1])
      .filter((client): client is string => client !== undefined)
      .sort(),
    packages,
  };
}

/** The reference handler, built as `bundling` says (REFERENCE_BUNDLING for the yardstick). */
export function buildReference(
  outdir: string,
  bundling: BundlingOptions = REFERENCE_BUNDLING,
  name = REFERENCE,
): Promise<Bundle> {
  return buildBundle(
    name,
    join(PROJECT_ROOT, 'bench', 'reference-handler.ts'),
    join(outdir, name),
    bundling,
  );
}

/**
 * Every route's bundle, built as `bundling` says, from this checkout or from `projectRoot`
 * (an earlier commit's worktree, whose functions/ has a file of each route's name).
 */
export async function buildFunctions(
  outdir: string,
  bundling: BundlingOptions,
  plugins: readonly Plugin[] = [],
  only?: readonly string[],
  projectRoot: string = PROJECT_ROOT,
): Promise<Map<string, Bundle>> {
  const functions = new Map<string, Bundle>();
  for (const route of routes) {
    if (only && !only.includes(route.name)) continue;
    functions.set(
      route.name,
      await buildBundle(
        route.name,
        join(projectRoot, 'functions', `${route.name}.ts`),
        join(outdir, route.name),
        bundling,
        plugins,
        projectRoot,
      ),
    );
  }
  return functions;
}

/**
 * The functions off the request path, built as `bundling` says: the stream consumers
 * (functions/streams/<name>.ts) and the SES feedback function (functions/feedback/).
 */
export async function buildConsumers(
  outdir: string,
  bundling: BundlingOptions,
): Promise<Map<string, Bundle>> {
  const consumers = new Map<string, Bundle>();
  // SES's feedback drives one more function off the request path, built the same way.
  consumers.set(
    sesFeedback.name,
    await buildBundle(
      `feedback: ${sesFeedback.name}`,
      join(PROJECT_ROOT, 'functions', 'feedback', `${sesFeedback.name}.ts`),
      join(outdir, sesFeedback.name),
      bundling,
    ),
  );
  for (const consumer of streamConsumers) {
    consumers.set(
      consumer.name,
      await buildBundle(
        `stream: ${consumer.name}`,
        join(PROJECT_ROOT, 'functions', 'streams', `${consumer.name}.ts`),
        join(outdir, consumer.name),
        bundling,
      ),
    );
  }
  return consumers;
}

/**
 * The AWS clients a route's function should carry, from the route table: DynamoDB when it
 * touches the table, SES when it sends mail. None for SSM: the Parameters and Secrets extension
 * reads the key and the settings.
 */
export function expectedClients(route: Route): string[] {
  const clients: string[] = [];
  if (route.access.table.length > 0 || route.access.queries.length > 0) clients.push('dynamodb');
  if (route.access.sendsMail) clients.push('ses');
  return clients.sort();
}

function outputOf(metafile: Metafile, file: string): Metafile['outputs'][string] {
  const match = Object.entries(metafile.outputs).find(
    ([path]) => path.endsWith('.mjs') || path.endsWith('.js'),
  );
  if (!match) throw new Error(`bench: no JavaScript output in the metafile of ${file}`);
  return match[1];
}

/** Output bytes grouped by npm package, or by top folder for the project's own code. */
function packageBytes(
  output: Metafile['outputs'][string],
): { readonly name: string; readonly bytes: number }[] {
  const totals = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    if (input.bytesInOutput === 0) continue;
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
    const name = inPackage ?? `(app) ${path.replace(/^\.\//, '').split('/')[0]}`;
    totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}
