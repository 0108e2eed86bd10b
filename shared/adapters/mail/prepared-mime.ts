import * as base64 from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import type { PartPieces } from '../../domain/campaign/prepared-campaign.ts';
import { composerOptions, type MimeMessage } from './build-mime.ts';

/** One recipient's campaign mail: its headers' fields and its parts as prepared pieces. */
export interface PiecesMessage extends Omit<MimeMessage, 'text' | 'html'> {
  readonly pieces: { readonly text: PartPieces; readonly html: PartPieces };
}

/** A part's fixed pieces, encoded once: its MIME header block and each piece's encoding. */
interface _EncodedFixed {
  readonly headers: string;
  /** Quoted-printable pieces (soft-wrapped, CRLF), or undefined for a base64 part. */
  readonly pieces: readonly string[] | undefined;
}

const _PARTS = [
  ['text', 'text/plain; charset=utf-8'],
  ['html', 'text/html; charset=utf-8'],
] as const;

/** A soft line break of quoted-printable (RFC 2045, 6.7): the lines it joins decode as one. */
const _SOFT_BREAK = '=\r\n';

/**
 * Campaign mail whose parts come as prepared pieces (prepared-campaign.ts): MIME as buildMime
 * builds it, with the work that is the same for every recipient done once per set of fixed
 * pieces. Per mail, MailComposer writes the headers (same options and checks as buildMime) and
 * chooses the boundary; nodemailer's encoders encode only the recipient's values, and the
 * part's fixed pieces come encoded already.
 *
 * nodemailer encodes a text part as quoted-printable, or as base64 when it holds more non-Latin
 * characters than Latin ones; that choice is made once on the fixed pieces. A quoted-printable
 * part is each piece encoded and soft-wrapped alone (lines of at most 75 characters), the
 * pieces joined by soft line breaks: decoded, exactly the part. A base64 part is encoded whole
 * for each mail.
 */
export class PreparedMime {
  /**
   * Encodings by part and by the fixed pieces they encode (the same array may stand for both
   * parts of a mail rendered whole): kept as long as a prepared campaign holds the pieces.
   */
  readonly #encoded = {
    text: new WeakMap<readonly string[], _EncodedFixed>(),
    html: new WeakMap<readonly string[], _EncodedFixed>(),
  };

  /** The raw message, as buildMime would build it from the joined parts. */
  build(message: PiecesMessage): Buffer {
    const children = _PARTS.map(([part, type]) =>
      this.#part(message.pieces[part], type, this.#encoded[part]),
    );
    const root = new MailComposer({
      ...composerOptions(message),
      alternatives: children.map((raw) => ({ raw })),
    }).compile();
    return Buffer.from(multipartMessage(root, children));
  }

  /** One part as a raw MIME entity: its header block, a blank line, its encoded body. */
  #part(
    part: PartPieces,
    contentType: string,
    encodings: WeakMap<readonly string[], _EncodedFixed>,
  ): string {
    let fixed = encodings.get(part.fixed);
    if (!fixed) {
      fixed = _encodeFixed(part.fixed, contentType);
      encodings.set(part.fixed, fixed);
    }
    if (!fixed.pieces) {
      const whole = part.values.reduce(
        (joined, value, index) => joined + value + (part.fixed[index + 1] ?? ''),
        part.fixed[0] ?? '',
      );
      return `${fixed.headers}\r\n\r\n${base64.wrap(base64.encode(whole), 76)}`;
    }
    const encoded: string[] = [];
    const add = (piece: string): void => {
      if (piece !== '') encoded.push(piece);
    };
    add(fixed.pieces[0] ?? '');
    for (let index = 0; index < part.values.length; index += 1) {
      add(_quotedPrintable(part.values[index] ?? ''));
      add(fixed.pieces[index + 1] ?? '');
    }
    return `${fixed.headers}\r\n\r\n${encoded.join(_SOFT_BREAK)}`;
  }
}

/**
 * A multipart node and its raw children as MimeNode.stream writes them: the node's headers, a
 * blank line, each child after a delimiter line, then the close delimiter (RFC 2046, 5.1.1).
 * Its streams cost more than the encoding, so the children are joined here.
 */
export function multipartMessage(root: MimeNode, children: readonly string[]): string {
  // Building the headers makes the boundary.
  const headers = root.buildHeaders();
  const boundary = String(root.boundary);
  const parts = children.map((child) => `--${boundary}\r\n${child}\r\n`).join('');
  return `${headers}\r\n\r\n${parts}--${boundary}--\r\n`;
}

function _encodeFixed(fixed: readonly string[], contentType: string): _EncodedFixed {
  // nodemailer's choice for this content, and its header block for the part.
  const probe = new MimeNode('multipart/alternative').createChild(contentType);
  probe.setContent(fixed.join(''));
  const transferEncoding = probe.getTransferEncoding() === 'base64' ? 'base64' : 'quoted-printable';
  const node = new MimeNode('multipart/alternative').createChild(contentType);
  node.setHeader('Content-Transfer-Encoding', transferEncoding);
  return {
    headers: node.buildHeaders(),
    pieces: transferEncoding === 'base64' ? undefined : fixed.map(_quotedPrintable),
  };
}

/**
 * Text as quoted-printable by nodemailer, soft-wrapped to 75 characters so that a soft line
 * break after the last line keeps it within 76, with CRLF line breaks as MailComposer's
 * `newline: 'windows'` writes them.
 */
function _quotedPrintable(text: string): string {
  return text === '' ? '' : qp.wrap(qp.encode(text), 75).replace(/\r?\n/g, '\r\n');
}
