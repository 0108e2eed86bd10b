import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys as itemKeys } from '../../shared/adapters/store/table-design.ts';
import { hashSecret } from '../../shared/domain/client-key.ts';
import { type CliWorld, cliWorld } from './cli-harness.ts';

let world: CliWorld;

beforeAll(async () => {
  world = await cliWorld();
});

afterAll(async () => {
  await world.close();
});

/** The key and secret `keys create` printed. */
function printed(stdout: string): { key: string; secret: string } {
  const key = /^client_key=([0-9a-f]{40})$/m.exec(stdout)?.[1];
  const secret = /^client_secret=([0-9a-f]{40})$/m.exec(stdout)?.[1];
  if (!key || !secret) throw new Error(`no key in ${stdout}`);
  return { key, secret };
}

describe('keys create / list / revoke', () => {
  it('[v2.keys] keys create prints the secret once and stores only its hash', async () => {
    // Act
    const result = await world.cli([
      'keys',
      'create',
      '--name',
      'CRM sync',
      '--permission',
      'write',
    ]);
    // Assert
    expect(result.code, result.stderr).toBe(0);
    const { key, secret } = printed(result.stdout);
    expect(result.stderr).toMatch(/shown only this once/);
    expect(result.stderr).not.toContain(secret);
    const stored = await world.client.send(
      new GetCommand({ TableName: world.tableName, Key: itemKeys.clientKey(key) }),
    );
    expect(stored.Item).toMatchObject({
      client_key: key,
      name: 'CRM sync',
      permission: 'write',
      secret_hash: hashSecret(secret),
    });
    expect(JSON.stringify(stored.Item)).not.toContain(secret);
  });

  it('[v2.keys] keys create refuses a permission that is not read or write, and stores nothing', async () => {
    const before = await world.cli(['keys', 'list', '--json']);
    const result = await world.cli(['keys', 'create', '--name', 'x', '--permission', 'admin']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/permission must be read or write/);
    expect((await world.cli(['keys', 'list', '--json'])).stdout).toBe(before.stdout);
  });

  it('[v2.keys] keys list shows every key without secret or hash; keys revoke marks one, once', async () => {
    const made = printed(
      (await world.cli(['keys', 'create', '--name', 'Reporting', '--permission', 'read'])).stdout,
    );
    const table = await world.cli(['keys', 'list']);
    expect(table.stdout).toMatch(new RegExp(`${made.key}\\s+read\\s+\\S+\\s+-\\s+Reporting`));
    expect(table.stdout).not.toContain(made.secret);
    expect(table.stdout).not.toContain(hashSecret(made.secret));

    const revoked = await world.cli(['keys', 'revoke', made.key]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toMatch(/within 5 minutes/);
    const listed = JSON.parse((await world.cli(['keys', 'list', '--json'])).stdout) as {
      client_key: string;
      revoked?: string;
      secret_hash?: string;
    }[];
    const entry = listed.find((each) => each.client_key === made.key);
    expect(entry?.revoked).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(listed.every((each) => each.secret_hash === undefined)).toBe(true);

    const again = await world.cli(['keys', 'revoke', made.key]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/revoked already/);
    const unknown = await world.cli(['keys', 'revoke', 'f'.repeat(40)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no key/);
  });
});
