import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteParameterCommand,
  GetParameterCommand,
  GetParametersCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  SSMClient,
  SSMServiceException,
} from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_HOST } from '../../infra/local/free-port.ts';
import { type ParameterStore, startParameterStore } from '../../infra/local/parameter-store.ts';

// Hoisted above the imports, so the SDK sees it whenever it decides to warn.
vi.hoisted(() => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
});

const SECRET = 'api-key-s3cr3t-value';

function ssmClient(endpoint: string, maxAttempts = 1): SSMClient {
  return new SSMClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts,
  });
}

describe('startParameterStore', () => {
  let dir: string;
  let store: ParameterStore;
  let ssm: SSMClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'param-store-test-'));
    store = await startParameterStore({});
    ssm = ssmClient(store.endpoint);
  });

  afterAll(async () => {
    ssm.destroy();
    await store.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers GetParameter for values put locally, with the real response shape', async () => {
    expect(store.endpoint).toBe(`http://${LOCAL_HOST}:${store.port}`);
    store.put('/newsletter/settings', '{"sender":"news@example.com"}');
    const { Parameter } = await ssm.send(new GetParameterCommand({ Name: '/newsletter/settings' }));
    expect(Parameter).toMatchObject({
      Name: '/newsletter/settings',
      Type: 'String',
      Value: '{"sender":"news@example.com"}',
      Version: 1,
      DataType: 'text',
      // The region comes from the caller's signature.
      ARN: 'arn:aws:ssm:eu-west-1:000000000000:parameter/newsletter/settings',
    });
    expect(Parameter?.LastModifiedDate).toBeInstanceOf(Date);
    expect(Math.abs((Parameter?.LastModifiedDate?.getTime() ?? 0) - Date.now())).toBeLessThan(
      60_000,
    );
  });

  it('throws ParameterNotFound for a missing name', async () => {
    const error = await ssm
      .send(new GetParameterCommand({ Name: '/missing' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParameterNotFound);
    expect((error as ParameterNotFound).$metadata.httpStatusCode).toBe(400);
  });

  it('hides SecureString values unless WithDecryption is set', async () => {
    store.put('/newsletter/api-key', SECRET, 'SecureString');
    const hidden = await ssm.send(new GetParameterCommand({ Name: '/newsletter/api-key' }));
    expect(hidden.Parameter?.Type).toBe('SecureString');
    expect(hidden.Parameter?.Value).toBeTypeOf('string');
    expect(hidden.Parameter?.Value).not.toContain(SECRET);
    // Stable like a stored ciphertext, not re-randomised per read.
    const again = await ssm.send(new GetParameterCommand({ Name: '/newsletter/api-key' }));
    expect(again.Parameter?.Value).toBe(hidden.Parameter?.Value);

    const shown = await ssm.send(
      new GetParameterCommand({ Name: '/newsletter/api-key', WithDecryption: true }),
    );
    expect(shown.Parameter?.Value).toBe(SECRET);
    expect(store.get('/newsletter/api-key')?.value).toBe(SECRET);
  });

  it('GetParameters lists missing names as InvalidParameters', async () => {
    store.put('/a/one', '1');
    store.put('/a/two', '2', 'SecureString');
    const out = await ssm.send(
      new GetParametersCommand({ Names: ['/a/one', '/a/two', '/a/none'], WithDecryption: true }),
    );
    expect(out.Parameters?.map((p) => [p.Name, p.Value])).toEqual([
      ['/a/one', '1'],
      ['/a/two', '2'],
    ]);
    expect(out.InvalidParameters).toEqual(['/a/none']);
  });

  it('PutParameter creates, refuses to overwrite silently, and versions overwrites', async () => {
    const created = await ssm.send(
      new PutParameterCommand({ Name: '/p/x', Value: 'v1', Type: 'String' }),
    );
    expect(created).toMatchObject({ Version: 1, Tier: 'Standard' });

    const refused = await ssm
      .send(new PutParameterCommand({ Name: '/p/x', Value: 'v2', Type: 'String' }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ParameterAlreadyExists);
    expect(store.get('/p/x')?.value).toBe('v1');

    const overwritten = await ssm.send(
      new PutParameterCommand({ Name: '/p/x', Value: 'v2', Overwrite: true, Tier: 'Advanced' }),
    );
    expect(overwritten).toMatchObject({ Version: 2, Tier: 'Advanced' });
    // Type is kept from the existing parameter when an overwrite leaves it out.
    expect(store.get('/p/x')).toMatchObject({
      value: 'v2',
      version: 2,
      type: 'String',
      tier: 'Advanced',
    });

    const noType = await ssm
      .send(new PutParameterCommand({ Name: '/p/new', Value: 'v' }))
      .catch((e: unknown) => e);
    expect((noType as SSMServiceException).name).toBe('ValidationException');
    const badName = await ssm
      .send(new PutParameterCommand({ Name: 'not/qualified', Value: 'v', Type: 'String' }))
      .catch((e: unknown) => e);
    expect((badName as SSMServiceException).name).toBe('ValidationException');
  });

  it('DeleteParameter removes, then reports ParameterNotFound', async () => {
    store.put('/d/x', 'v');
    await ssm.send(new DeleteParameterCommand({ Name: '/d/x' }));
    expect(store.get('/d/x')).toBeUndefined();
    await expect(ssm.send(new DeleteParameterCommand({ Name: '/d/x' }))).rejects.toBeInstanceOf(
      ParameterNotFound,
    );
  });

  it('answers unknown targets with InvalidAction', async () => {
    const response = await fetch(store.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AmazonSSM.GetParametersByPath',
      },
      body: '{"Path":"/"}',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'InvalidAction' });
  });

  it('failNext makes the next requests fail with the given error type', async () => {
    store.put('/f/x', 'v');
    store.failNext(1);
    const throttled = await ssm
      .send(new GetParameterCommand({ Name: '/f/x' }))
      .catch((e: unknown) => e);
    expect(throttled).toBeInstanceOf(SSMServiceException);
    expect((throttled as SSMServiceException).name).toBe('ThrottlingException');
    expect((throttled as SSMServiceException).$metadata.httpStatusCode).toBe(400);
    // Only one request was failed.
    expect((await ssm.send(new GetParameterCommand({ Name: '/f/x' }))).Parameter?.Value).toBe('v');

    // The SDK's default retries absorb fewer failures than its attempts...
    const retrying = ssmClient(store.endpoint, 3);
    store.failNext(2);
    expect((await retrying.send(new GetParameterCommand({ Name: '/f/x' }))).Parameter?.Value).toBe(
      'v',
    );
    retrying.destroy();

    store.failNext(1, 'InternalServerError');
    const internal = await ssm
      .send(new GetParameterCommand({ Name: '/f/x' }))
      .catch((e: unknown) => e);
    expect((internal as SSMServiceException).name).toBe('InternalServerError');
  });

  it('persists to a file, atomically and without world access, across stop and start', async () => {
    const file = join(dir, 'nested', 'params.json');
    const first = await startParameterStore({ file });
    const client = ssmClient(first.endpoint);
    await client.send(
      new PutParameterCommand({ Name: '/newsletter/api-key', Value: SECRET, Type: 'SecureString' }),
    );
    first.put('/newsletter/settings', '{}');
    await client.send(
      new PutParameterCommand({ Name: '/newsletter/settings', Value: '{"v":2}', Overwrite: true }),
    );
    await first.stop();
    await expect(
      client.send(new GetParameterCommand({ Name: '/newsletter/settings' })),
    ).rejects.toThrow();

    expect((await stat(file)).mode & 0o077).toBe(0);
    // Only the file itself is left: the temp files were renamed over it.
    expect(await readdir(join(dir, 'nested'))).toEqual(['params.json']);
    const second = await startParameterStore({ file, port: first.port });
    const again = ssmClient(second.endpoint);
    const settings = await again.send(new GetParameterCommand({ Name: '/newsletter/settings' }));
    expect(settings.Parameter).toMatchObject({ Value: '{"v":2}', Version: 2 });
    const key = await again.send(
      new GetParameterCommand({ Name: '/newsletter/api-key', WithDecryption: true }),
    );
    expect(key.Parameter).toMatchObject({ Value: SECRET, Type: 'SecureString', Version: 1 });
    client.destroy();
    again.destroy();
    await second.stop();
  });

  it('refuses a file that is not a parameter file, without quoting it', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, `{"not json ${SECRET}`);
    const error = await startParameterStore({ file }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('is not valid JSON');
    expect((error as Error).message).not.toContain(SECRET);
    expect(await readFile(file, 'utf8')).toContain(SECRET);
  });
});
