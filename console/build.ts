/**
 * Builds the web console into static files: one minified ES module, its stylesheet and the
 * page. The stack deploys the folder (S3 behind CloudFront) and `npm start` serves it, so
 * both run the same files.
 */
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Where the built console lands. */
export const CONSOLE_DIST = fileURLToPath(new URL('./dist/', import.meta.url));

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/**
 * The most JavaScript the console may ship, gzipped (the console's issue: "under 150 KB"), so
 * it stays quick to load on a phone; the build fails above it.
 */
export const JS_BUDGET_GZIP_BYTES = 150 * 1024;

/** The gzipped size of every script in a built console folder, in bytes. */
export async function shippedJsGzipBytes(outDir: string = CONSOLE_DIST): Promise<number> {
  let total = 0;
  for (const name of await readdir(outDir)) {
    if (name.endsWith('.js'))
      total += gzipSync(await readFile(`${outDir}/${name}`), { level: 9 }).length;
  }
  return total;
}

/** Builds the console into `outDir` and returns the folder; throws above the JS budget. */
export async function buildConsole(
  outDir: string = CONSOLE_DIST,
  budget: number = JS_BUDGET_GZIP_BYTES,
): Promise<string> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const common = {
    outdir: outDir,
    bundle: true,
    minify: true,
    target: 'es2022',
    logLevel: 'warning',
  } as const;
  await build({
    ...common,
    entryPoints: { console: source('./src/main.tsx') },
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
  });
  // The preview frame's script is a classic one: its sandbox has an opaque origin, and a
  // module script would be a CORS request from it.
  await build({ ...common, entryPoints: { preview: source('./src/preview.ts') }, format: 'iife' });
  await copyFile(source('./src/console.css'), `${outDir}/console.css`);
  await copyFile(source('./index.html'), `${outDir}/index.html`);
  await copyFile(source('./preview.html'), `${outDir}/preview.html`);
  // Browsers ask every origin for it, the web version's readers too: served, not a 403.
  await copyFile(source('./favicon.ico'), `${outDir}/favicon.ico`);
  const size = await shippedJsGzipBytes(outDir);
  if (size > budget) {
    throw new Error(
      `The console ships ${size} bytes of JavaScript gzipped, over its budget of ${budget}: remove or replace the largest dependency (esbuild --metafile shows them).`,
    );
  }
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = await buildConsole();
  const size = await shippedJsGzipBytes(outDir);
  console.log(`console built in ${outDir}: ${(size / 1024).toFixed(1)} KB of JavaScript gzipped`);
}
