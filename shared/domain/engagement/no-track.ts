import { escapeHtml } from '../escape-html.ts';

/** An `<a>` start tag: quoted attribute values may hold `>`. */
const _ANCHOR = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;

/** Its `href`, quoted either way or bare. */
const _HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/** An attribute named `ses:no-track` already present. */
const _NO_TRACK = /\sses:no-track(?=[\s=/>])/i;

/** Where each `<a>` start tag of `html` stands (`end` exclusive). */
export function findAnchors(html: string): { readonly start: number; readonly end: number }[] {
  return [...html.matchAll(_ANCHOR)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/** What markUntracked compares hrefs with: each URL as written and HTML-escaped. */
export function untrackTargets(urls: readonly string[]): ReadonlySet<string> {
  return new Set(urls.flatMap((url) => [url, escapeHtml(url)]));
}

/**
 * The `href` (trimmed) of one `<a>` start tag that markUntracked would compare with its URLs;
 * undefined when it has none or already carries `ses:no-track`.
 */
export function untrackableHref(anchor: string): string | undefined {
  const href = _HREF.exec(anchor);
  const value = href?.[1] ?? href?.[2] ?? href?.[3];
  return value === undefined || _NO_TRACK.test(anchor) ? undefined : value.trim();
}

/**
 * One `<a>` start tag (as findAnchors finds it) as markUntracked leaves it: with `ses:no-track`
 * added when its href is one of `targets` (untrackTargets).
 */
export function markUntrackedAnchor(anchor: string, targets: ReadonlySet<string>): string {
  const href = untrackableHref(anchor);
  if (href === undefined || !targets.has(href)) return anchor;
  const end = anchor.endsWith('/>') ? anchor.length - 2 : anchor.length - 1;
  return `${anchor.slice(0, end)} ses:no-track${anchor.slice(end)}`;
}

/**
 * Marks the links SES must never rewrite ([engagement.no-track]): every `<a>` whose `href` is
 * one of `urls` (the recipient's unsubscribe link, the web version's link) gets the
 * `ses:no-track` attribute, wherever it stands: in the footer, or where the operator put
 * `{unsubscription_url}`. So a click on them is not a tracked click, the one-click link keeps
 * working where SES's redirect domain is blocked, and its secret never passes through a
 * redirect. Nothing else of the HTML changes; mail without tracking ignores the attribute.
 */
export function markUntracked(html: string, urls: readonly string[]): string {
  const targets = untrackTargets(urls);
  return html.replace(_ANCHOR, (anchor) => markUntrackedAnchor(anchor, targets));
}
