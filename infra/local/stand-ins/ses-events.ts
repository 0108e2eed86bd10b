/**
 * The events the local SES publishes for a send that names a configuration set, in SES's
 * event-publishing JSON (eventType, mail, bounce / complaint / delivery), and SES's mailbox
 * simulator: what happens to mail for `bounce@`, `complaint@`, `suppressionlist@`, `success@`
 * and `ooto@simulator.amazonses.com` (labels such as `bounce+a@` included). Every other
 * recipient is a mailbox that accepts the mail: a delivery.
 */
import { randomBytes } from 'node:crypto';

/** The event types the local SES produces; a destination's matching types are these, lower-case first. */
export type SesEventType = 'Delivery' | 'Bounce' | 'Complaint';

/** A send SES accepted, as its events describe it. */
export interface AcceptedSend {
  readonly messageId: string;
  /** `Source`, or the From header when the send gave none. */
  readonly source: string;
  readonly recipients: readonly string[];
  /** The MIME message as sent: the events repeat its headers. */
  readonly raw: Buffer;
  readonly configurationSet: string;
  /** The send's own message tags; SES lists each beside its own `ses:` tags. */
  readonly tags?: Readonly<Record<string, string>>;
  readonly at: Date;
  readonly account: { readonly id: string; readonly region: string };
}

/** One event, ready to publish: its type and its JSON. */
export interface SesEvent {
  readonly eventType: SesEventType;
  readonly recipient: string;
  readonly json: Readonly<Record<string, unknown>>;
}

const SIMULATOR_DOMAIN = 'simulator.amazonses.com';
const REPORTING_MTA = 'a8-70.smtp-out.amazonses.com';

/** What the mailbox simulator (or a plain inbox) does with mail for one recipient. */
type Fate = 'delivered' | 'bounced' | 'suppressed' | 'complained';

function fateOf(recipient: string): Fate {
  const [local = '', domain = ''] = recipient.toLowerCase().split('@');
  if (domain !== SIMULATOR_DOMAIN) return 'delivered';
  switch (local.split('+')[0]) {
    case 'bounce':
      return 'bounced';
    case 'complaint':
      return 'complained';
    case 'suppressionlist':
      return 'suppressed';
    default:
      // success@ is delivered; ooto@ too: its out-of-office reply goes to the Return-Path and
      // is no event of the sender's.
      return 'delivered';
  }
}

/**
 * What SES's sending statistics count a recipient as besides a delivery attempt: a bounce (the
 * simulator's bounce and suppression-list addresses, which both bounce) or a complaint.
 */
export function statisticOf(recipient: string): 'bounce' | 'complaint' | undefined {
  const fate = fateOf(recipient);
  if (fate === 'bounced' || fate === 'suppressed') return 'bounce';
  return fate === 'complained' ? 'complaint' : undefined;
}

/** An id in the shape SES's feedback ids have. */
function feedbackId(): string {
  const hex = randomBytes(24).toString('hex');
  return `${hex.slice(0, 16)}-${hex.slice(16, 24)}-${hex.slice(24, 28)}-${hex.slice(28, 32)}-${hex.slice(32, 36)}-${hex.slice(36, 48)}-000000`;
}

/** The top-level headers of a MIME message, unfolded, in order. */
function headersOf(raw: Buffer): { name: string; value: string }[] {
  const text = raw.toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  const block = end === -1 ? text : text.slice(0, end);
  return block
    .replace(/\r?\n(?=[ \t])/g, '')
    .split(/\r?\n/)
    .map((line) => /^([^:\s]+):\s?(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ name: match[1] ?? '', value: match[2] ?? '' }));
}

