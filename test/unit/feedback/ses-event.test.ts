import { describe, expect, it } from 'vitest';
import { readSesEvent } from '../../../shared/adapters/mail/ses-event.ts';

// The records below follow the examples of "Examples of event data that Amazon SES publishes
// to Amazon SNS" (SES developer guide), trimmed of headers; SES adds fields over time, so the
// reader must take what it does not know.
const MAIL = {
  timestamp: '2017-08-05T00:40:02.012Z',
  source: 'Sender Name <sender@example.com>',
  sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/sender@example.com',
  sendingAccountId: '123456789012',
  messageId: 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000',
  destination: ['recipient@example.com'],
  headersTruncated: false,
  commonHeaders: { from: ['Sender Name <sender@example.com>'], to: ['recipient@example.com'] },
  tags: { 'ses:configuration-set': ['ConfigSet'] },
};

const BOUNCE = {
  eventType: 'Bounce',
  bounce: {
    bounceType: 'Permanent',
    bounceSubType: 'General',
    bouncedRecipients: [
      {
        emailAddress: 'recipient@example.com',
        action: 'failed',
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 user unknown',
      },
    ],
    timestamp: '2017-08-05T00:41:02.669Z',
    feedbackId: '01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000',
    reportingMTA: 'dsn; mta.example.com',
  },
  mail: MAIL,
};

const COMPLAINT = {
  eventType: 'Complaint',
  complaint: {
    complainedRecipients: [{ emailAddress: 'recipient@example.com' }],
    timestamp: '2017-08-05T00:41:02.669Z',
    feedbackId: '01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000',
    userAgent: 'Mozilla/5.0',
    complaintFeedbackType: 'abuse',
    arrivalDate: '2017-08-05T00:41:02.669Z',
  },
  mail: MAIL,
};

const DELIVERY = {
  eventType: 'Delivery',
  mail: MAIL,
  delivery: {
    timestamp: '2017-08-05T00:40:02.912Z',
    processingTimeMillis: 546,
    recipients: ['recipient@example.com'],
    smtpResponse: '250 ok:  Message 64111812 accepted',
    reportingMTA: 'a8-70.smtp-out.amazonses.com',
    remoteMtaIp: '127.0.2.0',
  },
};

const read = (event: unknown) => readSesEvent(JSON.stringify(event));

describe('readSesEvent', () => {
  it('[feedback.bounce] reads a permanent bounce as a hard bounce of its recipients', () => {
    expect(read(BOUNCE)).toEqual({
      kind: 'feedback',
      feedback: {
        kind: 'hard-bounce',
        mailId: MAIL.messageId,
        recipients: ['recipient@example.com'],
        detail: 'Permanent/General',
      },
    });
  });

  it.each([
    ['Permanent', 'OnAccountSuppressionList', 'hard-bounce'],
    ['Permanent', 'Suppressed', 'hard-bounce'],
    ['Permanent', 'OnSuppressionList', 'hard-bounce'],
    ['Permanent', 'NoEmail', 'hard-bounce'],
    ['Transient', 'MailboxFull', 'soft-bounce'],
    ['Transient', 'General', 'soft-bounce'],
    ['Undetermined', 'Undetermined', 'soft-bounce'],
  ])('[feedback.transient] reads %s/%s as a %s', (bounceType, bounceSubType, kind) => {
    const reading = read({ ...BOUNCE, bounce: { ...BOUNCE.bounce, bounceType, bounceSubType } });
    expect(reading.kind === 'feedback' && reading.feedback.kind).toBe(kind);
  });

  it('[feedback.complaint] reads a complaint of its complained recipients', () => {
    expect(read(COMPLAINT)).toEqual({
      kind: 'feedback',
      feedback: {
        kind: 'complaint',
        mailId: MAIL.messageId,
        recipients: ['recipient@example.com'],
        detail: 'abuse',
      },
    });
  });

  it('reads a delivery of its recipients', () => {
    const reading = read(DELIVERY);
    expect(reading.kind === 'feedback' && reading.feedback).toMatchObject({
      kind: 'delivery',
      recipients: ['recipient@example.com'],
    });
  });

  it('reads the notification shape too (`notificationType`, as identity notifications send)', () => {
    const { eventType: _type, ...rest } = BOUNCE;
    const reading = read({ notificationType: 'Bounce', ...rest });
    expect(reading.kind === 'feedback' && reading.feedback.kind).toBe('hard-bounce');
  });

  it('normalises recipients as subscribers are keyed: trimmed, lower case', () => {
    const reading = read({
      ...COMPLAINT,
      complaint: {
        ...COMPLAINT.complaint,
        complainedRecipients: [{ emailAddress: ' Ada@Example.COM ' }],
      },
    });
    expect(reading.kind === 'feedback' && reading.feedback.recipients).toEqual(['ada@example.com']);
  });

  it.each(['Send', 'Open', 'Click', 'DeliveryDelay', 'Reject', 'Rendering Failure'])(
    'ignores a well-formed %s event, which no rule reads',
    (eventType) => {
      expect(read({ eventType, mail: MAIL })).toEqual({ kind: 'ignored', eventType });
    },
  );

  it('[feedback.malformed] reports what is not an SES event, naming where and never a value', () => {
    const cases: [string, string][] = [
      ['{ not json', 'not JSON'],
      [JSON.stringify({ mail: MAIL }), 'no eventType or notificationType'],
      [JSON.stringify('a string'), 'no eventType or notificationType'],
      [
        JSON.stringify({ ...BOUNCE, bounce: { ...BOUNCE.bounce, bouncedRecipients: [] } }),
        'bounce.bouncedRecipients',
      ],
      [
        JSON.stringify({
          ...BOUNCE,
          bounce: { ...BOUNCE.bounce, bounceType: 'secret@example.com' },
        }),
        'bounce.bounceType',
      ],
      [JSON.stringify({ ...DELIVERY, mail: { ...MAIL, messageId: 42 } }), 'mail.messageId'],
      [JSON.stringify({ eventType: 'Complaint', mail: MAIL }), 'complaint'],
    ];
    for (const [message, where] of cases) {
      const reading = readSesEvent(message);
      expect(reading.kind, message).toBe('malformed');
      const issue = reading.kind === 'malformed' ? reading.issue : '';
      expect(issue, message).toContain(where);
      expect(issue).not.toContain('@');
    }
  });
});
