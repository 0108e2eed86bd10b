/**
 * The local SQS: fauxqs behind a loopback-only server that answers in the local account's
 * terms, as the template names the queues, with fauxqs's redrive, delays and persistence.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT } from '../../infra/local/cloud/intrinsics.ts';
import { type SqsLocal, startSqsLocal } from '../../infra/local/stand-ins/sqs-local.ts';

const arnOf = (name: string) => `arn:aws:sqs:us-east-1:${LOCAL_ACCOUNT}:${name}`;

const clientOf = (endpoint: string) =>
  new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

let sqs: SqsLocal;
let client: SQSClient;

beforeAll(async () => {
  sqs = await startSqsLocal();
  client = clientOf(sqs.endpoint);
});

afterAll(async () => {
  client?.destroy();
  await sqs?.stop();
});

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('the local SQS (fauxqs)', () => {
  it('listens on the loopback interface only', async () => {
    const { hostname, port } = new URL(sqs.endpoint);
    expect(hostname).toBe('127.0.0.1');
    expect(await accepts('127.0.0.1', Number(port))).toBe(true);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address && address.family === 'IPv4' && !address.internal)
      .map((address) => address?.address ?? '');
    for (const address of others) expect(await accepts(address, Number(port))).toBe(false);
  });

  it('names queues in the local account, at the address the caller used', async () => {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'Named' }));
    expect(QueueUrl).toBe(`${sqs.endpoint}/${LOCAL_ACCOUNT}/Named`);
    expect(sqs.createQueue('Named')).toBe(QueueUrl);
    const found = await client.send(new GetQueueUrlCommand({ QueueName: 'Named' }));
    expect(found.QueueUrl).toBe(QueueUrl);
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    expect(Attributes?.QueueArn).toBe(arnOf('Named'));
    // Forwarded by the IAM-checked endpoint: the URL points at the endpoint.
    const forwarded = await fetch(sqs.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.GetQueueUrl',
        'x-forwarded-host': '127.0.0.1:4444',
      },
      body: JSON.stringify({ QueueName: 'Named' }),
    });
    expect(await forwarded.json()).toEqual({
      QueueUrl: `http://127.0.0.1:4444/${LOCAL_ACCOUNT}/Named`,
    });
  });

  it("moves a message received maxReceiveCount times to the redrive policy's queue, named in the local account", async () => {
    const dlq = sqs.createQueue('Dead');
    const source = sqs.createQueue('Source', {
      VisibilityTimeout: '0',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf('Dead'), maxReceiveCount: 2 }),
    });
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: source, AttributeNames: ['RedrivePolicy'] }),
    );
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: arnOf('Dead'),
      maxReceiveCount: 2,
    });
    // A body that looks like what the answers rewrite stays as it was (the SDK checks its MD5).
    const body = `poison for ${arnOf('Dead')} and account 000000000000`;
    await client.send(new SendMessageCommand({ QueueUrl: source, MessageBody: body }));
    const receive = () =>
      client.send(
        new ReceiveMessageCommand({
          QueueUrl: source,
          MessageSystemAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      );
    const first = await receive();
    expect(first.Messages?.[0]?.Body).toBe(body);
    expect(first.Messages?.[0]?.Attributes).toMatchObject({
      ApproximateReceiveCount: '1',
      SenderId: LOCAL_ACCOUNT,
    });
    expect((await receive()).Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect((await receive()).Messages).toBeUndefined();
    expect(sqs.messages('Source')).toEqual([]);
    expect(sqs.messages('Dead')).toEqual([body]);
    expect(dlq).toBe(`${sqs.endpoint}/${LOCAL_ACCOUNT}/Dead`);
  });

  it('holds a delayed message back, counts it as delayed, then hands it to a long poll', async () => {
    const queue = sqs.createQueue('Delayed');
    await client.send(
      new SendMessageCommand({ QueueUrl: queue, MessageBody: 'later', DelaySeconds: 1 }),
    );
    expect(sqs.depth('Delayed')).toEqual({ visible: 0, inFlight: 0, delayed: 1 });
    const { Messages } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queue, WaitTimeSeconds: 5 }),
    );
    expect(Messages?.map((message) => message.Body)).toEqual(['later']);
    expect(sqs.depth('Delayed')).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
  });

  it('keeps queued and in-flight messages across a restart when given a folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sqs-local-'));
    try {
      const first = await startSqsLocal({ dataDir });
      const firstClient = clientOf(first.endpoint);
      const queue = first.createQueue('Work', { VisibilityTimeout: '60' });
      for (const body of ['one', 'two']) {
        await firstClient.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
      }
      const taken = await firstClient.send(new ReceiveMessageCommand({ QueueUrl: queue }));
      firstClient.destroy();
      await first.stop();

      const second = await startSqsLocal({ dataDir });
      const secondClient = clientOf(second.endpoint);
      try {
        expect(second.depth('Work')).toEqual({ visible: 1, inFlight: 1, delayed: 0 });
        expect(second.messages('Work').sort()).toEqual(['one', 'two']);
        // The receipt handle from before the restart still deletes its message.
        await secondClient.send(
          new DeleteMessageCommand({
            QueueUrl: second.createQueue('Work'),
            ReceiptHandle: taken.Messages?.[0]?.ReceiptHandle,
          }),
        );
        expect(second.depth('Work')).toEqual({ visible: 1, inFlight: 0, delayed: 0 });
      } finally {
        secondClient.destroy();
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
