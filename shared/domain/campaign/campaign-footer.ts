import { escapeHtml } from '../escape-html.ts';

/**
 * The footer a campaign mail gets when its content lacks a link it must carry
 * ([campaign.unsubscribe-footer]): the unsubscribe link when a part has no
 * `{unsubscription_url}`, and the web version's link when the issue has one. Its words are
 * English, as the subscription mails' defaults are: content in another language puts
 * `{unsubscription_url}` where it wants it, and then no unsubscribe line is added.
 */
export interface FooterLinks {
  /** Absent when the part carries `{unsubscription_url}` itself. */
  readonly unsubscribeUrl?: string;
  readonly webVersionUrl?: string;
}

const _BODY_END = /<\/body[\t\n\f\r />]/gi;

const _STYLE = 'margin:24px 0 0 0;font-size:12px;line-height:1.5;color:#6b7280;text-align:center';

/**
 * Where the HTML footer goes: before the last `</body>` when the HTML is a whole document,
 * else at the end. Content is checked when saved so that this point is in the document's flow
 * (not inside a comment, a tag or an unclosed `<style>`).
 */
export function footerOffset(html: string): number {
  let offset = html.length;
  for (const match of html.matchAll(_BODY_END)) offset = match.index;
  return offset;
}

/**
 * The HTML footer for `links`, a paragraph on a line of its own; empty when there is nothing to
 * add. Its links carry `ses:no-track`: SES never rewrites them ([engagement.no-track]).
 */
export function htmlFooter(links: FooterLinks): string {
  const lines: string[] = [];
  if (links.webVersionUrl !== undefined) {
    lines.push(
      `<a href="${escapeHtml(links.webVersionUrl)}" style="color:#6b7280" ses:no-track>View this newsletter in your browser</a>`,
    );
  }
  if (links.unsubscribeUrl !== undefined) {
    lines.push(
      `<a href="${escapeHtml(links.unsubscribeUrl)}" style="color:#6b7280" ses:no-track>Unsubscribe</a>`,
    );
  }
  return lines.length === 0 ? '' : `<p style="${_STYLE}">${lines.join('<br>\n')}</p>\n`;
}

/**
 * What goes between the HTML before the footer and the footer: a line break, unless that HTML
 * is empty or ends with one.
 */
export function htmlFooterSeparator(before: string): string {
  return before === '' || before.endsWith('\n') ? '' : '\n';
}

/** The HTML part with the footer added (htmlFooter, at footerOffset); unchanged when it is empty. */
export function withHtmlFooter(html: string, links: FooterLinks): string {
  const footer = htmlFooter(links);
  if (footer === '') return html;
  const offset = footerOffset(html);
  const before = html.slice(0, offset);
  return `${before}${htmlFooterSeparator(before)}${footer}${html.slice(offset)}`;
}

/** The text footer's lines for `links`, each ending with a line break; empty when none. */
export function textFooter(links: FooterLinks): string {
  const lines: string[] = [];
  if (links.webVersionUrl !== undefined) {
    lines.push(`View this newsletter in your browser: ${links.webVersionUrl}`);
  }
  if (links.unsubscribeUrl !== undefined) lines.push(`Unsubscribe: ${links.unsubscribeUrl}`);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The text part with the footer added after a blank line; unchanged when there is nothing to add. */
export function withTextFooter(text: string, links: FooterLinks): string {
  const footer = textFooter(links);
  if (footer === '') return text;
  const body = text.trimEnd();
  return `${body}${body === '' ? '' : '\n\n'}${footer}`;
}
