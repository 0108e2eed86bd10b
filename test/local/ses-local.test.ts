import { randomUUID } from 'node:crypto';
import {
  ConfigurationSetDoesNotExistException,
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  type EventType,
  GetSendQuotaCommand,
  GetSendStatisticsCommand,
  SESClient,
  SendEmailCommand,
  SendRawEmailCommand,
} from '@aws-sdk/client-ses';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_HOST } from '../../infra/local/local-host.ts';
import {
  rawHeader,
  type SesLocal,
  type SesNotification,
  startSesLocal,
} from '../../infra/local/stand-ins/ses-local.ts';

// Hoisted above the imports, so the SDK sees it whenever it decides to warn.
vi.hoisted(() => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
});

function sesClient(endpoint: string): SESClient {
  return new SESClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

// CRLF and a folded List-Unsubscribe, as nodemailer's MailComposer writes them.
const RAW = [
  'From: "The News" <news@example.com>',
  'To: reader@example.com',
  'Subject: =?UTF-8?Q?Caf=C3=A9_news?=',
  'List-Unsubscribe: <https://example.com/unsubscribe?token=abc>,',
  ' <mailto:unsubscribe@example.com>',
  'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  'MIME-Version: 1.0',
  'Content-Type: multipart/alternative; boundary="part"',
  '',
  '--part',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 7bit',
  '',
  'Plain body',
  '--part',
  'Content-Type: text/html; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  '<p>HTML <a href=3D"https://example.com/unsubscribe?token=3Dabc">body</a></p>',
  '--part--',
  '',
].join('\r\n');

/** What the stand-in published: every test file has its own process, so its own list. */
const published: SesNotification[] = [];

describe('startSesLocal', () => {
  let ses: SesLocal;

  beforeAll(async () => {
    ses = await startSesLocal({ publish: (notification) => published.push(notification) });
  });

  afterAll(async () => {
    await ses.stop();
  });

  beforeEach(async () => {
    await ses.clear();
  });

  it('stores a SendRawEmail with decoded parts; headers only in the captured raw', async () => {
    expect(ses.endpoint).toBe(`http://${LOCAL_HOST}:${ses.port}`);
    const client = sesClient(ses.endpoint);
    // The store keeps whole seconds: the send happened between these two.
    const before = Math.floor(Date.now() / 1000);
    const sent = await client.send(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }),
    );
    const after = Math.ceil(Date.now() / 1000);
    client.destroy();

    const mails = await ses.messages();
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail).toMatchObject({
      messageId: sent.MessageId,
      from: '"The News" <news@example.com>',
      replyTo: [],
      destination: { to: ['reader@example.com'], cc: [], bcc: [] },
      subject: 'Café news',
      body: {
        text: 'Plain body',
        html: '<p>HTML <a href="https://example.com/unsubscribe?token=abc">body</a></p>',
      },
      attachments: [],
    });
    expect(mail.messageId).toMatch(/^ses-\d{9}$/);
    expect(mail.at).toBeGreaterThanOrEqual(before);
    expect(mail.at).toBeLessThanOrEqual(after);
    // aws-ses-v2-local keeps no headers of a raw mail: neither a `headers` key nor the text.
    expect(mail.headers).toBeUndefined();
    expect(JSON.stringify({ ...mail, raw: undefined })).not.toContain('List-Unsubscribe');
    // SesLocal's capture has them, byte for byte.
    expect(mail.raw).toBe(RAW);
    expect(rawHeader(mail, 'list-unsubscribe')).toEqual([
      '<https://example.com/unsubscribe?token=abc>, <mailto:unsubscribe@example.com>',
    ]);
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
    // Header names in the body do not count.
    expect(rawHeader(mail, 'Content-Transfer-Encoding')).toEqual([]);
  });

  it('parses a raw send when the store is first read: through /store too, Source standing in for a missing From', async () => {
    const client = sesClient(ses.endpoint);
    const fromless = RAW.replace(/^From: .*\r\n/m, '');
    expect(fromless).not.toContain('From:');
    const sent = await client.send(
      new SendRawEmailCommand({
        Source: 'source@example.com',
        RawMessage: { Data: new TextEncoder().encode(fromless) },
      }),
    );
    // Cleared before anything read it: the unread send goes with the store.
    await client.send(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }),
    );
    await ses.clear();
    const kept = await client.send(
      new SendRawEmailCommand({
        Source: 'source@example.com',
        RawMessage: { Data: new TextEncoder().encode(fromless) },
      }),
    );
    client.destroy();
    expect(sent.MessageId).toMatch(/^ses-\d{9}$/);
    const store = (await (await fetch(`${ses.endpoint}/store`)).json()) as {
      emails: { messageId: string; from: string; subject: string; body: { text?: string } }[];
    };
    expect(store.emails).toEqual([
      expect.objectContaining({
        messageId: kept.MessageId,
        from: 'source@example.com',
        subject: 'Café news',
        body: expect.objectContaining({ text: 'Plain body' }),
      }),
    ]);
    await ses.clear();
  });

  it('two reads at once both see a raw send parsed', async () => {
    const client = sesClient(ses.endpoint);
    await client.send(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }),
    );
    client.destroy();
    const [first, second] = await Promise.all([ses.messages(), ses.messages()]);
    for (const read of [first, second]) {
      expect(read.map((mail) => mail.subject)).toEqual(['Café news']);
    }
    await ses.clear();
  });

  it('serves /store, the viewer and health check; clear() empties the store', async () => {
    const client = sesClient(ses.endpoint);
    await client.send(
      new SendEmailCommand({
        Source: 'news@example.com',
        Destination: { ToAddresses: ['a@example.com', 'b@example.com'] },
        Message: { Subject: { Data: 'Simple' }, Body: { Html: { Data: '<b>hi</b>' } } },
      }),
    );
    client.destroy();

    const store = (await (await fetch(`${ses.endpoint}/store`)).json()) as {
      emails: Array<{ subject: string; destination: { to: string[] } }>;
    };
    // aws-ses-v2-local 2.10.2 reads only `member.1` of a v1 SendEmail's address lists: the
    // second recipient is dropped. Raw sends keep the whole To header instead.
    expect(store.emails.map((e) => [e.subject, e.destination.to])).toEqual([
      ['Simple', ['a@example.com']],
    ]);
    const [mail] = await ses.messages();
    // A non-raw send has no captured MIME.
    expect(mail?.raw).toBeUndefined();
    expect(mail?.body).toEqual({ html: '<b>hi</b>' });

    const viewer = await fetch(ses.viewerUrl);
    expect(viewer.status).toBe(200);
    expect(await viewer.text()).toContain('<html');
    expect((await fetch(`${ses.endpoint}/health-check`)).status).toBe(200);

    await ses.clear();
    expect(await ses.messages()).toEqual([]);
  });

  it('the viewer shows every message as sent: headers, raw MIME byte for byte, .eml, one-click', async () => {
    const client = sesClient(ses.endpoint);
    const sent = await client.send(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }),
    );
    client.destroy();
    const id = encodeURIComponent(sent.MessageId ?? '');

    const raw = await fetch(`${ses.endpoint}/messages/${id}.eml`);
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).toString('utf8')).toBe(RAW);
    const download = await fetch(`${ses.endpoint}/messages/${id}.eml?download`);
    expect(download.headers.get('content-type')).toBe('message/rfc822');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.eml"$/);
    expect(await download.text()).toBe(RAW);
    // The library's own download route gives the same exact bytes.
    const library = (await (
      await fetch(`${ses.endpoint}/get-emlContent?messageId=${id}`)
    ).json()) as { body: { data: number[] } };
    expect(Buffer.from(library.body.data).toString('utf8')).toBe(RAW);

    const viewer = await (await fetch(ses.viewerUrl)).text();
    expect(viewer).toContain('Café news');
    expect(viewer).toContain('<td>List-Unsubscribe</td>');
    expect(viewer).toContain('<td>List-Unsubscribe-Post</td><td>List-Unsubscribe=One-Click</td>');
    expect(viewer).toContain(
      '<form method="post" action="https://example.com/unsubscribe?token=abc" enctype="application/x-www-form-urlencoded"><input type="hidden" name="List-Unsubscribe" value="One-Click">',
    );
    const html = await fetch(`${ses.endpoint}/messages/${id}/html`);
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await html.text()).toContain('<p>HTML <a href=');
  });

  it('rejects unsigned send requests like the real endpoint', async () => {
    const response = await fetch(ses.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=SendEmail',
    });
    expect(response.status).toBe(403);
  });

  it('allows one instance per process, and starts again (on a fresh port) after stop()', async () => {
    await expect(startSesLocal({})).rejects.toThrow('one instance per process');

    const client = sesClient(ses.endpoint);
    await client.send(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }),
    );
    await ses.stop();
    // Down means down: a send fails while stopped.
    await expect(
      client.send(new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } })),
    ).rejects.toThrow();

    client.destroy();
    ses = await startSesLocal({ publish: (notification) => published.push(notification) });
    // The store lives in the process, so mail sent before the restart is still there.
    expect((await ses.messages()).map((m) => m.raw)).toEqual([RAW]);
    const again = sesClient(ses.endpoint);
    await again.send(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(RAW) } }),
    );
    again.destroy();
    expect(await ses.messages()).toHaveLength(2);
  });
});

