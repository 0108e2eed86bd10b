import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Bundle } from './bundles.ts';
import { PROJECT_ROOT } from './bundles.ts';

/** Whether the benchmark's bundles are the ones `cdk synth` packs into the assets. */
export interface CdkCheck {
  readonly ok: boolean;
  readonly text: string;
}

const sha256 = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

/**
 * Synthesises the app offline (as `npm run synth` does, into `outdir`) and compares every
 * function bundle with the `index.mjs` of an asset, byte for byte. A failed synth is reported,
 * not thrown: the benchmark stands without it, less proven.
 */
export async function checkAgainstCdk(
  bundles: readonly Bundle[],
  outdir: string,
): Promise<CdkCheck> {
  const synth = spawnSync(
    join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'),
    ['synth', '--no-notices', '--quiet', '-c', 'senderIdentity=example.com', '--output', outdir],
    {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      timeout: 300_000,
    },
  );
  if (synth.status !== 0) {
    const reason = `${synth.stderr ?? ''}${synth.error?.message ?? ''}`.trim().split('\n').at(-1);
    return { ok: false, text: `not checked: cdk synth failed (${reason ?? synth.status})` };
  }
  const assets = new Set<string>();
  for (const entry of await readdir(outdir)) {
    if (!entry.startsWith('asset.')) continue;
    const file = await readFile(join(outdir, entry, 'index.mjs')).catch(() => undefined);
    if (file) assets.add(sha256(file));
  }
  const missing: string[] = [];
  for (const bundle of bundles) {
    if (!assets.has(sha256(await readFile(bundle.file)))) missing.push(bundle.name);
  }
  return missing.length === 0
    ? {
        ok: true,
        text: `all ${bundles.length} function bundles are byte-identical to the assets of \`cdk synth\``,
      }
    : { ok: false, text: `differ from the \`cdk synth\` assets: ${missing.join(', ')}` };
}
