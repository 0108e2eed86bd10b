import { escapeHtml } from '../escape-html.ts';

/** An `<a>` start tag: quoted attribute values may hold `>`. */
const _ANCHOR = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;

/** Its `href`, quoted either way or bare. */
const _HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/** An attribute named `ses:no-track` already present. */
const _NO_TRACK = /\sses:no-track(?=[\s=/>])/i;

/**
 * Marks the links SES must never rewrite ([engagement.no-track]): every `<a>` whose `href` is
 * one of `urls` (the recipient's unsubscribe link, the web version's link) gets the
 * `ses:no-track` attribute, wherever it stands: in the footer, or where the operator put
 * `{unsubscription_url}`. So a click on them is not a tracked click, the one-click link keeps
 * working where SES's redirect domain is blocked, and its secret never passes through a
 * redirect. Nothing else of the HTML changes; mail without tracking ignores the attribute.
 */
export function markUntracked(html: string, urls: readonly string[]): string {
  const targets = new Set(urls.flatMap((url) => [url, escapeHtml(url)]));
  return html.replace(_ANCHOR, (tag) => {
    const href = _HREF.exec(tag);
    const value = href?.[1] ?? href?.[2] ?? href?.[3];
    if (value === undefined || !targets.has(value.trim()) || _NO_TRACK.test(tag)) return tag;
    const end = tag.endsWith('/>') ? tag.length - 2 : tag.length - 1;
    return `${tag.slice(0, end)} ses:no-track${tag.slice(end)}`;
  });
}
