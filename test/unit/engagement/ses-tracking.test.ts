/**
 * The local SES's open and click tracking on a real campaign MIME message ([engagement.local]):
 * the HTML part gets the pixel and tracked links, `ses:no-track` is honoured, at most 250 links
 * are rewritten, and the text part and the headers stay byte for byte.
 */

import { describe, expect, it } from 'vitest';
import { trackMessage } from '../../../infra/local/stand-ins/ses-tracking.ts';
import { buildMime } from '../../../shared/adapters/mail/build-mime.ts';

const BASE = 'http://127.0.0.1:9';

/** The parts of a multipart message by content type, as raw text (headers and body). */
function parts(raw: Buffer): Map<string, string> {
  const text = raw.toString('latin1');
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(text)?.[1] ?? '';
  const found = new Map<string, string>();
  for (const part of text.split(`--${boundary}`).slice(1, -1)) {
    const type = /Content-Type:\s*([^;\r\n]+)/i.exec(part)?.[1]?.trim() ?? '';
    found.set(type, part);
  }
  return found;
}

/** The HTML part decoded (the tracking writes it as base64). */
function htmlOf(raw: Buffer): string {
  const part = parts(raw).get('text/html') ?? '';
  const body = part.slice(part.search(/\r\n\r\n/) + 4);
  return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
}

async function mime(html: string, text = 'Read https://example.org/a\n') {
  return buildMime({
    sender: { address: 'news@example.com', name: 'News' },
    to: 'ada@example.net',
    subject: 'Tracked ünïcode',
    text,
    html,
    unsubscribeUrl: 'https://api.test/unsubscribe?token=1.2.x',
  });
}

describe('[engagement.local] tracking a raw message', () => {
  it('rewrites HTML links and adds the pixel; leaves no-track links, text and headers', async () => {
    const raw = await mime(
      '<p>Grüße <a href="https://example.org/a?x=1&amp;y=2">A</a> <a href="https://api.test/unsubscribe?token=1.2.x" ses:no-track>Leave</a> <a href="mailto:x@y.test">Mail</a></p>',
    );
    const { raw: tracked } = trackMessage(raw, BASE, 'set');
    const html = htmlOf(tracked);
    expect(html.match(/\/track\/click\//g)).toHaveLength(1);
    expect(html.match(/\/track\/open\//g)).toHaveLength(1);
    expect(html).toContain('href="https://api.test/unsubscribe?token=1.2.x" ses:no-track');
    expect(html).toContain('href="mailto:x@y.test"');
    expect(html).toContain('Grüße');
    expect(parts(tracked).get('text/plain')).toBe(parts(raw).get('text/plain'));
    const headerEnd = (buffer: Buffer) => buffer.subarray(0, buffer.indexOf('\r\n\r\n'));
    expect(headerEnd(tracked).equals(headerEnd(raw))).toBe(true);
  });

  it('rewrites at most 250 links, as SES', async () => {
    const links = Array.from(
      { length: 260 },
      (_, n) => `<a href="https://example.org/${n}">${n}</a>`,
    );
    const { raw } = trackMessage(await mime(links.join(' ')), BASE, 'set');
    const html = htmlOf(raw);
    expect(html.match(/\/track\/click\//g)).toHaveLength(250);
    expect(html).toContain('href="https://example.org/259"');
  });
});