/** The `mail` object every event carries (the tracking's opens and clicks too). */
export function mailObject(send: AcceptedSend): Record<string, unknown> {
  const headers = headersOf(send.raw);
  const all = (name: string) =>
    headers.filter((header) => header.name.toLowerCase() === name).map((header) => header.value);
  const one = (name: string) => all(name)[0];
  const fromDomain = (/@([^>\s]+)>?\s*$/.exec(send.source)?.[1] ?? '').toLowerCase();
  const common: Record<string, unknown> = {
    from: all('from'),
    to: all('to'),
    ...(one('message-id') ? { messageId: one('message-id') } : {}),
    ...(one('subject') ? { subject: one('subject') } : {}),
    ...(one('date') ? { date: one('date') } : {}),
  };
  return {
    timestamp: send.at.toISOString(),
    source: send.source,
    sourceArn: `arn:aws:ses:${send.account.region}:${send.account.id}:identity/${fromDomain}`,
    sendingAccountId: send.account.id,
    messageId: send.messageId,
    destination: [...send.recipients],
    headersTruncated: false,
    headers,
    commonHeaders: common,
    tags: {
      'ses:configuration-set': [send.configurationSet],
      'ses:source-ip': ['127.0.0.1'],
      'ses:from-domain': [fromDomain],
      ...Object.fromEntries(
        Object.entries(send.tags ?? {}).map(([name, value]) => [name, [value]]),
      ),
    },
  };
}

/**
 * The events of one accepted send, per recipient, in the order SES publishes them: a delivery;
 * a hard bounce for `bounce@`; a hard bounce without an attempt for `suppressionlist@` (the
 * address is on SES's suppression list); a delivery and then a complaint for `complaint@`.
 */
export function eventsOf(send: AcceptedSend): SesEvent[] {
  const mail = mailObject(send);
  const at = (offsetMs: number) => new Date(send.at.getTime() + offsetMs).toISOString();
  const delivery = (recipient: string): SesEvent => ({
    eventType: 'Delivery',
    recipient,
    json: {
      eventType: 'Delivery',
      mail,
      delivery: {
        timestamp: at(400),
        processingTimeMillis: 400,
        recipients: [recipient],
        smtpResponse: '250 2.6.0 Message received',
        reportingMTA: REPORTING_MTA,
        remoteMtaIp: '127.0.0.1',
      },
    },
  });
  const bounce = (
    recipient: string,
    subType: string,
    status: string,
    diagnosticCode: string,
    reportingMTA: string,
  ): SesEvent => ({
    eventType: 'Bounce',
    recipient,
    json: {
      eventType: 'Bounce',
      mail,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: subType,
        bouncedRecipients: [{ emailAddress: recipient, action: 'failed', status, diagnosticCode }],
        timestamp: at(600),
        feedbackId: feedbackId(),
        reportingMTA,
      },
    },
  });
  const complaint = (recipient: string): SesEvent => ({
    eventType: 'Complaint',
    recipient,
    json: {
      eventType: 'Complaint',
      mail,
      complaint: {
        complainedRecipients: [{ emailAddress: recipient }],
        timestamp: at(1000),
        feedbackId: feedbackId(),
        userAgent: 'Amazon SES Mailbox Simulator',
        complaintFeedbackType: 'abuse',
        arrivalDate: at(900),
      },
    },
  });
  const byFate: Record<Fate, (recipient: string) => SesEvent[]> = {
    delivered: (recipient) => [delivery(recipient)],
    bounced: (recipient) => [
      bounce(
        recipient,
        'General',
        '5.1.1',
        'smtp; 550 5.1.1 user unknown',
        `dsn; ${REPORTING_MTA}`,
      ),
    ],
    // Never attempted: SES refuses addresses on its suppression list itself.
    suppressed: (recipient) => [
      bounce(
        recipient,
        'Suppressed',
        '5.1.1',
        'Amazon SES has suppressed sending to this address because it has a recent history ' +
          'of bouncing as an invalid address.',
        'dns; amazonses.com',
      ),
    ],
    // Delivered, and then the recipient marks it as spam.
    complained: (recipient) => [delivery(recipient), complaint(recipient)],
  };
  return send.recipients.flatMap((recipient) => byFate[fateOf(recipient)](recipient));
}
