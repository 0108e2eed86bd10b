/**
 * The AWS endpoint hands a call to a stand-in running in its own process as a function call
 * (in-process-upstreams.ts), after the same signature and permission checks, and falls back to
 * HTTP once the stand-in has gone: a stopped SES still looks unreachable.
 */
import { SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsEndpoint, startAwsEndpoint } from '../../infra/local/cloud/aws-endpoint.ts';
import { serveInProcess } from '../../infra/local/cloud/in-process-upstreams.ts';
import { type SesLocal, startSesLocal } from '../../infra/local/stand-ins/ses-local.ts';

/** An address nothing listens on: the call can only be answered in process. */
const NOWHERE = 'http://127.0.0.1:9';

const RAW = 'From: news@example.com\r\nTo: ada@example.net\r\nSubject: In process\r\n\r\nHello\r\n';

let endpoint: AwsEndpoint;
let ses: SesLocal;
let client: SESClient;

beforeAll(async () => {
  ses = await startSesLocal();
  endpoint = await startAwsEndpoint({
    upstreams: { ses: ses.endpoint },
    facts: { isSecureParameter: () => false, queueArn: () => undefined },
  });
  client = new SESClient({
    endpoint: endpoint.url,
    region: 'us-east-1',
    maxAttempts: 1,
    credentials: endpoint.register({
      name: 'sender',
      roleArn: 'arn:aws:iam::123456789012:role/Sender',
      policy: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: ['ses:SendRawEmail'], Resource: ['*'] }],
      },
    }),
  });
});

afterAll(async () => {
  client?.destroy();
  await endpoint?.stop();
  await ses?.stop();
});

const send = () =>
  client.send(new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }));

describe('calls forwarded to a stand-in in the same process', () => {
  it('reach a registered stand-in with no server at its address, and nothing once it is gone', async () => {
    const seen: { url: string; bytes: number; signed: boolean }[] = [];
    const stop = serveInProcess(NOWHERE, async (request, response) => {
      seen.push({
        url: request.url,
        bytes: request.body.length,
        signed: String(request.headers.authorization).startsWith('AWS4-HMAC-SHA256'),
      });
      response.writeHead(200, { 'content-type': 'text/xml' });
      response.end(
        '<SendRawEmailResponse><SendRawEmailResult><MessageId>in-process</MessageId></SendRawEmailResult></SendRawEmailResponse>',
      );
    });
    endpoint.setUpstream('ses', NOWHERE);
    try {
      expect((await send()).MessageId).toBe('in-process');
      expect(seen).toEqual([{ url: '/', bytes: expect.any(Number), signed: true }]);
      expect(seen[0]?.bytes).toBeGreaterThan(RAW.length);
      stop();
      await expect(send()).rejects.toThrow();
      expect(seen).toHaveLength(1);
    } finally {
      stop();
      endpoint.setUpstream('ses', ses.endpoint);
    }
  });

  it('the local SES takes and stores what the endpoint hands it in process', async () => {
    const { MessageId } = await send();
    const stored = (await ses.messages()).find((mail) => mail.messageId === MessageId);
    expect(stored).toMatchObject({
      subject: 'In process',
      destination: { to: ['ada@example.net'] },
    });
    expect(endpoint.counts.ses?.forwarded).toBeGreaterThanOrEqual(1);
  });

  it('a stopped local SES is unreachable through the endpoint, as over HTTP', async () => {
    await ses.stop();
    await expect(send()).rejects.toThrow();
    ses = await startSesLocal();
    endpoint.setUpstream('ses', ses.endpoint);
    expect((await send()).MessageId).toMatch(/^ses-\d{9}$/);
  });
});
