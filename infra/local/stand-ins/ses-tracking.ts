/**
 * What SES does for a configuration set with open and click event destinations, locally
 * ([engagement.local]): before the message is stored, the HTML part gets a 1×1 open pixel at
 * its end and each of its links (`<a href="http(s)://...">`, at most 250, as SES) is rewritten
 * to a tracking address of the local SES; a link with `ses:no-track` is left alone, and the
 * text parts and every header (`List-Unsubscribe` included) are not touched. Fetching the
 * pixel publishes an Open event, following a link a Click event (the set's destinations, SES's
 * JSON), and then redirects to the real address, as SES's `awstrack.me` does.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decode as decodeQuotedPrintable } from 'libqp';

/** The most links SES rewrites in one message. */
const MAX_LINKS = 250;

/** A tracked mail: what its events say, once SES has accepted it (`accept`). */
export interface TrackedMail {
  /** The event's `mail` object; set when the send is accepted. */
  mail?: Record<string, unknown>;
  readonly configurationSet: string;
}

interface TrackingTarget {
  readonly mail: TrackedMail;
  /** Undefined for the open pixel. */
  readonly link?: string;
}

// Tracking addresses are the account's state, kept as the configuration sets are: a link in a
// stored mail keeps working while the process runs.
const targets = new Map<string, TrackingTarget>();

/** The rewritten message, and its tracking record to complete once SES takes it. */
export interface TrackingRewrite {
  readonly raw: Buffer;
  readonly mail: TrackedMail;
}

/** A decoded MIME entity: its header block, its body, and where its headers end. */
interface Entity {
  readonly headers: string;
  readonly body: string;
  readonly newline: string;
}

function splitEntity(text: string): Entity {
  const match = /\r?\n\r?\n/.exec(text);
  if (!match) return { headers: text, body: '', newline: '\r\n' };
  const newline = match[0].startsWith('\r\n') ? '\r\n' : '\n';
  return {
    headers: text.slice(0, match.index),
    body: text.slice(match.index + match[0].length),
    newline,
  };
}

function header(headers: string, name: string): string | undefined {
  const unfolded = headers.replace(/\r?\n(?=[ \t])/g, '');
  const line = unfolded
    .split(/\r?\n/)
    .find((each) => each.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body).toString('utf8');
    default:
      return Buffer.from(body, 'latin1').toString('utf8');
  }
}

/** Base64 in lines of 76, as MIME wants. */
function base64Lines(text: string, newline: string): string {
  return (
    Buffer.from(text, 'utf8')
      .toString('base64')
      .match(/.{1,76}/g) ?? []
  ).join(newline);
}

