/**
 * Proposal (shared/mail/build-mime.ts): write the one message shape the functions send
 * (multipart/alternative, text then HTML, UTF-8, CRLF, a few headers) directly instead of
 * bundling nodemailer's MailComposer (about 140 KB minified, all of it evaluated at every
 * cold start of the two mail-sending functions).
 *
 * This stand-in has MailComposer's default export and `compile().build()` so that the
 * functions build unchanged and test/unit/mail/build-mime.test.ts runs against it; the real
 * change would put the writer into build-mime.ts itself.
 */
import { randomBytes } from 'node:crypto';

type Address = string | { readonly name: string; readonly address: string };

interface MailOptions {
  readonly from: Address;
  readonly to: Address;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const CRLF = '\r\n';

// RFC 5322 atext plus space: a display name of only these needs no quotes.
const PLAIN_PHRASE = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]*$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** RFC 2047 Q encoding, in words short enough for one header line each. */
function encodedWords(text: string): string {
  const words: string[] = [];
  let current = '';
  for (const char of text) {
    const bytes = Buffer.from(char, 'utf8');
    const encoded = /[A-Za-z0-9!*+\-/]/.test(char)
      ? char
      : char === ' '
        ? '_'
        : [...bytes].map((byte) => `=${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    if (current.length + encoded.length > 60) {
      words.push(current);
      current = '';
    }
    current += encoded;
  }
  words.push(current);
  return words.map((word) => `=?UTF-8?Q?${word}?=`).join(`${CRLF} `);
}

function headerText(text: string): string {
  return PRINTABLE_ASCII.test(text) ? text : encodedWords(text);
}

function mailbox(address: Address): string {
  if (typeof address === 'string') return address;
  const name = address.name.trim();
  if (name === '') return address.address;
  if (!PRINTABLE_ASCII.test(name)) return `${encodedWords(name)} <${address.address}>`;
  const phrase = PLAIN_PHRASE.test(name) ? name : `"${name.replace(/(["\\])/g, '\\$1')}"`;
  return `${phrase} <${address.address}>`;
}

/** Base64 body in lines of 76, line breaks of the text normalised to CRLF first. */
function base64Body(text: string): string {
  const encoded = Buffer.from(text.replace(/\r?\n/g, CRLF), 'utf8').toString('base64');
  return (encoded.match(/.{1,76}/g) ?? []).join(CRLF);
}

function domainOf(address: Address): string {
  const bare = typeof address === 'string' ? address : address.address;
  return bare.slice(bare.lastIndexOf('@') + 1) || 'localhost';
}

/** Builds the raw message: MailComposer's `new MailComposer(mail).compile().build()`. */
export default class MailComposer {
  constructor(private readonly mail: MailOptions) {}

  compile(): { build(): Promise<Buffer> } {
    return { build: async () => Buffer.from(this.render(), 'utf8') };
  }

  private render(): string {
    const mail = this.mail;
    const boundary = `--_nl_${randomBytes(12).toString('hex')}`;
    const headers = [
      `From: ${mailbox(mail.from)}`,
      `To: ${mailbox(mail.to)}`,
      `Subject: ${headerText(mail.subject)}`,
      ...Object.entries(mail.headers ?? {}).map(([name, value]) => `${name}: ${headerText(value)}`),
      `Message-ID: <${randomBytes(16).toString('hex')}@${domainOf(mail.from)}>`,
      `Date: ${new Date().toUTCString().replace(/GMT$/, '+0000')}`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/alternative; boundary="${boundary}"`,
    ];
    const part = (type: string, body: string) =>
      [
        `--${boundary}`,
        `Content-Type: ${type}; charset=utf-8`,
        'Content-Transfer-Encoding: base64',
        '',
        base64Body(body),
      ].join(CRLF);
    return [
      headers.join(CRLF),
      '',
      part('text/plain', mail.text),
      part('text/html', mail.html),
      `--${boundary}--`,
      '',
    ].join(CRLF);
  }
}
