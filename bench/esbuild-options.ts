import { join } from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions, Loader, LogLevel } from 'esbuild';

/**
 * Turns the `NodejsFunction` bundling options into the esbuild build CDK runs for them, the
 * way aws-cdk-lib's `Bundling.buildEsbuildArgs` turns them into command-line flags. Options
 * this mapping does not know fail loudly: a new option must be mapped here before the
 * benchmarks can claim to measure what deploys.
 */
export function esbuildOptionsFor(
  bundling: BundlingOptions,
  entry: string,
  outdir: string,
  projectRoot: string,
): BuildOptions {
  const unknown = Object.keys(bundling).filter((key) => !MAPPED.has(key));
  if (unknown.length > 0) {
    throw new Error(`bench: bundling option(s) ${unknown.join(', ')} not mapped to esbuild yet`);
  }
  if (bundling.externalModules === undefined || bundling.nodeModules !== undefined) {
    // CDK's default externals depend on the runtime and feature flags; the functions set them.
    throw new Error('bench: set externalModules explicitly and no nodeModules');
  }
  if (bundling.target === undefined) {
    throw new Error('bench: set target explicitly (CDK would derive it from the runtime)');
  }
  const esm = bundling.format === 'esm';
  const sourceMapMode = bundling.sourceMapMode ?? (bundling.sourceMap ? 'default' : undefined);
  const options: BuildOptions = {
    absWorkingDir: projectRoot,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: bundling.target,
    outfile: join(outdir, esm ? 'index.mjs' : 'index.js'),
    minify: bundling.minify === true,
    keepNames: bundling.keepNames === true,
    external: [...bundling.externalModules],
    // The metafile does not change the output; the benchmarks read it to explain the size.
    metafile: true,
    logLevel: (bundling.logLevel as LogLevel | undefined) ?? 'warning',
  };
  if (bundling.format !== undefined) options.format = esm ? 'esm' : 'cjs';
  if (sourceMapMode !== undefined) {
    options.sourcemap = sourceMapMode === 'default' ? true : sourceMapMode;
    // CDK passes --sources-content only when it is false.
    if (bundling.sourcesContent === false) options.sourcesContent = false;
  }
  if (bundling.loader) options.loader = bundling.loader as Record<string, Loader>;
  if (bundling.define) options.define = bundling.define;
  if (bundling.tsconfig) options.tsconfig = join(projectRoot, bundling.tsconfig);
  if (bundling.banner) options.banner = { js: bundling.banner };
  if (bundling.footer) options.footer = { js: bundling.footer };
  if (bundling.mainFields) options.mainFields = [...bundling.mainFields];
  if (bundling.inject) options.inject = [...bundling.inject];
  for (const [flag, value] of Object.entries(bundling.esbuildArgs ?? {})) {
    // An array repeats the flag once per value, as CDK writes it.
    for (const one of Array.isArray(value) ? value : [value]) applyEsbuildArg(options, flag, one);
  }
  return options;
}

/** Bundling options the mapping understands; the rest only affect how CDK runs esbuild. */
const MAPPED = new Set<string>([
  'forceDockerBundling',
  'format',
  'target',
  'minify',
  'keepNames',
  'sourceMap',
  'sourceMapMode',
  'sourcesContent',
  'externalModules',
  'mainFields',
  'banner',
  'footer',
  'define',
  'loader',
  'inject',
  'tsconfig',
  'logLevel',
  'metafile',
  'esbuildArgs',
]);

/** The `esbuildArgs` flags the mapping knows, as CDK's `toCliArgsArray` writes them. */
function applyEsbuildArg(options: BuildOptions, flag: string, value: string | boolean): void {
  const text = String(value);
  switch (flag) {
    case '--legal-comments':
      options.legalComments = text as BuildOptions['legalComments'];
      return;
    case '--tree-shaking':
      options.treeShaking = value === true || text === 'true';
      return;
    case '--ignore-annotations':
      options.ignoreAnnotations = value === true || text === 'true';
      return;
    case '--conditions':
      options.conditions = text.split(',').filter(Boolean);
      return;
    case '--alias': {
      // CDK writes `--alias:old=new`; one alias per entry.
      const [from, to] = text.split('=');
      if (!from || !to) throw new Error(`bench: cannot read --alias ${text}`);
      options.alias = { ...options.alias, [from]: to };
      return;
    }
    case '--pure':
      options.pure = [...(options.pure ?? []), text];
      return;
    case '--drop':
      options.drop = [...(options.drop ?? []), text as 'console' | 'debugger'];
      return;
    default:
      throw new Error(`bench: esbuildArgs flag ${flag} not mapped to esbuild yet`);
  }
}
