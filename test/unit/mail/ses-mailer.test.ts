import { SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { MailDeliveryError, SesMailer } from '../../../shared/mail/ses-mailer.ts';
import { dueMail, HOSTILE_NAME, mailSettings, UNSUBSCRIBE_URL } from './mail-fixtures.ts';
import { headerValues, parseMime } from './parse-mime.ts';

const sesMock = mockClient(SESClient);

afterEach(() => {
  sesMock.reset();
});

describe('SesMailer', () => {
  it('sends the rendered mail raw from the sender address to the recipient only', async () => {
    // Arrange
    sesMock.on(SendRawEmailCommand).resolves({ MessageId: 'message-1' });
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }));
    const mail = dueMail('welcome', {
      subscriber: { ...dueMail('welcome').subscriber, name: HOSTILE_NAME },
    });

    // Act
    await mailer.send(mail, mailSettings());

    // Assert
    const calls = sesMock.commandCalls(SendRawEmailCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input.Source).toBe('news@example.com');
    expect(input.Destinations).toEqual(['ada@example.com']);
    const parsed = parseMime(input.RawMessage!.Data!);
    expect(headerValues(parsed, 'to')).toEqual(['ada@example.com']);
    expect(headerValues(parsed, 'subject')).toEqual(['Welcome to our newsletter']);
    expect(headerValues(parsed, 'list-unsubscribe')).toEqual([`<${UNSUBSCRIBE_URL}>`]);
    expect(headerValues(parsed, 'bcc')).toEqual([]);
    expect(parsed.parts[1]?.body).toContain('&lt;script&gt;');
  });

  it('sends the activation mail without List-Unsubscribe headers', async () => {
    // Arrange
    sesMock.on(SendRawEmailCommand).resolves({ MessageId: 'message-2' });
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }));

    // Act
    await mailer.send(dueMail('activation'), mailSettings());

    // Assert
    const input = sesMock.commandCalls(SendRawEmailCommand)[0]!.args[0].input;
    const parsed = parseMime(input.RawMessage!.Data!);
    expect(headerValues(parsed, 'subject')).toEqual(['Please confirm your subscription']);
    expect(headerValues(parsed, 'list-unsubscribe')).toEqual([]);
    expect(headerValues(parsed, 'list-unsubscribe-post')).toEqual([]);
  });

  it('surfaces a refused send as MailDeliveryError carrying the cause', async () => {
    // Arrange
    const refusal = Object.assign(new Error('Email address is not verified: ada@example.com'), {
      name: 'MessageRejected',
    });
    sesMock.on(SendRawEmailCommand).rejects(refusal);
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }));

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
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }));
    const broken = dueMail('activation', { confirmUrl: 'javascript:alert(1)' });

    // Act
    const failure = await mailer.send(broken, mailSettings()).catch((e: unknown) => e);

    // Assert
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(MailDeliveryError);
    expect(sesMock.commandCalls(SendRawEmailCommand)).toHaveLength(0);
  });
});
