import { markUntracked } from '../engagement/no-track.ts';
import { escapeHtml } from '../escape-html.ts';
import { withHtmlFooter, withTextFooter } from './campaign-footer.ts';
import { hasTag, profileFieldOf, replaceTags } from './campaign-tags.ts';

/** An issue's parts as stored (tags included), or one recipient's mail rendered from them. */
export interface CampaignParts {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

/** What a mail may say about its recipient: all of it user-supplied, none of it trusted. */
export interface CampaignRecipientValues {
  readonly email: string;
  readonly name: string;
  readonly surname: string;
  /** Profile field values by field id. */
  readonly profile: Readonly<Record<string, string>>;
}

/**
 * What a tag renders as when its value is empty, by tag name (`name`, `surname`, `email`,
 * `profile_<id>`): the settings' `campaign.tag_fallbacks`, validated when they load.
 */
export type TagFallbacks = Readonly<Record<string, string>>;

/** The links a campaign mail carries: absolute http(s) URLs the engine built. */
export interface CampaignLinks {
  readonly unsubscribeUrl: string;
  /** The public web version, when it has one (issue 22); empty counts as none. */
  readonly webVersionUrl?: string;
}

// C0 and C1 controls (CR, LF, NEL, …) and the Unicode line and paragraph separators: a value
// must not start a line of its own.
const _LINE_BREAKING = /[\p{Cc}\u2028\u2029]+/gu;

// Bidirectional embeddings, overrides and isolates: a value must not reorder the text after it.
const _BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * Renders one recipient's mail from an issue's stored parts ([campaign.render]), a pure function.
 *
 * - One pass over each part replaces every tag (campaign-tags.ts) by its value, so a value that
 *   looks like a tag, or holds braces, stays text; nothing else of the parts changes.
 * - Values are cleaned first: control characters and line separators become a space, bidi
 *   controls are dropped, the ends trimmed. So in the text part a value cannot add a line, and
 *   in the HTML part it is then escaped (`& < > " '`), as text and in quoted attribute values
 *   alike; content is saved only with tags where escaping holds ([campaign.tag-placement]).
 * - An empty value (no name, a profile field left empty or removed from the settings since the
 *   issue was saved, empty once cleaned) renders as the tag's fallback of the settings when
 *   there is one, else as nothing ([campaign.empty-values]): no built-in word, because the
 *   content's language is the operator's ("Hello {name}," becomes "Hello reader," with the
 *   fallback `reader`, "Hello ," without). A fallback is filled in as a value is: cleaned,
 *   escaped in HTML, never scanned again for tags.
 * - A tag name that is neither a base tag nor `profile_<id>` stays as written (saving refuses
 *   such content; this only keeps older content visible as it was).
 * - The subject is the operator's alone: tags are refused in it when saved, and here only
 *   control characters become spaces and runs of white space one space.
 * - The unsubscribe and web-version links in the HTML carry `ses:no-track`
 *   ([engagement.no-track]): SES never rewrites them.
 * - A part without `{unsubscription_url}` gets a footer with the unsubscribe link, and both parts
 *   a "view in your browser" link when `webVersionUrl` is given ([campaign.unsubscribe-footer]):
 *   every campaign mail carries an unsubscribe link.
 *
 * @throws Error when a link is not an absolute http(s) URL: the engine built it, so it is a bug.
 */
export function renderCampaign(
  content: CampaignParts,
  recipient: CampaignRecipientValues,
  links: CampaignLinks,
  fallbacks: TagFallbacks = {},
): CampaignParts {
  const unsubscribeUrl = httpLink(links.unsubscribeUrl, 'unsubscribe link');
  const webVersionUrl = links.webVersionUrl
    ? httpLink(links.webVersionUrl, 'web version link')
    : undefined;
  const footer = (part: string) => ({
    ...(hasTag(part, 'unsubscription_url') ? {} : { unsubscribeUrl }),
    ...(webVersionUrl !== undefined ? { webVersionUrl } : {}),
  });
  const filled = fillTags(content, recipient, unsubscribeUrl, fallbacks);
  const untracked = [unsubscribeUrl, ...(webVersionUrl !== undefined ? [webVersionUrl] : [])];
  return {
    subject: filled.subject,
    html: markUntracked(withHtmlFooter(filled.html, footer(content.html)), untracked),
    text: withTextFooter(filled.text, footer(content.text)),
  };
}

/**
 * The parts with every tag filled and the subject made one line, without any footer: the rules
 * of renderCampaign above, shared with the web version (web-version.ts), which has no footer.
 * `unsubscribeUrl` is taken as given: the caller checks it.
 */
export function fillTags(
  content: CampaignParts,
  recipient: CampaignRecipientValues,
  unsubscribeUrl: string,
  fallbacks: TagFallbacks = {},
): CampaignParts {
  const value = tagValues(recipient, unsubscribeUrl, fallbacks);
  return {
    subject: oneLineSubject(content.subject),
    html: replaceTags(content.html, (name, tag) => {
      const filled = value(name);
      return filled === undefined ? tag : escapeHtml(filled);
    }),
    text: replaceTags(content.text, (name, tag) => value(name) ?? tag),
  };
}

/**
 * What each tag name renders as for one recipient, before any escaping (renderCampaign's
 * rules): the cleaned value, else the cleaned fallback, else empty; undefined for a name that
 * is no tag (it stays as written).
 */
export function tagValues(
  recipient: CampaignRecipientValues,
  unsubscribeUrl: string,
  fallbacks: TagFallbacks,
): (name: string) => string | undefined {
  const ownValue = (name: string): string | undefined => {
    switch (name) {
      case 'name':
        return _clean(recipient.name);
      case 'surname':
        return _clean(recipient.surname);
      case 'email':
        return _clean(recipient.email);
      case 'unsubscription_url':
        return unsubscribeUrl;
      default: {
        const field = profileFieldOf(name);
        if (field === undefined) return undefined;
        // Own properties only: `{profile_constructor}` must not reach Object.prototype.
        const stored = Object.hasOwn(recipient.profile, field) ? recipient.profile[field] : '';
        return typeof stored === 'string' ? _clean(stored) : '';
      }
    }
  };
  return (name: string): string | undefined => {
    const filled = ownValue(name);
    if (filled !== '') return filled;
    // Own properties only, as for profile fields above.
    const fallback = Object.hasOwn(fallbacks, name) ? fallbacks[name] : undefined;
    return typeof fallback === 'string' ? _clean(fallback) : filled;
  };
}

/** The subject as sent: control characters and runs of white space one space, the ends trimmed. */
export function oneLineSubject(subject: string): string {
  return subject.replace(_LINE_BREAKING, ' ').replace(/\s+/g, ' ').trim();
}

function _clean(value: string): string {
  return value.replace(_BIDI_CONTROL, '').replace(_LINE_BREAKING, ' ').trim();
}

/**
 * A link the engine built, as it goes into a mail: its serialised form (spaces, quotes and
 * angle brackets percent-encoded).
 *
 * @throws Error when it is not an absolute http(s) URL: a bug, since the engine built it.
 */
export function httpLink(url: string, role: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`The ${role} must be an http(s) URL, got scheme ${parsed.protocol}`);
  }
  return parsed.href;
}
