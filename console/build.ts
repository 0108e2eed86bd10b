/**
 * Builds the web console into static files: one minified ES module, its stylesheet and the
 * page. The stack deploys the folder (S3 behind CloudFront) and `npm start` serves it, so
 * both run the same files.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Where the built console lands. */
export const CONSOLE_DIST = fileURLToPath(new URL('./dist/', import.meta.url));

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** Builds the console into `outDir` and returns the folder. */
export async function buildConsole(outDir: string = CONSOLE_DIST): Promise<string> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { console: source('./src/main.tsx') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'warning',
  });
  await copyFile(source('./src/console.css'), `${outDir}/console.css`);
  await copyFile(source('./index.html'), `${outDir}/index.html`);
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`console built in ${await buildConsole()}`);
}
