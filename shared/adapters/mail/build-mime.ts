import MailComposer from 'nodemailer/lib/mail-composer';
import type { Options } from 'nodemailer/lib/mailer';

/** Everything that goes into one raw message; `subject`, `text`, `html` as `renderMail` makes them. */
export interface MimeMessage {
  /**
   * The operator's sender (settings): `From: name <address>`, the name quoted (or encoded)
   * by MailComposer where RFC 5322 needs it; the bare address when the name is empty.
   */
  readonly sender: { readonly address: string; readonly name: string };
  /** Recipient, a bare address; written as `To: address`, never with a display name. */
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** When present: `List-Unsubscribe: <url>` and RFC 8058 `List-Unsubscribe-Post`. */
  readonly unsubscribeUrl?: string;
}

// A bare address: one @, no whitespace, controls, quotes, brackets or separators, so it
// cannot carry a display name, a second recipient or a line break into a header.
const _BARE_ADDRESS = /^[^\s\p{Cc}<>()[\]\\,;:"@]+@[^\s\p{Cc}<>()[\]\\,;:"@]+$/u;

const _CONTROL = /\p{Cc}+/gu;

/**
 * Builds the raw MIME message (multipart/alternative: text/plain then text/html, UTF-8, CRLF)
 * with nodemailer's MailComposer, ready for SES `SendRawEmail`.
 *
 * Headers carry operator text (sender, subject) and addresses only. The subject is stripped of
 * control characters once more here, and MailComposer encodes non-ASCII header text itself.
 *
 * @throws Error when `to` or the sender address is not a bare address, or the unsubscribe link
 *   is not an absolute http(s) URL: those come from validated data, so it is a bug.
 */
export async function buildMime(message: MimeMessage): Promise<Buffer> {
  const composer = new MailComposer({
    ...composerOptions(message),
    text: message.text,
    html: message.html,
  });
  return composer.compile().build();
}

/**
 * MailComposer's options for a message's headers, its parts left out; checked as buildMime
 * says. Shared with the campaign mails whose parts are encoded ahead (prepared-mime.ts).
 */
export function composerOptions(message: Omit<MimeMessage, 'text' | 'html'>): Options {
  const to = _bareAddress(message.to, 'recipient');
  const from = _bareAddress(message.sender.address, 'sender');
  const senderName = message.sender.name.replace(_CONTROL, ' ').trim();
  const headers: Record<string, string> = {};
  if (message.unsubscribeUrl !== undefined) {
    headers['List-Unsubscribe'] = `<${_httpUrl(message.unsubscribeUrl)}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    from: senderName === '' ? from : { name: senderName, address: from },
    // An address object with an empty name: nodemailer then writes the address alone and
    // does not parse the string for a display name or further recipients.
    to: { name: '', address: to },
    subject: message.subject.replace(_CONTROL, ' ').trim(),
    headers,
    newline: 'windows',
    // Content is always given inline; never let a value make nodemailer read a file or URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

function _bareAddress(address: string, role: string): string {
  if (!_BARE_ADDRESS.test(address) || address.length > 254) {
    throw new Error(`The ${role} is not a bare e-mail address`);
  }
  return address;
}

function _httpUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`The unsubscribe link must be an http(s) URL, got scheme ${parsed.protocol}`);
  }
  // The serialised form percent-encodes spaces and angle brackets, which would end `<…>`.
  return parsed.href;
}
