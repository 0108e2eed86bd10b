import { escapeHtml } from '../../domain/escape-html.ts';
import { DEFAULT_TEXTS, type Settings } from '../../domain/settings-schema.ts';
import type { DueMail } from './mail-port.ts';

/** A mail ready for MIME: a one-line subject, the plain-text part and a complete HTML document. */
export interface RenderedMail {
  /** Operator text only: never contains user-supplied text, CR or LF. */
  readonly subject: string;
  /** The operator's body with the raw values substituted. */
  readonly text: string;
  /** The same body as a small HTML document; every substituted value is escaped. */
  readonly html: string;
}

type PlaceholderName = 'name' | 'surname' | 'email' | 'confirm_url' | 'unsubscribe_url' | 'lists';

type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'placeholder'; readonly name: PlaceholderName };

/** What `{name}` says in a mail to a subscriber who gave no name: "Hello there,". */
const _NAME_FALLBACK = 'there';

const _PLACEHOLDER = /\{(name|surname|email|confirm_url|unsubscribe_url|lists)\}/g;

const _URL_PLACEHOLDERS: ReadonlySet<PlaceholderName> = new Set(['confirm_url', 'unsubscribe_url']);

// C0/C1 controls and the Unicode line separators: a value must not start a line of its own.
const _CONTROL = /[\p{Cc}\u2028\u2029]+/gu;

const _FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/**
 * Renders a due mail from the operator's texts (`settings.texts[mail.kind]`).
 *
 * Placeholders `{name}`, `{surname}`, `{email}`, `{confirm_url}`, `{unsubscribe_url}` and
 * `{lists}` (list names joined by ", ") are replaced in one pass, so a value that itself looks
 * like a placeholder stays literal. Other `{words}` are left as the operator wrote them.
 *
 * - Empty name: in a mail to the subscriber (`activation`, `welcome`) `{name}` becomes "there"
 *   so "Hello {name}," reads "Hello there,"; in the `admin` mail it stays empty, because there
 *   it is data, not a greeting.
 * - Control characters (CR, LF, …) in user values become a space, so a value cannot fake
 *   lines of the operator's text; the domain rejects them anyway.
 * - A URL placeholder whose link the mail does not have becomes empty. When the mail has a
 *   link but the operator's body lacks its placeholder, a paragraph with the link is appended,
 *   because a mail without its activation or unsubscribe link is broken.
 * - Subject: a subject is a header, so no placeholder is substituted there: every placeholder
 *   above becomes an empty string (not rejected: an operator's typo must not stop every
 *   subscription), whitespace is collapsed, control characters are removed, and an empty
 *   result falls back to the default subject of the kind.
 * - HTML: paragraphs from blank-line-separated blocks, `<br>` for single line breaks, the
 *   operator's text and every value escaped, the two URLs as links. The document says
 *   `lang="en"` because the settings carry no language.
 *
 * @throws Error when a link is not an absolute http(s) URL: the domain built it, so it is a bug.
 */
export function renderMail(mail: DueMail, settings: Settings): RenderedMail {
  const template = settings.texts[mail.kind];
  const values = _values(mail);
  const subject = _subject(template.subject, mail.kind);
  const paragraphs = _paragraphs(_bodyWithLinks(template.body, mail));
  const text = paragraphs
    .map((lines) => lines.map((line) => _substitute(line, values)).join('\n'))
    .join('\n\n');
  const html = _document(
    subject,
    paragraphs.map((lines) => _paragraphHtml(lines, values)),
  );
  return { subject, text, html };
}

function _values(mail: DueMail): Readonly<Record<PlaceholderName, string>> {
  const { subscriber } = mail;
  const name = _clean(subscriber.name);
  return {
    name: name === '' && mail.kind !== 'admin' ? _NAME_FALLBACK : name,
    surname: _clean(subscriber.surname),
    email: _clean(subscriber.email),
    lists: subscriber.listNames
      .map(_clean)
      .filter((listName) => listName !== '')
      .join(', '),
    confirm_url: _httpUrl(mail.confirmUrl),
    unsubscribe_url: _httpUrl(mail.unsubscribeUrl),
  };
}

function _clean(value: string): string {
  return value.replace(_CONTROL, ' ').trim();
}

function _httpUrl(url: string | undefined): string {
  if (url === undefined || url === '') {
    return '';
  }
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`Mail link must be an http(s) URL, got scheme ${parsed.protocol}`);
  }
  // The serialised form percent-encodes spaces, quotes and angle brackets.
  return parsed.href;
}

function _subject(template: string, kind: DueMail['kind']): string {
  const subject = template
    .replace(_PLACEHOLDER, '')
    .replace(_CONTROL, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return subject === '' ? DEFAULT_TEXTS[kind].subject : subject;
}

function _bodyWithLinks(body: string, mail: DueMail): string {
  let result = body.replace(/\r\n?/g, '\n');
  if (mail.confirmUrl && !result.includes('{confirm_url}')) {
    result += '\n\n{confirm_url}';
  }
  if (mail.unsubscribeUrl && !result.includes('{unsubscribe_url}')) {
    result += '\n\nUnsubscribe: {unsubscribe_url}';
  }
  return result;
}

/** Splits the template (before substitution, so values cannot add structure) into lines. */
function _paragraphs(body: string): string[][] {
  return body
    .split(/\n(?:[ \t]*\n)+/)
    .map((block) => block.replace(/^(?:[ \t]*\n)+|(?:\n[ \t]*)+$/g, ''))
    .filter((block) => block.trim() !== '')
    .map((block) => block.split('\n'));
}

function _segments(line: string): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of line.matchAll(_PLACEHOLDER)) {
    if (match.index > last) {
      segments.push({ kind: 'literal', text: line.slice(last, match.index) });
    }
    segments.push({ kind: 'placeholder', name: match[1] as PlaceholderName });
    last = match.index + match[0].length;
  }
  if (last < line.length) {
    segments.push({ kind: 'literal', text: line.slice(last) });
  }
  return segments;
}

function _substitute(line: string, values: Readonly<Record<PlaceholderName, string>>): string {
  return _segments(line)
    .map((segment) => (segment.kind === 'literal' ? segment.text : values[segment.name]))
    .join('');
}

function _paragraphHtml(
  lines: readonly string[],
  values: Readonly<Record<PlaceholderName, string>>,
): string {
  const body = lines
    .map((line) =>
      _segments(line)
        .map((segment) => {
          if (segment.kind === 'literal') {
            return escapeHtml(segment.text);
          }
          const value = values[segment.name];
          if (_URL_PLACEHOLDERS.has(segment.name) && value !== '') {
            const url = escapeHtml(value);
            return `<a href="${url}" style="color:#1d4ed8;word-break:break-all">${url}</a>`;
          }
          return escapeHtml(value);
        })
        .join(''),
    )
    .join('<br>\n');
  return `<p style="margin:0 0 16px 0">${body}</p>`;
}

function _document(subject: string, paragraphs: readonly string[]): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:#f4f4f5">
<div style="max-width:600px;margin:0 auto;padding:24px;background-color:#ffffff;color:#1f2937;${_FONT};font-size:16px;line-height:1.5">
${paragraphs.join('\n')}
</div>
</body>
</html>
`;
}
