/**
 * The local mail viewer (`npm start` prints its address): every message the local SES
 * received, newest first, shown as it was sent. Each one has its full header block (so
 * `List-Unsubscribe`, `List-Unsubscribe-Post` and `Message-ID` can be checked), its text part,
 * a link to the raw MIME message exactly as sent (also as an .eml download), its HTML part in
 * a page of its own, and, for mails with RFC 8058 headers, the button a mail client's
 * "unsubscribe" would press: a POST of `List-Unsubscribe=One-Click` to the header's URL.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../../../shared/domain/escape-html.ts';

/** One stored mail, as much as the viewer shows. */
export interface ViewedMail {
  readonly messageId: string;
  readonly subject: string;
  readonly from: string;
  readonly destination: { readonly to: readonly string[] };
  readonly at: number;
  readonly body: { readonly text?: string; readonly html?: string };
}

/** What the viewer reads: the stored mails and the exact bytes of each raw send. */
export interface MailSource {
  messages(): Promise<readonly ViewedMail[]>;
  rawMessage(messageId: string): Buffer | undefined;
}

/** The header block of a raw message, unfolded, as `[name, value]` in order. */
export function headerBlock(raw: Buffer): [string, string][] {
  const text = raw.toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  return (end === -1 ? text : text.slice(0, end))
    .replace(/\r?\n(?=[ \t])/g, '')
    .split(/\r?\n/)
    .filter((line) => line.includes(':'))
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
}

const STYLE = [
  "body{font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f4f5;color:#1f2937}",
  'main{max-width:60rem;margin:0 auto;padding:1.5rem}',
  'article{background:#fff;border-radius:.5rem;padding:1rem 1.25rem;margin:0 0 1rem}',
  'h2{font-size:1.125rem;margin:0 0 .5rem}',
  'pre{white-space:pre-wrap;word-break:break-all;background:#f9fafb;padding:.75rem;font-size:.8125rem}',
  'table{border-collapse:collapse;font-size:.8125rem}td{padding:.125rem .5rem;vertical-align:top}',
  'form{display:inline}button{margin:.25rem .5rem .25rem 0}',
].join('');

function page(title: string, content: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${content}</main></body></html>`;
}

function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  response.end(body);
}

function mailArticle(mail: ViewedMail, raw: Buffer | undefined): string {
  const id = encodeURIComponent(mail.messageId);
  const headers = raw ? headerBlock(raw) : [];
  const value = (name: string) =>
    headers.find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  const listUnsubscribe = /^<(https?:\/\/[^>]+)>/.exec(value('List-Unsubscribe') ?? '')?.[1];
  const oneClick = value('List-Unsubscribe-Post') === 'List-Unsubscribe=One-Click';
  const parts = [
    `<h2>${escapeHtml(mail.subject)}</h2>`,
    `<p>From ${escapeHtml(mail.from)} to ${escapeHtml(mail.destination.to.join(', '))}, ${escapeHtml(new Date(mail.at * 1000).toISOString())}</p>`,
    raw
      ? `<p><a href="/messages/${id}.eml">Raw message, as sent</a> · <a href="/messages/${id}.eml?download">Download .eml</a>${mail.body.html ? ` · <a href="/messages/${id}/html">HTML part</a>` : ''}</p>`
      : '<p>Not sent as raw MIME: there is no exact copy of this message.</p>',
  ];
  if (listUnsubscribe && oneClick) {
    parts.push(
      `<form method="post" action="${escapeHtml(listUnsubscribe)}" enctype="application/x-www-form-urlencoded"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">One-click unsubscribe (RFC 8058, as a mail client does it)</button></form>`,
    );
  }
  if (headers.length) {
    parts.push(
      `<details><summary>Headers (${headers.length})</summary><table>${headers
        .map(([name, text]) => `<tr><td>${escapeHtml(name)}</td><td>${escapeHtml(text)}</td></tr>`)
        .join('')}</table></details>`,
    );
  }
  if (mail.body.text) {
    parts.push(
      `<details open><summary>Text</summary><pre>${escapeHtml(mail.body.text)}</pre></details>`,
    );
  }
  return `<article>${parts.join('')}</article>`;
}

/**
 * Answers the viewer's own routes: `GET /` (the list), `GET /messages/<id>.eml` (the raw
 * message as sent; `?download` as an attachment), `GET /messages/<id>/html` (the HTML part, no
 * script; its images load, as a mail client shows them, so a tracked mail's pixel is fetched). Returns false for any other request.
 */
export async function serveMailViewer(
  request: IncomingMessage,
  response: ServerResponse,
  source: MailSource,
): Promise<boolean> {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url ?? '/', 'http://viewer');
  if (url.pathname === '/') {
    const mails = [...(await source.messages())].reverse();
    const list = mails.map((mail) => mailArticle(mail, source.rawMessage(mail.messageId)));
    send(
      response,
      200,
      'text/html; charset=utf-8',
      page(
        'Local mail',
        `<h1>Local mail (${mails.length})</h1><p><a href="/">Refresh</a> · <a href="/store">JSON</a></p>${list.join('') || '<p>No mail yet.</p>'}`,
      ),
      {
        'Content-Security-Policy':
          "default-src 'none'; style-src 'unsafe-inline'; form-action http: https:",
      },
    );
    return true;
  }
  const match = /^\/messages\/([^/]+?)(\.eml|\/html)$/.exec(url.pathname);
  if (!match?.[1]) return false;
  const messageId = decodeURIComponent(match[1]);
  if (match[2] === '.eml') {
    const raw = source.rawMessage(messageId);
    if (!raw) {
      send(response, 404, 'text/plain; charset=utf-8', 'No raw message with this id.\n');
      return true;
    }
    send(
      response,
      200,
      url.searchParams.has('download') ? 'message/rfc822' : 'text/plain; charset=utf-8',
      raw,
      url.searchParams.has('download')
        ? {
            'Content-Disposition': `attachment; filename="${messageId.replace(/[^\w.-]/g, '_')}.eml"`,
          }
        : {},
    );
    return true;
  }
  const mail = (await source.messages()).find((each) => each.messageId === messageId);
  if (!mail?.body.html) {
    send(response, 404, 'text/plain; charset=utf-8', 'No HTML part.\n');
    return true;
  }
  send(response, 200, 'text/html; charset=utf-8', mail.body.html, {
    // Images load, as in a mail client that shows them: that is what opens a tracked mail
    // ([engagement.local]). Still no script, and nothing else from elsewhere.
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src http: https: data:",
  });
  return true;
}