describe('configuration sets and the mailbox simulator', () => {
  let ses: SesLocal;
  let client: SESClient;
  const TOPIC = 'arn:aws:sns:us-east-1:123456789012:feedback';

  beforeAll(async () => {
    ses = await startSesLocal({ publish: (notification) => published.push(notification) });
    client = sesClient(ses.endpoint);
  });

  afterAll(async () => {
    client.destroy();
    await ses.stop();
  });

  beforeEach(() => {
    published.length = 0;
  });

  /** A configuration set with one SNS destination for `types`. */
  async function configurationSet(types: EventType[], enabled = true): Promise<string> {
    const name = `set-${randomUUID().slice(0, 8)}`;
    await client.send(new CreateConfigurationSetCommand({ ConfigurationSet: { Name: name } }));
    await client.send(
      new CreateConfigurationSetEventDestinationCommand({
        ConfigurationSetName: name,
        EventDestination: {
          Name: 'to-topic',
          Enabled: enabled,
          MatchingEventTypes: types,
          SNSDestination: { TopicARN: TOPIC },
        },
      }),
    );
    return name;
  }

  const raw = (to: string) =>
    new TextEncoder().encode(
      `From: "The News" <news@example.com>\r\nTo: ${to}\r\nSubject: Hello\r\nMessage-ID: <m1@example.com>\r\n\r\nBody`,
    );

  async function send(to: string, set?: string): Promise<string> {
    const sent = await client.send(
      new SendRawEmailCommand({
        Source: 'news@example.com',
        Destinations: [to],
        RawMessage: { Data: raw(to) },
        ...(set ? { ConfigurationSetName: set } : {}),
      }),
    );
    return sent.MessageId ?? '';
  }

  const events = () =>
    published.map((notification) => JSON.parse(notification.message) as Record<string, unknown>);
  const kinds = () => events().map((event) => event.eventType);

  it('while the library relays to SMTP, it takes a tracked raw send as tracking left it', async () => {
    const set = await configurationSet(['click']);
    // nodemailer's JSON transport: the library relays without a server.
    process.env.SMTP_TRANSPORT = '{"jsonTransport":true}';
    try {
      const sent = await client.send(
        new SendRawEmailCommand({
          RawMessage: { Data: new TextEncoder().encode(RAW) },
          ConfigurationSetName: set,
        }),
      );
      const mail = (await ses.messages()).find((each) => each.messageId === sent.MessageId);
      expect(mail?.body.html).toMatch(/href="http:\/\/[^"]+\/track\/click\/[^"]+"/);
      // The captured message is the rewritten one (its HTML part now base64), not what was sent.
      expect(mail?.raw).toMatch(/^From: "The News"/);
      expect(mail?.raw).not.toBe(RAW);
    } finally {
      delete process.env.SMTP_TRANSPORT;
    }
  });

  it('publishes, per simulator address, the events SES does, in its event-publishing shape', async () => {
    const set = await configurationSet(['bounce', 'complaint', 'delivery']);
    const cases: [string, string[]][] = [
      ['success@simulator.amazonses.com', ['Delivery']],
      ['bounce@simulator.amazonses.com', ['Bounce']],
      ['complaint@simulator.amazonses.com', ['Delivery', 'Complaint']],
      ['suppressionlist@simulator.amazonses.com', ['Bounce']],
      ['ooto@simulator.amazonses.com', ['Delivery']],
      ['bounce+label@simulator.amazonses.com', ['Bounce']],
      ['reader@example.com', ['Delivery']],
    ];
    for (const [to, expected] of cases) {
      published.length = 0;
      const messageId = await send(to, set);
      expect(kinds(), to).toEqual(expected);
      for (const notification of published) {
        expect(notification).toMatchObject({ configurationSet: set, topicArn: TOPIC });
        expect(JSON.parse(notification.message).mail).toMatchObject({
          messageId,
          source: 'news@example.com',
          destination: [to],
          sendingAccountId: '123456789012',
          commonHeaders: { from: ['"The News" <news@example.com>'], to: [to], subject: 'Hello' },
          tags: { 'ses:configuration-set': [set] },
        });
      }
    }
  });

  it('shapes bounces, complaints and deliveries as SES documents them', async () => {
    const set = await configurationSet(['bounce', 'complaint', 'delivery']);
    await send('bounce@simulator.amazonses.com', set);
    await send('suppressionlist@simulator.amazonses.com', set);
    await send('complaint@simulator.amazonses.com', set);
    const [bounce, suppressed, delivery, complaint] = events();
    expect(bounce?.bounce).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [
        { emailAddress: 'bounce@simulator.amazonses.com', action: 'failed', status: '5.1.1' },
      ],
      feedbackId: expect.any(String),
      timestamp: expect.any(String),
    });
    expect(suppressed?.bounce).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'Suppressed',
      bouncedRecipients: [{ emailAddress: 'suppressionlist@simulator.amazonses.com' }],
    });
    expect(delivery?.delivery).toMatchObject({
      recipients: ['complaint@simulator.amazonses.com'],
      smtpResponse: expect.stringMatching(/^250 /),
    });
    expect(complaint?.complaint).toMatchObject({
      complainedRecipients: [{ emailAddress: 'complaint@simulator.amazonses.com' }],
      complaintFeedbackType: 'abuse',
      feedbackId: expect.any(String),
    });
  });

  it('publishes only the event types a destination matches, and nothing when it is disabled', async () => {
    await send('complaint@simulator.amazonses.com', await configurationSet(['complaint']));
    expect(kinds()).toEqual(['Complaint']);
    published.length = 0;
    await send('bounce@simulator.amazonses.com', await configurationSet(['bounce'], false));
    expect(kinds()).toEqual([]);
  });

  it('publishes nothing for a send without a configuration set, which SES also reports nothing for', async () => {
    await send('bounce@simulator.amazonses.com');
    expect(published).toEqual([]);
  });

  it('refuses a send naming a configuration set that does not exist, as SES does, and sends nothing', async () => {
    const before = (await ses.messages()).length;
    const refused = send('reader@example.com', 'no-such-set');
    await expect(refused).rejects.toBeInstanceOf(ConfigurationSetDoesNotExistException);
    await expect(refused).rejects.toThrow('Configuration set <no-such-set> does not exist.');
    expect(await ses.messages()).toHaveLength(before);
    expect(published).toEqual([]);
  });

  it('refuses a second configuration set or destination of the same name, and unsigned calls', async () => {
    const set = await configurationSet(['bounce']);
    await expect(
      client.send(new CreateConfigurationSetCommand({ ConfigurationSet: { Name: set } })),
    ).rejects.toThrow('already exists');
    await expect(
      client.send(
        new CreateConfigurationSetEventDestinationCommand({
          ConfigurationSetName: set,
          EventDestination: {
            Name: 'to-topic',
            Enabled: true,
            MatchingEventTypes: ['delivery'],
            SNSDestination: { TopicARN: TOPIC },
          },
        }),
      ),
    ).rejects.toThrow('already exists');
    const unsigned = await fetch(ses.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=CreateConfigurationSet&ConfigurationSet.Name=unsigned',
    });
    expect(unsigned.status).toBe(403);
    await expect(send('reader@example.com', 'unsigned')).rejects.toBeInstanceOf(
      ConfigurationSetDoesNotExistException,
    );
  });
});

