/**
 * A small HTTP proxy in front of DynamoDB Local, because DynamoDB Local has no switch for the
 * faults a real table shows: throttling (HTTP 400 ProvisionedThroughputExceededException), and
 * a write that commits but whose answer never arrives. The service's SDK client is pointed at
 * the proxy (AWS_ENDPOINT_URL_DYNAMODB) before its first request; the proxy forwards the rest.
 * When DynamoDB Local itself is stopped, the proxy drops the client's connection, which is what
 * the SDK sees from a database that went away.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does to the requests it receives. */
export type ProxyMode =
  /** Forward everything. */
  | { readonly kind: 'pass' }
  /** Answer every request as throttled. */
  | { readonly kind: 'throttle-all' }
  /** Answer a share of the requests (0..1) as throttled, chosen by `random`. */
  | { readonly kind: 'throttle-share'; readonly share: number; readonly random: () => number }
  /**
   * Forward the next `count` requests whose `X-Amz-Target` ends with `target`, let DynamoDB
   * commit them, and drop the connection instead of answering.
   */
  | { readonly kind: 'lose-answers'; readonly target: string; count: number };

/** The running proxy. */
export interface DynamoProxy {
  readonly endpoint: string;
  /** Switches what the proxy does from the next request on. */
  set(mode: ProxyMode): void;
  /** How many requests were throttled, forwarded, and had their answer dropped. */
  readonly counts: { throttled: number; forwarded: number; lost: number; refused: number };
  stop(): Promise<void>;
}

const THROTTLED = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  message:
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
});

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Starts the proxy on a free port, forwarding to `upstream` (DynamoDB Local's endpoint). */
export async function startDynamoProxy(upstream: string): Promise<DynamoProxy> {
  const target = new URL(upstream);
  let mode: ProxyMode = { kind: 'pass' };
  const counts = { throttled: 0, forwarded: 0, lost: 0, refused: 0 };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readAll(req);
    const operation = String(req.headers['x-amz-target'] ?? '');
    const throttle =
      mode.kind === 'throttle-all' ||
      (mode.kind === 'throttle-share' && mode.random() < mode.share);
    if (throttle) {
      counts.throttled += 1;
      res.writeHead(400, {
        'content-type': 'application/x-amz-json-1.0',
        'content-length': Buffer.byteLength(THROTTLED),
        'x-amzn-requestid': `proxy-${counts.throttled}`,
      });
      res.end(THROTTLED);
      return;
    }
    let lose = false;
    if (mode.kind === 'lose-answers' && mode.count > 0 && operation.endsWith(mode.target)) {
      mode.count -= 1;
      lose = true;
    }
    const headers = { ...req.headers, host: target.host };
    // A fresh connection per request: after DynamoDB Local restarts, pooled ones are dead.
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      },
      (answer) => {
        void readAll(answer).then((data) => {
          counts.forwarded += 1;
          if (lose) {
            // Committed upstream; the client never learns it.
            counts.lost += 1;
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(data);
        });
      },
    );
    outgoing.on('error', () => {
      // DynamoDB Local is down: the client sees its connection dropped, as with a dead host.
      counts.refused += 1;
      req.socket.destroy();
    });
    outgoing.end(body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    set: (next) => {
      mode = next;
    },
    counts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
