import {
  ConfigurationSetDoesNotExistException,
  CreateConfigurationSetCommand,
  SESClient,
} from '@aws-sdk/client-ses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SesLocal, startSesLocal } from '../../../infra/local/stand-ins/ses-local.ts';
import { MailDeliveryError, SesMailer } from '../../../shared/adapters/mail/ses-mailer.ts';
import { dueMail, HOSTILE_NAME, mailSettings, UNSUBSCRIBE_URL } from './mail-fixtures.ts';
import { headerValues, parseMime } from './parse-mime.ts';

// Success paths go through the local SES, which captures the raw MIME as it was sent.
let ses: SesLocal;
let client: SESClient;

beforeAll(async () => {
  ses = await startSesLocal();
  client = new SESClient({
    endpoint: ses.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  client?.destroy();
  await ses?.stop();
});

beforeEach(async () => {
  await ses.clear();
});

/** The one raw message the local SES received, parsed. */
async function sentMessage() {
  const mails = await ses.messages();
  expect(mails).toHaveLength(1);
  return parseMime(Buffer.from(mails[0]?.raw ?? '', 'utf8'));
}

describe('SesMailer', () => {
  it('sends the rendered mail raw from the sender address to the recipient only', async () => {
    // Arrange
    const mailer = new SesMailer(client);
    const mail = dueMail('welcome', {
      subscriber: { ...dueMail('welcome').subscriber, name: HOSTILE_NAME },
    });

    // Act
    await mailer.send(mail, mailSettings());

    // Assert
    const parsed = await sentMessage();
    expect(headerValues(parsed, 'from')[0]).toContain('news@example.com');
    expect(headerValues(parsed, 'to')).toEqual(['ada@example.com']);
    expect(headerValues(parsed, 'subject')).toEqual(['Welcome to our newsletter']);
    expect(headerValues(parsed, 'list-unsubscribe')).toEqual([`<${UNSUBSCRIBE_URL}>`]);
    expect(headerValues(parsed, 'list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click']);
    expect(headerValues(parsed, 'bcc')).toEqual([]);
    expect(headerValues(parsed, 'cc')).toEqual([]);
    expect(parsed.parts[1]?.body).toContain('&lt;script&gt;');
  });

  it('sends the activation mail without List-Unsubscribe headers', async () => {
    // Arrange
    const mailer = new SesMailer(client);

    // Act
    await mailer.send(dueMail('activation'), mailSettings());

    // Assert
    const parsed = await sentMessage();
    expect(headerValues(parsed, 'subject')).toEqual(['Please confirm your subscription']);
    expect(headerValues(parsed, 'list-unsubscribe')).toEqual([]);
    expect(headerValues(parsed, 'list-unsubscribe-post')).toEqual([]);
  });

  it('names its configuration set on every send: SES refuses one that does not exist', async () => {
    // Arrange: the local SES knows only the sets created in it, as SES does.
    await client.send(new CreateConfigurationSetCommand({ ConfigurationSet: { Name: 'mail' } }));
    const configured = new SesMailer(client, { configurationSetName: 'mail' });
    const misnamed = new SesMailer(client, { configurationSetName: 'no-such-set' });

    // Act
    await configured.send(dueMail('welcome'), mailSettings());
    const failure = await misnamed.send(dueMail('welcome'), mailSettings()).catch((e) => e);

    // Assert: the named set was sent, and a wrong name is a failed delivery, not a bug.
    expect(await ses.messages()).toHaveLength(1);
    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect((failure as MailDeliveryError).cause).toBeInstanceOf(
      ConfigurationSetDoesNotExistException,
    );
  });

  it('surfaces a refused send as MailDeliveryError carrying the cause', async () => {
    // Arrange: the local SES accepts every message, so a refusal comes from a fake client.
    const refusal = Object.assign(new Error('Email address is not verified: ada@example.com'), {
      name: 'MessageRejected',
    });
    const refusing = {
      send: () => Promise.reject(refusal),
    } as unknown as SESClient;
    const mailer = new SesMailer(refusing);

    // Act
    const failure = await mailer.send(dueMail('welcome'), mailSettings()).catch((e: unknown) => e);

    // Assert
    expect(failure).toBeInstanceOf(MailDeliveryError);
    const error = failure as MailDeliveryError;
    expect(error.name).toBe('MailDeliveryError');
    expect(error.cause).toBe(refusal);
    expect(error.message).toContain('MessageRejected');
    expect(error.message).not.toContain('ada@example.com');
  });

  it('lets a rendering bug through unwrapped and sends nothing', async () => {
    // Arrange
    const mailer = new SesMailer(client);
    const broken = dueMail('activation', { confirmUrl: 'javascript:alert(1)' });

    // Act
    const failure = await mailer.send(broken, mailSettings()).catch((e: unknown) => e);

    // Assert
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(MailDeliveryError);
    expect(await ses.messages()).toEqual([]);
  });
});