describe("the account's sending quota", () => {
  let ses: SesLocal;
  let client: SESClient;
  const raw = new TextEncoder().encode(RAW);
  /** Sends one raw mail; its error's name and message when refused. */
  const sendOne = async (): Promise<string> => {
    try {
      await client.send(new SendRawEmailCommand({ RawMessage: { Data: raw } }));
      return 'sent';
    } catch (error) {
      const failure = error as Error & { $metadata?: { httpStatusCode?: number } };
      return `${failure.name} ${failure.$metadata?.httpStatusCode}: ${failure.message}`;
    }
  };

  beforeAll(async () => {
    ses = await startSesLocal();
    client = sesClient(ses.endpoint);
  });

  afterAll(async () => {
    client.destroy();
    await ses.stop();
  });

  beforeEach(() => {
    ses.enforceQuota(false);
    ses.throttleStorm(0);
    ses.setQuota({ maxSendRate: 14, max24HourSend: 50_000 });
  });

  it('answers GetSendQuota with the quota and the recipients sent in the last 24 hours', async () => {
    const before = (await client.send(new GetSendQuotaCommand({}))).SentLast24Hours ?? 0;
    expect(await client.send(new GetSendQuotaCommand({}))).toMatchObject({
      MaxSendRate: 14,
      Max24HourSend: 50_000,
    });
    await sendOne();
    await client.send(
      new SendRawEmailCommand({
        RawMessage: { Data: raw },
        Destinations: ['a@example.com', 'b@example.com'],
      }),
    );
    ses.setQuota({ maxSendRate: 200 });
    const quota = await client.send(new GetSendQuotaCommand({}));
    expect(quota).toMatchObject({ MaxSendRate: 200, SentLast24Hours: before + 3 });
    expect(ses.sendQuota()).toEqual({
      maxSendRate: 200,
      max24HourSend: 50_000,
      sentLast24Hours: before + 3,
    });
  });

  it('answers GetSendStatistics with 15-minute data points of attempts, bounces and complaints', async () => {
    const totals = async () => {
      const points = (await client.send(new GetSendStatisticsCommand({}))).SendDataPoints ?? [];
      for (const point of points) {
        // Each point is a whole 15-minute period of the last two weeks.
        expect((point.Timestamp?.getTime() ?? 1) % 900_000).toBe(0);
        expect(Date.now() - (point.Timestamp?.getTime() ?? 0)).toBeLessThan(14 * 86_400_000);
      }
      return points.reduce(
        (sum, point) => ({
          attempts: sum.attempts + (point.DeliveryAttempts ?? 0),
          bounces: sum.bounces + (point.Bounces ?? 0),
          complaints: sum.complaints + (point.Complaints ?? 0),
          rejects: sum.rejects + (point.Rejects ?? 0),
        }),
        { attempts: 0, bounces: 0, complaints: 0, rejects: 0 },
      );
    };
    const before = await totals();
    await client.send(
      new SendRawEmailCommand({
        RawMessage: { Data: raw },
        Destinations: [
          'a@example.com',
          'bounce@simulator.amazonses.com',
          'suppressionlist@simulator.amazonses.com',
          'complaint+x@simulator.amazonses.com',
        ],
      }),
    );
    expect(await totals()).toEqual({
      attempts: before.attempts + 4,
      bounces: before.bounces + 2,
      complaints: before.complaints + 1,
      rejects: 0,
    });
    // A refused send is no attempt.
    ses.throttleStorm(60_000);
    expect(await sendOne()).toMatch(/^Throttling/);
    ses.throttleStorm(0);
    expect((await totals()).attempts).toBe(before.attempts + 4);
    // Two weeks later they are gone; a day later they are still there.
    ses.ageSends(86_400_000);
    expect((await totals()).attempts).toBe(before.attempts + 4);
    ses.ageSends(13 * 86_400_000);
    expect(await totals()).toEqual({ attempts: 0, bounces: 0, complaints: 0, rejects: 0 });
  });

  it("refuses sends beyond the maximum rate in any second with SES's Throttling error", async () => {
    ses.setQuota({ maxSendRate: 3 });
    ses.enforceQuota(true);
    const stored = (await ses.messages()).length;
    // The stand-in runs in this process: its clock stands still while the five sends arrive,
    // however slowly a loaded machine delivers them, and moves past the window on demand.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1_001 });
    try {
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => sendOne()));
      expect(outcomes.filter((outcome) => outcome === 'sent')).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome !== 'sent')).toEqual([
        'Throttling 400: Maximum sending rate exceeded.',
        'Throttling 400: Maximum sending rate exceeded.',
      ]);
      // Dropped, as SES drops them: only the accepted ones arrive.
      expect((await ses.messages()).length).toBe(stored + 3);
      expect(await sendOne()).toBe('Throttling 400: Maximum sending rate exceeded.');
      vi.setSystemTime(Date.now() + 1_001);
      expect(await sendOne()).toBe('sent');
    } finally {
      const last = Date.now();
      vi.useRealTimers();
      // The next tests run on the real clock: start them past this test's last second.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, last + 1_001 - Date.now())));
    }
  });

  it('refuses every send during a throttle storm, and sends again after it', async () => {
    ses.throttleStorm(300);
    expect(await sendOne()).toBe('Throttling 400: Maximum sending rate exceeded.');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await sendOne()).toBe('sent');
  });

  it('refuses sends beyond the daily quota', async () => {
    const { sentLast24Hours } = ses.sendQuota();
    ses.setQuota({ max24HourSend: sentLast24Hours + 1 });
    ses.enforceQuota(true);
    expect(await sendOne()).toBe('sent');
    expect(await sendOne()).toBe('Throttling 400: Daily message quota exceeded.');
  });

  it('frees a place in the daily quota for a send the store refused, and for a send a day old', async () => {
    const { sentLast24Hours } = ses.sendQuota();
    ses.setQuota({ max24HourSend: sentLast24Hours + 1 });
    ses.enforceQuota(true);
    // No From header and no Source: admitted by the quota, then refused by the store.
    const fromless = new TextEncoder().encode('To: a@example.com\r\nSubject: x\r\n\r\nbody\r\n');
    await expect(
      client.send(new SendRawEmailCommand({ RawMessage: { Data: fromless } })),
    ).rejects.toThrow();
    expect(ses.sendQuota().sentLast24Hours).toBe(sentLast24Hours);
    expect(await sendOne()).toBe('sent');
    expect(await sendOne()).toBe('Throttling 400: Daily message quota exceeded.');
    ses.ageSends(86_400_000);
    expect(ses.sendQuota().sentLast24Hours).toBe(0);
    expect(await sendOne()).toBe('sent');
    expect(ses.sendQuota().sentLast24Hours).toBe(1);
  });
});
