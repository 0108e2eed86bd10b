import { createServer } from 'node:net';

/** Loopback address every local stand-in binds to and advertises in its endpoint. */
export const LOCAL_HOST = '127.0.0.1';

/**
 * Asks the OS for a TCP port that is free on 127.0.0.1 right now, by binding port 0 and
 * closing again.
 *
 * Another process may take the port between this call and its use; the stand-ins bind it
 * immediately afterwards, so the window is a few milliseconds.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    // Not ref'd: a pending lookup must never keep a finished process alive.
    server.unref();
    server.once('error', reject);
    server.listen(0, LOCAL_HOST, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('Could not read the port the OS assigned'));
        return;
      }
      server.close((error) => (error ? reject(error) : resolve(address.port)));
    });
  });
}

/**
 * Tells whether `port` can be bound on 127.0.0.1 right now.
 *
 * Used before starting a stand-in on a fixed port: a readiness probe would otherwise happily
 * talk to whatever else already listens there.
 */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, LOCAL_HOST, () => {
      server.close(() => resolve(true));
    });
  });
}
