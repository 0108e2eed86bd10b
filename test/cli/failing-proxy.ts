import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy in front of DynamoDB Local that lets `allowedPuts` PutItem calls through. */
export interface FailingProxy {
  readonly endpoint: string;
  /** PutItem calls that reached DynamoDB. */
  readonly puts: number;
  /** Resolves once a PutItem beyond the allowed ones is being held (mode `hold`). */
  readonly holding: Promise<void>;
  /** Resolves once DynamoDB has answered every allowed PutItem (each is applied by then). */
  readonly answered: Promise<void>;
  stop(): Promise<void>;
}

/** What happens to PutItem calls beyond the allowed ones. */
export type FailureMode =
  /** They fail with a 500, as in an outage; the SDK retries, then gives up. */
  | 'fail'
  /** They are never answered, so the caller stays stuck with them in flight. */
  | 'hold';

/**
 * Forwards every request to `target`, each after a delay that varies with the request's size
 * (so concurrent requests finish out of order, the same way on every run), and answers every PutItem after the first `allowedPuts` with a 500, as
 * a DynamoDB outage would. The SDK retries those, then gives up.
 */
export async function startFailingProxy(
  target: string,
  allowedPuts: number,
  mode: FailureMode = 'fail',
): Promise<FailingProxy> {
  let puts = 0;
  let answeredPuts = 0;
  let held!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  let allAnswered!: () => void;
  const answered = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // A subscriber on lists is written with its list index entries, in one transaction.
      const isPut = ['DynamoDB_20120810.PutItem', 'DynamoDB_20120810.TransactWriteItems'].includes(
        String(req.headers['x-amz-target']),
      );
      if (isPut && puts >= allowedPuts && mode === 'hold') {
        held();
        return;
      }
      if (isPut && puts >= allowedPuts) {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
            message: 'injected failure',
          }),
        );
        return;
      }
      if (isPut) puts += 1;
      setTimeout(() => {
        const forward = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            // DynamoDB has applied the write once it answers.
            if (isPut) {
              answeredPuts += 1;
              if (answeredPuts === allowedPuts) allAnswered();
            }
          },
        );
        forward.on('error', () => res.destroy());
        forward.end(Buffer.concat(chunks));
      }, Buffer.concat(chunks).length % 13);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get puts() {
      return puts;
    },
    holding,
    answered,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
