import { SESClient, SendEmailCommand, SendRawEmailCommand } from '@aws-sdk/client-ses';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_HOST } from '../../infra/local/local-host.ts';
import { rawHeader, type SesLocal, startSesLocal } from '../../infra/local/stand-ins/ses-local.ts';

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

describe('startSesLocal', () => {
  let ses: SesLocal;

  beforeAll(async () => {
    ses = await startSesLocal({});
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
    ses = await startSesLocal();
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
