import { convert } from 'html-to-text';
import * as v from 'valibot';
import { type NewsletterError, newsletterError } from '../errors.ts';
import type { Settings } from '../settings-schema.ts';
import { isKnownTag, tagNames } from './campaign-tags.ts';

/**
 * Largest HTML part and largest text part (UTF-8 bytes): both together, with the item's keys
 * and attribute names, stay below DynamoDB's 400 KB item limit.
 */
export const MAX_HTML_BYTES = 192 * 1024;
export const MAX_TEXT_BYTES = 192 * 1024;
/** Gmail clips messages whose HTML is larger than this ("[Message clipped]"). */
export const GMAIL_CLIP_BYTES = 102 * 1024;

/** What an operator saves as an issue's content. */
export interface CampaignContentInput {
  readonly subject: string;
  readonly html: string;
  /** Derived from the HTML when absent. */
  readonly text?: string;
  readonly lists: readonly number[];
  /** The issue's public web version. */
  readonly web_url?: string;
}

/** Content as stored: validated, the text part present. */
export interface CampaignContent {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly lists: readonly number[];
  readonly web_url?: string;
}

const ContentSchema = v.object({
  subject: v.pipe(
    v.string('subject must be text'),
    v.trim(),
    v.minLength(1, 'subject is required'),
    v.maxLength(200, 'subject must be at most 200 characters'),
    v.regex(/^[^\p{Cc}\u2028\u2029]*$/u, 'subject must be one line without control characters'),
  ),
  html: v.pipe(v.string('html must be text'), v.minLength(1, 'html must not be empty')),
  text: v.optional(v.pipe(v.string('text must be text'), v.minLength(1, 'text must not be empty'))),
  lists: v.pipe(
    v.array(v.pipe(v.number(), v.integer(), v.minValue(1)), 'lists must be list ids'),
    v.minLength(1, 'lists: name at least one list it goes to'),
  ),
  web_url: v.optional(
    v.pipe(
      v.string(),
      v.url('web_url must be an absolute URL'),
      v.regex(/^https?:\/\//, 'web_url must be http(s)'),
      v.maxLength(2048, 'web_url must be at most 2,048 characters'),
    ),
  ),
});

/** Headings keep their case: html-to-text would upper-case `{name}` with them. */
const KEEP_CASE = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  options: { uppercase: false },
}));

/** The text part of an HTML part, by html-to-text ([campaign.text-part]); tags stay tags. */
export function textOf(html: string): string {
  return convert(html, {
    wordwrap: 78,
    selectors: [
      ...KEEP_CASE,
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
    ],
  });
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Validates an issue's content as an operator saves it ([campaign.content]): a one-line
 * subject, an HTML part, the text part (derived from the HTML with html-to-text when not
 * given), the lists it goes to (ids of the settings, each once) and an optional web URL.
 * Unknown tags are refused now, not when the first mail goes out; tags in the subject are
 * refused too (a subject is a header and never carries a subscriber's value). Parts over the
 * size limits are refused; an HTML part that Gmail will clip is a warning.
 */
export function parseCampaignContent(
  input: CampaignContentInput,
  settings: Settings,
): { readonly content: CampaignContent; readonly warnings: string[] } | NewsletterError {
  const parsed = v.safeParse(ContentSchema, input);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    return newsletterError('invalid_parameter', issue?.message ?? 'the content is not valid');
  }
  const { subject, html, lists } = parsed.output;
  const known = new Set(settings.lists.map((list) => list.id));
  const unknownList = lists.find((id) => !known.has(id));
  if (unknownList !== undefined)
    return newsletterError('unknown_list', `lists: list ${unknownList} does not exist`);
  if (new Set(lists).size !== lists.length)
    return newsletterError('invalid_parameter', 'lists: each list may be named once');
  if (tagNames(subject).length > 0)
    return newsletterError(
      'invalid_parameter',
      `subject: tags such as {${tagNames(subject)[0]}} are not allowed in the subject: a header never carries a subscriber's value`,
    );
  if (bytes(html) > MAX_HTML_BYTES)
    return newsletterError(
      'content_too_large',
      `html is ${bytes(html)} bytes; the limit is ${MAX_HTML_BYTES} bytes (192 KiB)`,
    );
  const text = parsed.output.text ?? textOf(html);
  if (bytes(text) > MAX_TEXT_BYTES)
    return newsletterError(
      'content_too_large',
      `text is ${bytes(text)} bytes; the limit is ${MAX_TEXT_BYTES} bytes (192 KiB)`,
    );
  const profileIds = settings.profile_fields.map((field) => field.id);
  for (const [part, body] of [
    ['html', html],
    ['text', text],
  ] as const) {
    const unknown = tagNames(body).find((name) => !isKnownTag(name, profileIds));
    if (unknown !== undefined)
      return newsletterError(
        'unknown_tag',
        `${part}: {${unknown}} is not a tag; use {name}, {surname}, {email}, {unsubscription_url} or {profile_<id>} of a profile field in the settings`,
      );
  }
  const warnings =
    bytes(html) > GMAIL_CLIP_BYTES
      ? [
          `The HTML part is ${Math.round(bytes(html) / 1024)} KB: Gmail clips messages above 102 KB and hides the rest, unsubscribe link included, behind "View entire message".`,
        ]
      : [];
  return {
    content: {
      subject,
      html,
      text,
      lists,
      ...(parsed.output.web_url ? { web_url: parsed.output.web_url } : {}),
    },
    warnings,
  };
}
