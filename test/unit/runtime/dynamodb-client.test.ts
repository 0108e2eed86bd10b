import { beforeEach, describe, expect, it, vi } from 'vitest';

// The client is a per-container singleton: each case loads the module afresh.
beforeEach(() => {
  vi.resetModules();
});

async function maxAttemptsOf(background: boolean): Promise<number> {
  const module = await import('../../../shared/runtime/dynamodb-client.ts');
  if (background) module.useBackgroundDynamoDb();
  return module.dynamoDocumentClient().config.maxAttempts();
}

describe('[campaign.claim] the campaign functions’ DynamoDB client retries throttling longer', () => {
  it('gives a background function 10 attempts and an API function 3', async () => {
    expect(await maxAttemptsOf(true)).toBe(10);
    vi.resetModules();
    expect(await maxAttemptsOf(false)).toBe(3);
  });

  it('refuses to change a client that exists already', async () => {
    const module = await import('../../../shared/runtime/dynamodb-client.ts');
    module.dynamoDocumentClient();
    expect(() => module.useBackgroundDynamoDb()).toThrow(/exists already/);
  });
});
