/** One MIME entity: its header lines as sent, unfolded headers, and its body. */
export interface ParsedEntity {
  /** Physical header lines, folding kept, so every line can be checked. */
  readonly rawHeaderLines: readonly string[];
  /** Unfolded headers as `[name, value]`, names lower-cased, in order. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

/** A parsed multipart message: the root entity and its parts, bodies decoded to text. */
export interface ParsedMessage extends ParsedEntity {
  readonly parts: readonly ParsedEntity[];
}

/** All values of a header (case-insensitive name). */
export function headerValues(entity: ParsedEntity, name: string): string[] {
  return entity.headers.filter(([key]) => key === name.toLowerCase()).map(([, value]) => value);
}

function _entity(raw: string): ParsedEntity {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end + 4);
  const rawHeaderLines = head.split('\r\n');
  const headers = head
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')
    .map((line): readonly [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    });
  return { rawHeaderLines, headers, body };
}

function _decodeQuotedPrintable(text: string): string {
  const soft = text.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(soft.charCodeAt(i));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function _decodeBody(entity: ParsedEntity): ParsedEntity {
  const encoding = headerValues(entity, 'content-transfer-encoding')[0]?.toLowerCase();
  if (encoding === 'quoted-printable') {
    return { ...entity, body: _decodeQuotedPrintable(entity.body) };
  }
  if (encoding === 'base64') {
    return { ...entity, body: Buffer.from(entity.body, 'base64').toString('utf8') };
  }
  return entity;
}

/** Splits a raw message (CRLF) into headers and the parts of its multipart body. */
export function parseMime(raw: Uint8Array | string): ParsedMessage {
  const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
  const root = _entity(text);
  const contentType = headerValues(root, 'content-type')[0] ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (boundary === undefined) {
    return { ...root, parts: [] };
  }
  const parts = root.body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => _decodeBody(_entity(chunk.replace(/^\r\n/, '').replace(/\r\n$/, ''))));
  return { ...root, parts };
}
