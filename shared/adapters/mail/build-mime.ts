import MailComposer from 'nodemailer/lib/mail-composer';
import type { Options } from 'nodemailer/lib/mailer';
import { encodeWord } from 'nodemailer/lib/mime-funcs';

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
  /**
   * When present (a list mail): `List-Unsubscribe: <url>`, RFC 8058 `List-Unsubscribe-Post`
   * and the RFC 2919 `List-Id` of the sender ([mail.list-id]).
   */
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
  const headers: Record<string, string | { prepared: boolean; value: string }> = {};
  if (message.unsubscribeUrl !== undefined) {
    headers['List-Unsubscribe'] = `<${_httpUrl(message.unsubscribeUrl)}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    // Written as prepared (folded, not re-encoded): MailComposer would otherwise turn the
    // quoted description, id and all, into one encoded word no list filter could read.
    // `foldLines` is a MailComposer header option its typings leave out.
    const listIdHeader = { prepared: true, foldLines: true, value: listId(message.sender) };
    headers['List-Id'] = listIdHeader;
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

/**
 * The RFC 2919 `List-Id` of every list mail ([mail.list-id]): the sender's name as the
 * description and `<local-part.domain>` of the sender's address as the id, so every campaign
 * and welcome mail of one newsletter carries the same id (a reader's filter keeps
 * working from issue to issue) and the id sits in a domain the operator owns (SES verified it).
 * The local part keeps letters, digits and `-` (others become `-`) and the domain is written
 * in its ASCII (punycode) form, so the id is always a valid dot-atom.
 */
export function listId(sender: MimeMessage['sender']): string {
  const [local = '', domain = ''] = sender.address.split('@');
  const label =
    local
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'newsletter';
  const id = `<${label}.${_asciiDomain(domain)}>`;
  const name = sender.name.replace(_CONTROL, ' ').replace(/["\\]/g, '').trim();
  if (name === '') return id;
  // Printable ASCII goes in a quoted string; anything else as one RFC 2047 encoded word,
  // which MailComposer leaves as it is (it is ASCII) and which may not sit inside quotes.
  const phrase = /^[ -~]*$/.test(name) ? `"${name}"` : encodeWord(name, 'Q', 52);
  return `${phrase} ${id}`;
}

function _asciiDomain(domain: string): string {
  try {
    return new URL(`http://${domain}`).hostname;
  } catch {
    return domain.toLowerCase();
  }
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
