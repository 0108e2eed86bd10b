import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePort, isPortFree, LOCAL_HOST } from '../../infra/local/free-port.ts';

describe('findFreePort', () => {
  it('returns a port that can be bound on 127.0.0.1', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, LOCAL_HOST, resolve);
    });
    try {
      // While bound, the same port is reported as taken.
      expect(await isPortFree(port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await isPortFree(port)).toBe(true);
  });
});
