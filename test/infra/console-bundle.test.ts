/**
 * The console's shipped JavaScript stays under 150 KB gzipped (the console's issue, "made to
 * be used"): the build measures it and fails above the budget.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole, JS_BUDGET_GZIP_BYTES, shippedJsGzipBytes } from '../../console/build.ts';

const made: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'console-bundle-'));
  made.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('[console.bundle] the console bundle', () => {
  it('ships its pages and the preview frame in under 150 KB of JavaScript gzipped', async () => {
    const dir = await buildConsole(await freshDir());

    const files = (await readdir(dir)).sort();
    expect(files).toEqual([
      'console.css',
      'console.js',
      'favicon.ico',
      'index.html',
      'preview.html',
      'preview.js',
    ]);
    expect(JS_BUDGET_GZIP_BYTES).toBe(150 * 1024);
    expect(await shippedJsGzipBytes(dir)).toBeLessThan(JS_BUDGET_GZIP_BYTES);
  });

  it('fails the build when the JavaScript is over the budget', async () => {
    await expect(buildConsole(await freshDir(), 1024)).rejects.toThrow(/over its budget of 1024/);
  });
});
