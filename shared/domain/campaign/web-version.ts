import { escapeHtml } from '../escape-html.ts';
import { webVersionPath } from '../links.ts';
import { isPublicIssue, type NewsletterIssueRecord } from '../newsletter-issue.ts';
import { type CampaignRecipientValues, fillTags, type TagFallbacks } from './render-campaign.ts';

/**
 * The values the web version renders tags with: nobody's. `{name}`, `{surname}`, `{email}` and
 * every `{profile_<id>}` render as an empty value does in a mail ([campaign.empty-values]): as
 * the settings' fallback for that tag, or as nothing, so the page reads as the mail to a person
 * who gave no details.
 */
export const NO_RECIPIENT: CampaignRecipientValues = Object.freeze({
  email: '',
  name: '',
  surname: '',
  profile: Object.freeze({}),
});

// A whole document: the HTML starts (after white space and comments) with a doctype or `<html>`.
const _WHOLE_DOCUMENT = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html)[\s>]/i;

/**
 * Whether keyless callers may read an issue's web version ([campaign.web-version]): the same rule
 * as the keyless listing, sent and not private, so the page and the listing never disagree.
 */
export function hasWebVersion(issue: NewsletterIssueRecord): boolean {
  return isPublicIssue(issue);
}

/**
 * The "view in your browser" link a campaign mail carries ([campaign.web-version-link]): the
 * operator's own page when the issue names one (`url`), else the API's web version unless the
 * issue is private (that page would be a 404 for everyone). `linkBase` is the `{api_root}` the
 * mail's other links use.
 */
export function webVersionUrlOf(
  issue: Pick<NewsletterIssueRecord, 'id' | 'private' | 'url'>,
  linkBase: string,
): string | undefined {
  if (issue.url) return issue.url;
  if (issue.private || !linkBase) return undefined;
  return `${linkBase.replace(/\/+$/, '')}${webVersionPath(issue.id)}`;
}

/**
 * The web version of an issue as one HTML document ([campaign.web-version]): its HTML part with
 * every tag filled by the campaign renderer's rules for nobody (NO_RECIPIENT, so each renders
 * as its fallback in `fallbacks`, the settings' `campaign.tag_fallbacks`, or empty), and
 * `{unsubscription_url}` pointing to `unsubscribePage`, the unsubscribe page without a token,
 * which tells a reader to use the link of their own mail. No footer: the page is the link the
 * footer would add, and it holds nobody's unsubscribe link. A whole document is served as it is;
 * a fragment gets a minimal document around it: the subject as its title, a language, and the
 * content as its main landmark.
 */
export function renderWebVersion(
  issue: { readonly subject: string },
  content: { readonly html: string },
  unsubscribePage: string,
  fallbacks: TagFallbacks = {},
): string {
  const filled = fillTags(
    { subject: issue.subject, html: content.html, text: '' },
    NO_RECIPIENT,
    unsubscribePage,
    fallbacks,
  );
  if (_WHOLE_DOCUMENT.test(filled.html)) return filled.html;
  // A language and a main landmark, as every page of ours has (axe-core's html-has-lang,
  // landmark-one-main and region); `en` because the settings carry no language.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(filled.subject)}</title>
</head>
<body>
<main>
${filled.html}
</main>
</body>
</html>
`;
}
