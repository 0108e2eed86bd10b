import { createServer } from 'node:net';

/** An address that is ours but answers nothing: every connection is dropped at once. */
export interface DeadEndpoint {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A service that went away, on a port this test holds (so no other process can answer on it,
 * unlike a "free" or fixed port): connections are accepted and dropped, which the SDK sees as
 * ECONNRESET.
 */
export async function startDeadEndpoint(): Promise<DeadEndpoint> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
