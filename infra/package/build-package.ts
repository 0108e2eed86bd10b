/**
 * `npm run package`: builds the installable package other Lambdas use into dist/ and packs it
 * (serverless-newsletter-<version>.tgz in the project root). dist/ holds ESM JavaScript and
 * `.d.ts` compiled by tsc from the library's entry points (tsconfig.build.json), and a
 * package.json of its own: `exports` with `types`, only the dependencies the compiled code
 * imports (versions from ours), aws-cdk-lib and constructs as optional peers for the CDK
 * helper. Nothing else of the repository ships: no tests, benchmarks, infra or scripts.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DIST = join(ROOT, 'dist');

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly license?: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** Packages the CDK helper needs from the consumer's own CDK app. */
const PEERS = ['aws-cdk-lib', 'constructs'];

/**
 * The Node.js the library runs on: Lambda's nodejs22.x and nodejs24.x (Node 20 reached its end
 * of life in April 2026). Not the repository's own range, which the development tools set
 * (Babel 8 under Stryker wants 22.18): none of them ships in the package.
 */
const PACKAGE_ENGINES = { node: '>=22' };

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Bare module specifiers the compiled JavaScript imports, as package names. */
function importedPackages(files: readonly string[]): Set<string> {
  const packages = new Set<string>();
  const specifier =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const name = match[1] ?? match[2] ?? '';
      if (name.startsWith('.') || name.startsWith('node:')) continue;
      const parts = name.split('/');
      packages.add(name.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? name));
    }
  }
  return packages;
}

export function buildPackage(): { readonly dist: string; readonly tarball: string } {
  rmSync(DIST, { recursive: true, force: true });
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
  const files = filesUnder(DIST);
  const declarations = files.filter((file) => file.endsWith('.d.ts'));
  // tsc rewrites `./x.ts` to `./x.js` in JavaScript only; declarations get the same here, so
  // a consumer's compiler resolves them to the `.d.ts` beside each file.
  for (const file of declarations) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text.replace(/((?:from\s*|import\(\s*)['"]\.{1,2}\/[^'"]*?)\.ts(['"])/g, '$1.js$2'),
    );
  }
  const javascript = files.filter((file) => file.endsWith('.js'));
  const versions = { ...root.devDependencies, ...root.dependencies };
  const dependencies: Record<string, string> = {};
  const peerDependencies: Record<string, string> = {};
  // Declarations may name packages the JavaScript does not load (types only).
  const used = new Set([...importedPackages(javascript), ...importedPackages(declarations)]);
  for (const name of [...used].sort()) {
    const version = versions[name];
    if (!version) throw new Error(`package: ${name} is imported but not a dependency of ours`);
    if (PEERS.includes(name)) peerDependencies[name] = `^${version}`;
    else if (root.dependencies?.[name]) dependencies[name] = version;
    else throw new Error(`package: the library imports ${name}, a devDependency of ours`);
  }
  const entry = (path: string) => ({
    types: `./${path}.d.ts`,
    default: `./${path}.js`,
  });
  const manifest = {
    name: root.name,
    version: root.version,
    description: root.description,
    ...(root.license ? { license: root.license } : {}),
    type: 'module',
    sideEffects: false,
    engines: PACKAGE_ENGINES,
    exports: {
      '.': entry('shared/index'),
      './cdk': entry('infra/cdk/newsletter-access'),
      './package.json': './package.json',
    },
    main: './shared/index.js',
    types: './shared/index.d.ts',
    files: ['**/*.js', '**/*.d.ts', 'README.md'],
    dependencies,
    peerDependencies,
    peerDependenciesMeta: Object.fromEntries(
      Object.keys(peerDependencies).map((name) => [name, { optional: true }]),
    ),
  };
  writeFileSync(join(DIST, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(ROOT, 'docs', 'package.md'), join(DIST, 'README.md'));
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', ROOT], {
    cwd: DIST,
    encoding: 'utf8',
  });
  const [packed] = JSON.parse(output) as { filename: string }[];
  if (!packed) throw new Error('package: npm pack reported nothing');
  return { dist: DIST, tarball: join(ROOT, packed.filename) };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { tarball } = buildPackage();
  process.stdout.write(`${relative(process.cwd(), tarball)}\n`);
}
