/**
 * The package as another team's Lambda uses it (issue 13): `npm run package` builds and packs
 * it, a consumer project (test/package/consumer/) installs the tarball, type-checks with a
 * standard NodeNext strict tsconfig, bundles its handler with plain esbuild, and runs the
 * bundle against DynamoDB Local and the settings as the extension serves them; its CDK app
 * wires a function with the package's helper.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ParametersExtension,
  startParametersExtension,
} from '../../infra/local/cloud/parameters-extension.ts';
import {
  type ParameterStore,
  startParameterStore,
} from '../../infra/local/stand-ins/parameter-store.ts';
import { buildPackage } from '../../infra/package/build-package.ts';
import { ENV_DEFAULTS } from '../../shared/runtime/environment.ts';
import { testSettings } from '../support/fixtures.ts';
import { freshStore } from '../support/local-dynamo.ts';
import { runDynamoEndpoint } from '../support/run-dynamo.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

let consumer: string;
let tarball: string;
/** What the consumer's `tsc` printed (its errors); it also emits out/ for the CDK app. */
let typeCheck: string;

beforeAll(() => {
  ({ tarball } = buildPackage());
  consumer = mkdtempSync(join(tmpdir(), 'newsletter-consumer-'));
  cpSync(join(import.meta.dirname, 'consumer'), consumer, { recursive: true });
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  execFileSync(
    'npm',
    ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    { cwd: consumer, stdio: 'pipe' },
  );
  // The consumer's own tooling and CDK (peers of the helper), as its project would have them.
  for (const name of ['@types/node', 'aws-cdk-lib', 'constructs']) {
    const link = join(consumer, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
  try {
    execFileSync(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8' });
    typeCheck = '';
  } catch (error) {
    typeCheck = String((error as { stdout?: string }).stdout ?? error);
  }
}, 300_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
  if (tarball) rmSync(tarball, { force: true });
});

describe('the packed package', () => {
  it('ships only the library: JavaScript, declarations, its README and manifest', () => {
    const listed = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    const unexpected = listed.filter(
      (path) => !/^package\/(.+\.js|.+\.d\.ts|README\.md|package\.json)$/.test(path),
    );
    expect(unexpected).toEqual([]);
    // Folders, not words: shared/operations/campaign/test-send.js is library code.
    expect(listed.some((path) => /\/(test|bench|\.ci|cdk\.out)\//.test(path))).toBe(false);
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules', 'serverless-newsletter', 'package.json'), 'utf8'),
    ) as {
      exports: Record<string, { types?: string }>;
      dependencies: Record<string, string>;
      engines: Record<string, string>;
    };
    expect(manifest.exports['.']?.types).toBe('./shared/index.d.ts');
    // The Lambda runtimes it runs on, not the range the repository's development tools need.
    expect(manifest.engines).toEqual({ node: '>=22' });
    expect(Object.keys(manifest.dependencies)).not.toContain('aws-cdk-lib');
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });

  it('type-checks in a consumer with a standard NodeNext strict tsconfig', () => {
    expect(typeCheck).toBe('');
  });

  it('bundles add_subscriber alone in at most 1.3x a bare DocumentClient bundle, without SES or a MIME composer, and it runs', {
    timeout: 60_000,
  }, async () => {
    const reference = await consumerBundle('src/reference.ts', 'reference');
    const bundle = await consumerBundle('src/handler.ts', 'bundle');
    // Issue 37: a consumer of one operation pays little more than the DynamoDB client it needs.
    expect(bundle.bytes / reference.bytes).toBeLessThanOrEqual(1.3);
    expect(bundle.inputs.filter((path) => /client-ses|nodemailer/.test(path))).toEqual([]);
    expect(bundle.inputs.some((path) => path.includes('@aws-sdk/lib-dynamodb'))).toBe(true);

    const { tableName, client } = await freshStore();
    let store: ParameterStore | undefined;
    let extension: ParametersExtension | undefined;
    try {
      store = await startParameterStore();
      store.put(ENV_DEFAULTS.settingsParameter, JSON.stringify(testSettings()));
      const credentials = { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: 'x' };
      extension = await startParametersExtension({
        functionName: 'consumer',
        environment: { PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false' },
        credentials,
        endpoint: store.endpoint,
      });
      const script =
        "const { handler } = await import('./bundle/index.mjs');" +
        "process.stdout.write(String(await handler({ email: 'imported@example.com', name: 'Ida' })));";
      // Asynchronously: the stand-ins it calls run in this process.
      const { stdout: id } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: consumer,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          AWS_SESSION_TOKEN: credentials.sessionToken,
          AWS_ENDPOINT_URL_DYNAMODB: runDynamoEndpoint(),
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          NEWSLETTER_TABLE: tableName,
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
        },
      });
      const item = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: 'SUBSCRIBER#imported@example.com', sk: 'subscriber' },
        }),
      );
      expect(item.Item).toMatchObject({ name: 'Ida', status: 'C', id: Number(id) });
    } finally {
      await extension?.stop();
      await store?.stop();
    }
  });

  it('bundles the function class in at most 1.3x a bare DocumentClient bundle: the campaign operations and their clients are in `Campaigns`, not in it', {
    timeout: 60_000,
  }, async () => {
    const reference = await consumerBundle('src/reference.ts', 'reference');
    const bundle = await consumerBundle('src/class-handler.ts', 'class-bundle');
    expect(bundle.bytes / reference.bytes).toBeLessThanOrEqual(1.3);
    expect(
      bundle.inputs.filter((path) => /client-(ses|sqs|scheduler)|nodemailer/.test(path)),
    ).toEqual([]);
    expect(bundle.inputs.some((path) => path.includes('@aws-sdk/lib-dynamodb'))).toBe(true);
  });

  it('the CDK helper grants add_subscriber exactly its calls and adds the extension', {
    timeout: 120_000,
  }, () => {
    const template = JSON.parse(
      execFileSync(process.execPath, ['out/stack.js'], { cwd: consumer, encoding: 'utf8' }),
    ) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
    const resources = Object.values(template.Resources);
    const statements = resources
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
      )
      .map((statement) => ({ Action: statement.Action, Resource: arnText(statement.Resource) }));
    expect(statements).toEqual([
      {
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: 'arn:aws:dynamodb:eu-west-1:123456789012:table/Newsletter-Table',
      },
      {
        Action: 'ssm:GetParameter',
        Resource: 'arn:aws:ssm:eu-west-1:123456789012:parameter/newsletter/settings',
      },
    ]);
    const fn = resources.find((resource) => resource.Type === 'AWS::Lambda::Function');
    if (!fn) throw new Error('the consumer stack has no function');
    expect(JSON.stringify(fn.Properties.Layers)).toContain(
      'AWS-Parameters-and-Secrets-Lambda-Extension',
    );
    const variables = (fn.Properties.Environment as { Variables: Record<string, string> })
      .Variables;
    expect(variables).toMatchObject({
      NEWSLETTER_TABLE: 'Newsletter-Table',
      NEWSLETTER_SETTINGS_PARAMETER: '/newsletter/settings',
      PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false',
    });
  });
});

/**
 * A handler of the consumer bundled with plain esbuild, as a consumer would (the reference
 * options of bench/bundles.ts): its bytes and the inputs with code in it (the metafile also
 * lists what tree shaking dropped).
 */
async function consumerBundle(
  entry: string,
  folder: string,
): Promise<{ readonly bytes: number; readonly inputs: string[] }> {
  const result = await build({
    absWorkingDir: consumer,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    outfile: join(consumer, folder, 'index.mjs'),
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.values(result.metafile.outputs);
  return {
    bytes: outputs.reduce((sum, output) => sum + output.bytes, 0),
    inputs: outputs.flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path),
    ),
  };
}

/** An ARN as CloudFormation would resolve it in the partition `aws`. */
function arnText(value: unknown): unknown {
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return value;
  return join[1]
    .map((part) =>
      typeof part === 'string'
        ? part
        : (part as { Ref?: string }).Ref === 'AWS::Partition'
          ? 'aws'
          : part,
    )
    .join(join[0]);
}
