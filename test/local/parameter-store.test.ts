import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetParameterCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  SSMClient,
  type SSMServiceException,
} from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_HOST } from '../../infra/local/local-host.ts';
import {
  type ParameterStore,
  startParameterStore,
} from '../../infra/local/stand-ins/parameter-store.ts';

const SECRET = 'api-key-s3cr3t-value';

function ssmClient(endpoint: string): SSMClient {
  return new SSMClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

describe('the parameter-store stand-in: the SSM actions the project calls, nothing more', () => {
  let dir: string;
  let store: ParameterStore;
  let ssm: SSMClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'param-store-test-'));
    store = await startParameterStore();
    ssm = ssmClient(store.endpoint);
  });

  afterAll(async () => {
    ssm.destroy();
    await store.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('listens on loopback and answers GetParameter with the real response shape', async () => {
    expect(store.endpoint).toBe(`http://${LOCAL_HOST}:${store.port}`);
    store.put('/newsletter/settings', '{"sender":"news@example.com"}');
    const { Parameter } = await ssm.send(new GetParameterCommand({ Name: '/newsletter/settings' }));
    expect(Parameter).toMatchObject({
      Name: '/newsletter/settings',
      Type: 'String',
      Value: '{"sender":"news@example.com"}',
      Version: 1,
      ARN: 'arn:aws:ssm:us-east-1:123456789012:parameter/newsletter/settings',
    });
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
    expect(hidden.Parameter?.Value).not.toContain(SECRET);
    // Stable like a stored ciphertext, not re-randomised per read.
    const again = await ssm.send(new GetParameterCommand({ Name: '/newsletter/api-key' }));
    expect(again.Parameter?.Value).toBe(hidden.Parameter?.Value);
    const shown = await ssm.send(
      new GetParameterCommand({ Name: '/newsletter/api-key', WithDecryption: true }),
    );
    expect(shown.Parameter?.Value).toBe(SECRET);
  });

  it('PutParameter creates, refuses to overwrite silently, and versions overwrites', async () => {
    await ssm.send(new PutParameterCommand({ Name: '/p/x', Value: 'one', Type: 'String' }));
    const refused = await ssm
      .send(new PutParameterCommand({ Name: '/p/x', Value: 'two' }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ParameterAlreadyExists);
    const overwritten = await ssm.send(
      new PutParameterCommand({ Name: '/p/x', Value: 'two', Overwrite: true }),
    );
    expect(overwritten.Version).toBe(2);
    expect(store.get('/p/x')).toEqual({
      name: '/p/x',
      type: 'String',
      value: 'two',
      version: 2,
      tier: 'Standard',
    });
    const tooLong = await ssm
      .send(new PutParameterCommand({ Name: '/p/x', Value: 'x'.repeat(4097), Overwrite: true }))
      .catch((e: unknown) => e);
    expect((tooLong as SSMServiceException).name).toBe('ValidationException');
    const badName = await ssm
      .send(new PutParameterCommand({ Name: 'no/leading/slash', Value: 'v', Type: 'String' }))
      .catch((e: unknown) => e);
    expect((badName as SSMServiceException).name).toBe('ValidationException');
  });

  it('refuses every other action, as the service refuses an unknown one', async () => {
    const response = await fetch(store.endpoint, {
      method: 'POST',
      headers: { 'x-amz-target': 'AmazonSSM.DeleteParameter' },
      body: '{"Name":"/p/x"}',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { __type: string }).__type).toBe('InvalidAction');
    expect(store.get('/p/x')).toBeDefined();
  });

  it('persists to a file, atomically and without world access, across stop and start', async () => {
    const file = join(dir, 'nested', 'params.json');
    const first = await startParameterStore({ file });
    const client = ssmClient(first.endpoint);
    await client.send(
      new PutParameterCommand({ Name: '/newsletter/api-key', Value: SECRET, Type: 'SecureString' }),
    );
    first.put('/newsletter/settings', '{}');
    first.put('/newsletter/settings', '{"v":2}');
    await first.stop();
    client.destroy();
    expect((await stat(file)).mode & 0o077).toBe(0);
    // Only the file itself is left: the temp files were renamed over it.
    expect(await readdir(join(dir, 'nested'))).toEqual(['params.json']);
    // A new start, on a port of its own, with the same data.
    const second = await startParameterStore({ file });
    expect(second.get('/newsletter/settings')).toMatchObject({ value: '{"v":2}', version: 2 });
    expect(second.get('/newsletter/api-key')).toMatchObject({
      value: SECRET,
      type: 'SecureString',
      version: 1,
    });
    await second.stop();
  });

  it('refuses a file that is not a parameter file, without quoting it', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, `{"not json ${SECRET}`);
    const error = await startParameterStore({ file }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('is not valid JSON');
    expect((error as Error).message).not.toContain(SECRET);
  });
});
