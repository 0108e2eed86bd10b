import { escapeHtml } from '../escape-html.ts';
import { PROFILE_TAG_PREFIX, TAG } from './campaign-tags.ts';

/** The parts of an issue as stored: what the operator wrote, tags included. */
export interface CampaignParts {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

/** What a mail may say about its recipient; all of it user-supplied, none of it trusted. */
export interface CampaignRecipientValues {
  readonly email: string;
  readonly name: string;
  readonly surname: string;
  readonly profile: Readonly<Record<string, string>>;
}

/** The links a campaign mail carries. */
export interface CampaignLinks {
  readonly unsubscribeUrl: string;
  /** The public web version, when it has one. */
  readonly webVersionUrl?: string;
}

// C0/C1 controls and the Unicode line separators: a value must not start a line of its own.
const CONTROL = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * Renders one recipient's mail from the stored parts ([campaign.tags], [campaign.render]): one
 * pure pass over each part replacing every known tag by its value, so a value that itself looks
 * like a tag stays text; in the HTML part every value is HTML-escaped (text and attributes
 * alike: `&`, `<`, `>`, `"` and `'`), in the text part control characters and line separators
 * become spaces. An unknown tag (the content was validated when saved, so only a profile field
 * removed from the settings since) and a profile field the subscriber left empty become empty,
 * as an empty name does: the original's behaviour. The subject is the operator's alone (a
 * header never carries a value; tags are refused in it when saved). When the content has no
 * `{unsubscription_url}`, a footer with the link is added to both parts: every campaign mail
 * carries one.
 */
export function renderCampaign(
  parts: CampaignParts,
  recipient: CampaignRecipientValues,
  links: CampaignLinks,
): CampaignParts {
  const value = (name: string): string => {
    switch (name) {
      case 'name':
        return recipient.name;
      case 'surname':
        return recipient.surname;
      case 'email':
        return recipient.email;
      case 'unsubscription_url':
        return links.unsubscribeUrl;
      default:
        return name.startsWith(PROFILE_TAG_PREFIX)
          ? (recipient.profile[name.slice(PROFILE_TAG_PREFIX.length)] ?? '')
          : '';
    }
  };
  const hasLink = (part: string): boolean =>
    [...part.matchAll(TAG)].some((match) => match[1] === 'unsubscription_url');
  const html = parts.html.replace(TAG, (_tag, name: string) => escapeHtml(value(name)));
  const text = parts.text.replace(TAG, (_tag, name: string) => value(name).replace(CONTROL, ' '));
  return {
    subject: parts.subject.replace(CONTROL, ' ').trim(),
    html: hasLink(parts.html) ? html : withHtmlFooter(html, links.unsubscribeUrl),
    text: hasLink(parts.text)
      ? text
      : `${text.trimEnd()}\n\nUnsubscribe: ${links.unsubscribeUrl}\n`,
  };
}

/** The unsubscribe footer, inside the body when the HTML is a whole document. */
function withHtmlFooter(html: string, url: string): string {
  const link = escapeHtml(url);
  const footer = `<p style="font-size:12px;color:#6b7280">Unsubscribe: <a href="${link}">${link}</a></p>`;
  const close = html.search(/<\/body\s*>/i);
  return close === -1
    ? `${html}\n${footer}\n`
    : `${html.slice(0, close)}${footer}\n${html.slice(close)}`;
}