/** An `<a>` start tag (quoted values may hold `>`) and its `href`. */
const ANCHOR = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)')/i;
const NO_TRACK = /\sses:no-track(?=[\s=/>])/i;
const BODY_END = /<\/body\s*>/gi;

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The HTML with its links rewritten and the pixel added. */
function trackHtml(html: string, base: string, mail: TrackedMail): string {
  let links = 0;
  const rewritten = html.replace(ANCHOR, (tag) => {
    if (NO_TRACK.test(tag) || links >= MAX_LINKS) return tag;
    const href = HREF.exec(tag);
    const value = href?.[2] ?? href?.[3];
    if (!href || value === undefined) return tag;
    const link = unescapeAttribute(value.trim());
    if (!/^https?:\/\//i.test(link)) return tag;
    links += 1;
    const token = randomBytes(16).toString('base64url');
    targets.set(token, { mail, link });
    return tag.replace(HREF, `${href[1]}"${base}/track/click/${token}"`);
  });
  const token = randomBytes(16).toString('base64url');
  targets.set(token, { mail });
  const pixel = `<img src="${base}/track/open/${token}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;
  let end = -1;
  for (const match of rewritten.matchAll(BODY_END)) end = match.index;
  return end === -1
    ? `${rewritten}${pixel}`
    : `${rewritten.slice(0, end)}${pixel}${rewritten.slice(end)}`;
}

/** Rewrites every text/html part of an entity (recursing into multiparts). */
function trackEntity(text: string, base: string, mail: TrackedMail): string {
  const { headers, body, newline } = splitEntity(text);
  const type = header(headers, 'Content-Type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const delimiter = `--${boundary}`;
    const pieces = body.split(delimiter);
    // pieces[0] is the preamble; the last starts with `--` (the close delimiter).
    const parts = pieces.map((piece, index) => {
      if (index === 0 || piece.startsWith('--')) return piece;
      const lead = /^\r?\n/.exec(piece)?.[0] ?? '';
      const trail = /\r?\n$/.exec(piece)?.[0] ?? '';
      const inner = piece.slice(lead.length, piece.length - trail.length);
      return `${lead}${trackEntity(inner, base, mail)}${trail}`;
    });
    return `${headers}${newline}${newline}${parts.join(delimiter)}`;
  }
  if (!/^text\/html/i.test(type)) return text;
  const html = decodeBody(body, header(headers, 'Content-Transfer-Encoding'));
  const tracked = trackHtml(html, base, mail);
  const unfolded = headers.replace(/\r?\n(?=[ \t])/g, ' ');
  const others = unfolded
    .split(/\r?\n/)
    .filter((line) => !/^content-transfer-encoding:/i.test(line));
  return `${[...others, 'Content-Transfer-Encoding: base64'].join(newline)}${newline}${newline}${base64Lines(tracked, newline)}${newline}`;
}

/**
 * The message as SES sends it for a set with open or click tracking: the HTML part rewritten
 * (pixel, tracked links), everything else byte for byte. `base` is the local SES's address.
 */
export function trackMessage(raw: Buffer, base: string, configurationSet: string): TrackingRewrite {
  const mail: TrackedMail = { configurationSet };
  // latin1 keeps every byte as one character, so what is not rewritten goes back unchanged.
  return { raw: Buffer.from(trackEntity(raw.toString('latin1'), base, mail), 'latin1'), mail };
}

/** A 1×1 transparent GIF, what SES's open pixel answers with. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Publishes one event of a tracked mail to its set's destinations for that type. */
export type TrackingPublisher = (
  configurationSet: string,
  eventType: 'open' | 'click',
  json: Record<string, unknown>,
) => void;

/**
 * Answers the tracking addresses (`GET /track/open/<token>`, `GET /track/click/<token>`): the
 * event first, then the pixel or a 302 to the real link. An unknown token is a 404; a mail
 * SES has not accepted publishes nothing. Returns false for any other request.
 */
export function serveTracking(
  req: IncomingMessage,
  res: ServerResponse,
  publish: TrackingPublisher,
): boolean {
  const url = new URL(req.url ?? '/', 'http://ses');
  const match = /^\/track\/(open|click)\/([A-Za-z0-9_-]{10,40})$/.exec(url.pathname);
  if (!match || req.method !== 'GET') return false;
  const [, kind, token] = match;
  const target = targets.get(token ?? '');
  if (!target || (kind === 'click') !== (target.link !== undefined)) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Unknown tracking address.\n');
    return true;
  }
  const detail = {
    timestamp: new Date().toISOString(),
    ipAddress: req.socket.remoteAddress ?? '127.0.0.1',
    userAgent: String(req.headers['user-agent'] ?? ''),
  };
  const mail = target.mail.mail;
  if (mail) {
    if (target.link === undefined)
      publish(target.mail.configurationSet, 'open', { eventType: 'Open', mail, open: detail });
    else
      publish(target.mail.configurationSet, 'click', {
        eventType: 'Click',
        mail,
        click: { ...detail, link: target.link, linkTags: {} },
      });
  }
  if (target.link === undefined) {
    res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-cache, no-store' });
    res.end(PIXEL);
  } else {
    res.writeHead(302, { location: target.link, 'cache-control': 'no-cache, no-store' });
    res.end();
  }
  return true;
}
