import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { buildConsole } from '../../console/build.ts';
import { collectOutput } from './collect-output.ts';

/** The repository root (cdk.json, package.json, node_modules). */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

/** Deployment context for a local synth; the rest comes from cdk.json. */
export interface SynthOptions {
  /** Folder to write the cloud assembly to. */
  readonly outdir: string;
  /** API Gateway stage, the first path segment (default `api`). */
  readonly stage?: string;
  /** SES identity the sender of the settings belongs to (default `example.com`). */
  readonly senderIdentity?: string;
  /** How long functions cache the key and the settings (default: the stack's own). */
  readonly parameterCacheSeconds?: number;
  /** Bundle every function (the deployed artifacts) or only write the template (faster). */
  readonly bundle: boolean;
  /** Further deployment context (`-c key=value`), e.g. throttling or CORS origins. */
  readonly context?: Readonly<Record<string, string>>;
}

/**
 * Runs the CDK CLI's `cdk synth`, offline, exactly as `npm run synth` and a deployment do,
 * so the local cloud runs the template and bundles a deployment would upload.
 *
 * @throws Error with the CLI's output when the synth fails (cdk-nag findings included).
 */
export async function synthesize(options: SynthOptions): Promise<string> {
  // The stack deploys the built console: build it beside the assembly unless one is given.
  const consoleDir =
    options.context?.consoleDir ?? (await buildConsole(`${resolve(options.outdir)}-console`));
  const context: Record<string, string> = {
    consoleDir,
    senderIdentity: options.senderIdentity ?? 'example.com',
    stage: options.stage ?? 'api',
    ...(options.parameterCacheSeconds === undefined
      ? {}
      : { parameterCacheSeconds: String(options.parameterCacheSeconds) }),
    ...(options.bundle ? {} : { bundling: 'false' }),
    ...options.context,
  };
  const args = [
    'synth',
    '--no-notices',
    '--quiet',
    '--output',
    options.outdir,
    ...Object.entries(context).flatMap(([key, value]) => ['--context', `${key}=${value}`]),
  ];
  const cli = resolve(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
  const { code, output } = await collectOutput(
    spawn(cli, args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  if (code !== 0) throw new Error(`cdk synth failed (exit ${code}):\n${output.slice(-4000)}`);
  return resolve(options.outdir);
}
