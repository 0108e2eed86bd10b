/**
 * The CDK app as the CDK CLI runs it (cdk.json's `app` command, with the CLI's CDK_OUTDIR and
 * CDK_CONTEXT_JSON): `npx cdk synth` and `npx cdk deploy` as docs/deploy.md writes them build
 * the console the stack deploys, with no `npm run build:console` first (issue 51, point 12).
 * Bundling is skipped here, as `cdk synth` of another stack would; the global synth bundles.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CollectedOutput, collectOutput } from '../../infra/local/collect-output.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as {
  app: string;
  context: Record<string, unknown>;
};

const scratch = await mkdtemp(join(tmpdir(), 'newsletter-cdk-app-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** Runs cdk.json's app command as the CLI does: with CDK_OUTDIR and CDK_CONTEXT_JSON. */
function runApp(outdir: string, context: Record<string, unknown>): Promise<CollectedOutput> {
  return collectOutput(
    spawn(cdkJson.app, {
      cwd: ROOT,
      shell: true,
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify({
          ...cdkJson.context,
          'aws:cdk:bundling-stacks': [],
          ...context,
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

describe('the CDK app as `cdk synth` runs it', () => {
  it('builds the console beside the assembly when no consoleDir is given, and deploys that build', async () => {
    const outdir = join(scratch, 'cdk.out');
    const { code, output } = await runApp(outdir, { senderIdentity: 'example.com' });
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    const built = `${outdir}-console`;
    expect(existsSync(join(built, 'index.html'))).toBe(true);
    // The console's files are an asset of the assembly: what `cdk deploy` uploads.
    const staged = readdirSync(outdir).filter(
      (name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'index.html')),
    );
    expect(staged).toHaveLength(1);
    const [asset] = staged;
    expect(readFileSync(join(outdir, asset as string, 'index.html'), 'utf8')).toBe(
      readFileSync(join(built, 'index.html'), 'utf8'),
    );
  }, 120_000);
});
