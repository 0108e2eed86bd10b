/**
 * A stand-in for Amazon SQS that speaks what the project uses, over SQS's JSON protocol:
 * the stack's dead-letter queues (created from the template by the local cloud), which the
 * stream consumers' event source mappings send failed batches to and the admin CLI reads
 * (`npx newsletter mail failed`) and clears (`mail retry`). CreateQueue, GetQueueUrl,
 * SendMessage, ReceiveMessage (no long polling), DeleteMessage, PurgeQueue and
 * GetQueueAttributes (ApproximateNumberOfMessages*, QueueArn). Anything else is refused as the
 * service refuses an unknown action. No npm package emulates SQS without Docker or a JVM
 * server; this is the least of it the project needs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../cloud/intrinsics.ts';
import { LOCAL_HOST } from '../local-host.ts';
import { readBody } from '../read-body.ts';

interface Message {
  readonly id: string;
  readonly body: string;
  readonly sentAt: number;
  receipt?: string;
  /** Hidden until (epoch ms) after a receive, as SQS's visibility timeout. */
  invisibleUntil: number;
  receiveCount: number;
}

/** A running SQS stand-in. */
export interface SqsLocal {
  readonly endpoint: string;
  /** The URL of a queue (created if missing), as GetQueueUrl answers it. */
  createQueue(name: string): string;
  /** Bodies of the messages a queue holds, visible or not. */
  messages(name: string): string[];
  stop(): Promise<void>;
}

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** The queue name of a URL or ARN this stand-in issued. */
function queueNameOf(urlOrArn: string): string {
  return urlOrArn.split(/[/:]/).at(-1) ?? '';
}

/** Starts the stand-in on a free loopback port. */
export async function startSqsLocal(): Promise<SqsLocal> {
  const queues = new Map<string, Message[]>();
  let endpoint = '';
  const urlOf = (name: string) => `${endpoint}/${LOCAL_ACCOUNT}/${name}`;
  const queue = (input: Record<string, unknown>): Message[] => {
    const found = queues.get(queueNameOf(String(input.QueueUrl ?? '')));
    if (!found) {
      throw new ServiceError(
        'AWS.SimpleQueueService.NonExistentQueue',
        'The specified queue does not exist.',
      );
    }
    return found;
  };

  const handle = (action: string, input: Record<string, unknown>): unknown => {
    const now = Date.now();
    switch (action) {
      case 'CreateQueue': {
        const name = String(input.QueueName ?? '');
        if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
          throw new ServiceError('InvalidParameterValue', 'Invalid queue name.');
        }
        if (!queues.has(name)) queues.set(name, []);
        return { QueueUrl: urlOf(name) };
      }
      case 'GetQueueUrl': {
        const name = String(input.QueueName ?? '');
        if (!queues.has(name)) {
          throw new ServiceError(
            'AWS.SimpleQueueService.NonExistentQueue',
            'The specified queue does not exist.',
          );
        }
        return { QueueUrl: urlOf(name) };
      }
      case 'SendMessage': {
        const body = input.MessageBody;
        if (typeof body !== 'string' || body.length === 0 || Buffer.byteLength(body) > 262_144) {
          throw new ServiceError('InvalidParameterValue', 'MessageBody must be 1 B to 256 KiB.');
        }
        const message: Message = {
          id: randomUUID(),
          body,
          sentAt: now,
          invisibleUntil: 0,
          receiveCount: 0,
        };
        queue(input).push(message);
        return {
          MessageId: message.id,
          MD5OfMessageBody: createHash('md5').update(body).digest('hex'),
        };
      }
      case 'ReceiveMessage': {
        const max = Math.min(10, Math.max(1, Number(input.MaxNumberOfMessages ?? 1)));
        const visibility = Number(input.VisibilityTimeout ?? 30);
        const picked = queue(input)
          .filter((message) => message.invisibleUntil <= now)
          .slice(0, max);
        for (const message of picked) {
          message.receipt = randomUUID();
          message.invisibleUntil = now + visibility * 1000;
          message.receiveCount += 1;
        }
        return {
          Messages: picked.map((message) => ({
            MessageId: message.id,
            ReceiptHandle: message.receipt,
            Body: message.body,
            MD5OfBody: createHash('md5').update(message.body).digest('hex'),
            Attributes: {
              SentTimestamp: String(message.sentAt),
              ApproximateReceiveCount: String(message.receiveCount),
            },
          })),
        };
      }
      case 'DeleteMessage': {
        const messages = queue(input);
        const index = messages.findIndex((message) => message.receipt === input.ReceiptHandle);
        if (index === -1) {
          throw new ServiceError('ReceiptHandleIsInvalid', 'The receipt handle is not valid.');
        }
        messages.splice(index, 1);
        return {};
      }
      case 'PurgeQueue':
        queue(input).length = 0;
        return {};
      case 'GetQueueAttributes': {
        const messages = queue(input);
        const visible = messages.filter((message) => message.invisibleUntil <= now).length;
        return {
          Attributes: {
            ApproximateNumberOfMessages: String(visible),
            ApproximateNumberOfMessagesNotVisible: String(messages.length - visible),
            QueueArn: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${queueNameOf(String(input.QueueUrl))}`,
          },
        };
      }
      default:
        throw new ServiceError('InvalidAction', `The action ${action || '(none)'} is not valid.`);
    }
  };

  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req, 1024 * 1024);
    try {
      if (!body) throw new ServiceError('InvalidParameterValue', 'The request is too large.');
      const target = String(req.headers['x-amz-target'] ?? '');
      if (!target.startsWith('AmazonSQS.')) {
        throw new ServiceError('InvalidAction', 'Only the JSON protocol is served.');
      }
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new ServiceError('InvalidParameterValue', 'The request body is not valid JSON.');
      }
      send(res, 200, handle(target.slice('AmazonSQS.'.length), input as Record<string, unknown>));
    } catch (error) {
      if (error instanceof ServiceError) {
        send(res, error.status, { __type: error.type, message: error.message });
      } else send(res, 500, { __type: 'InternalError', message: 'The stand-in failed.' });
    }
  };

  const server = createServer((req, res) => void respond(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOCAL_HOST, () => resolve());
  });
  endpoint = `http://${LOCAL_HOST}:${(server.address() as AddressInfo).port}`;
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    createQueue: (name) => {
      handle('CreateQueue', { QueueName: name });
      return urlOf(name);
    },
    messages: (name) => (queues.get(name) ?? []).map((message) => message.body),
    stop: () => {
      stopping ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}
