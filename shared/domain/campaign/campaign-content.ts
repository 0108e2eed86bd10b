import * as v from 'valibot';
import { type NewsletterError, newsletterError } from '../errors.ts';
import type { Settings } from '../settings-schema.ts';
import { footerOffset } from './campaign-footer.ts';
import { BASE_TAGS, findTags, isKnownTag, profileFieldOf, spacedTags } from './campaign-tags.ts';
import { deriveTextPart } from './derive-text-part.ts';
import { acceptsMarkupAt, misplacedTag } from './tag-placement.ts';

/** Longest subject, in characters. */
export const MAX_SUBJECT_LENGTH = 200;

/**
 * Most UTF-8 bytes the HTML and text parts may hold together ([campaign.content-size]). Both
 * live in one DynamoDB item, and an item holds at most 400 KB with its keys and attribute names:
 * 300 KiB leaves a quarter for those and for whatever the item gains later.
 */
export const MAX_CONTENT_BYTES = 300 * 1024;

/**
 * Gmail clips a message whose HTML is larger than 102 KB: the rest, the unsubscribe footer
 * included, hides behind "View entire message". Above it, saving warns.
 */
export const GMAIL_CLIP_BYTES = 102 * 1024;

/** Longest web version URL, in characters. */
export const MAX_WEB_URL_LENGTH = 2048;

/** An issue's content as stored: validated, the text part present. */
export interface CampaignContent {
  /** One line, the operator's words only: tags are refused in it. */
  readonly subject: string;
  readonly html: string;
  /** Given by the operator or derived from the HTML. */
  readonly text: string;
  /** Ids of lists in the settings, each once. */
  readonly lists: readonly number[];
  /** The issue's public web version, http(s). */
  readonly web_url?: string;
}

/** What `parseCampaignContent` accepts: the content, the text part optional. */
export type CampaignContentInput = Omit<CampaignContent, 'text'> & { readonly text?: string };

/** Saved content and what the operator should know about it. */
export interface ParsedCampaignContent {
  readonly content: CampaignContent;
  /** Sentences for the operator (Gmail clipping, `{ name }` with spaces, an empty text part). */
  readonly warnings: string[];
}

// Controls other than tab, line feed, form feed and carriage return, and the noncharacters the
// text part's derivation uses as markers (derive-text-part.ts).
const _BAD_CHARACTER = /(?![\t\n\f\r])[\p{Cc}\uFDD0-\uFDEF\uFFFE\uFFFF]/u;

const _ONE_LINE = /^[^\p{Cc}\u2028\u2029]*$/u;

// Half a surrogate pair: not text, and UTF-8 cannot encode it (String#isWellFormed is ES2024).
const _LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const _wellFormed = (text: string): boolean => !_LONE_SURROGATE.test(text);

const _part = (name: string) =>
  v.pipe(
    v.string(`${name} must be text`),
    v.check((part) => part.trim() !== '', `${name} must not be empty`),
    v.check(_wellFormed, `${name} must be valid Unicode text`),
    v.check(
      (part) => !_BAD_CHARACTER.test(part),
      `${name} must not contain control characters other than tabs and line breaks`,
    ),
  );

const _LIST_IDS = 'lists must be an array of list ids';

/** The shape of saved content; the settings-dependent rules follow in `parseCampaignContent`. */
export const CampaignContentSchema = v.strictObject(
  {
    subject: v.pipe(
      v.string('subject must be text'),
      v.trim(),
      v.minLength(1, 'subject is required'),
      v.maxLength(MAX_SUBJECT_LENGTH, `subject must be at most ${MAX_SUBJECT_LENGTH} characters`),
      v.regex(_ONE_LINE, 'subject must be one line without control characters'),
      v.check(_wellFormed, 'subject must be valid Unicode text'),
    ),
    html: _part('html'),
    text: v.optional(_part('text')),
    lists: v.pipe(
      v.array(
        v.pipe(v.number(_LIST_IDS), v.integer(_LIST_IDS), v.minValue(1, _LIST_IDS)),
        _LIST_IDS,
      ),
      v.minLength(1, 'lists: name at least one list the issue goes to'),
    ),
    web_url: v.optional(
      v.pipe(
        v.string('web_url must be text'),
        v.maxLength(
          MAX_WEB_URL_LENGTH,
          `web_url must be at most ${MAX_WEB_URL_LENGTH.toLocaleString('en')} characters`,
        ),
        v.url('web_url must be an absolute http(s) URL'),
        v.regex(/^https?:\/\/[^\s\p{Cc}]+$/iu, 'web_url must be an absolute http(s) URL'),
      ),
    ),
  },
  'the content must be an object with subject, html, lists and optionally text and web_url',
);

const _bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const _kilobytes = (bytes: number): string => `${Math.ceil(bytes / 1024)} KB`;

/**
 * Validates an issue's content as an operator saves it ([campaign.content]), so nothing is found
 * wrong when the first mail goes out:
 * - `subject`: one line of 1–200 characters (trimmed), no control characters, and no tags: a
 *   subject is a header, and headers never carry a subscriber's values
 *   ([campaign.subject-no-tags], as [mail.subject-operator-only]);
 * - `html`, and `text` when given: not blank, no control characters but tabs and line breaks;
 *   without `text`, it is derived from the HTML ([campaign.text-part]);
 * - `lists`: ids of lists in the settings, at least one, each once;
 * - `web_url`: an absolute http(s) URL, when given;
 * - every tag known ([campaign.tags]; `unknown_tag`), every tag of the HTML where a value cannot
 *   change the markup ([campaign.tag-placement]), and the point where the footer goes in the
 *   document's flow;
 * - both parts together at most MAX_CONTENT_BYTES (`content_too_large`,
 *   [campaign.content-size]); an HTML part above GMAIL_CLIP_BYTES is a warning.
 *
 * @returns the content with the text part filled in and the warnings, or the first error found,
 *   its message naming the parameter first.
 */
export function parseCampaignContent(
  input: unknown,
  settings: Pick<Settings, 'lists' | 'profile_fields'>,
): ParsedCampaignContent | NewsletterError {
  const parsed = v.safeParse(CampaignContentSchema, input);
  if (!parsed.success) return _schemaError(parsed.issues);
  const { subject, html, lists, web_url } = parsed.output;

  const fieldError = _checkLists(lists, settings) ?? _checkSubjectTags(subject);
  if (fieldError) return fieldError;

  const given = parsed.output.text;
  const sizeError = _checkSize(html, given);
  if (sizeError) return sizeError;
  const text = given ?? deriveTextPart(html);
  const derivedSizeError = given === undefined ? _checkSize(html, text, true) : undefined;
  if (derivedSizeError) return derivedSizeError;

  const profileIds = settings.profile_fields.map((field) => field.id);
  const tagError =
    _checkTags('html', html, profileIds) ??
    _checkTags(given === undefined ? 'text (derived from the HTML)' : 'text', text, profileIds);
  if (tagError) return tagError;

  const misplaced = misplacedTag(html);
  if (misplaced)
    return newsletterError(
      'invalid_parameter',
      `html: the tag {${misplaced.name}} stands ${misplaced.where}, where a subscriber's value could change the HTML or show escaped; put tags in text or in a quoted attribute value`,
    );
  if (!acceptsMarkupAt(html, footerOffset(html)))
    return newsletterError(
      'invalid_parameter',
      'html: the HTML ends inside a comment, a tag or an unclosed <style>, <script> or similar element, which would hide the unsubscribe footer; close it',
    );

  return {
    content: { subject, html, text, lists, ...(web_url !== undefined ? { web_url } : {}) },
    warnings: _warnings(html, text, given === undefined, profileIds),
  };
}

/** The fields an issue may carry while it has no content yet, each optional. */
const IssueFieldsSchema = v.partial(v.pick(CampaignContentSchema, ['subject', 'lists', 'web_url']));

/** An issue's fields as saved without content: those given, validated. */
export type IssueFields = v.InferOutput<typeof IssueFieldsSchema>;

/**
 * Validates the fields an issue is saved with when no content comes with them (a draft created
 * or renamed before it has parts, a web URL set on a sent issue) by the rules of
 * `parseCampaignContent`, each field when given: so a draft holds no subject a send would
 * refuse, and the web URL the keyless listing shows is always an http(s) URL.
 */
export function parseIssueFields(
  input: unknown,
  settings: Pick<Settings, 'lists'>,
): IssueFields | NewsletterError {
  const parsed = v.safeParse(IssueFieldsSchema, input);
  if (!parsed.success) return _schemaError(parsed.issues);
  const { subject, lists } = parsed.output;
  const fieldError =
    (lists === undefined ? undefined : _checkLists(lists, settings)) ??
    (subject === undefined ? undefined : _checkSubjectTags(subject));
  return fieldError ?? parsed.output;
}

/** The first problem valibot found, as the error a caller gets: the parameter named first. */
function _schemaError(issues: readonly v.BaseIssue<unknown>[]): NewsletterError {
  const issue = issues[0];
  const key = issue?.path?.[0]?.key;
  const message =
    issue === undefined
      ? 'the content is not valid'
      : issue.kind === 'schema' && issue.type === 'strict_object' && typeof key === 'string'
        ? `${key} is not a content field`
        : issue.message;
  return newsletterError('invalid_parameter', message);
}

function _checkSubjectTags(subject: string): NewsletterError | undefined {
  const tag = findTags(subject)[0];
  if (tag === undefined) return undefined;
  return newsletterError(
    'invalid_parameter',
    `subject: {${tag.name}} is a tag, and tags are not allowed in the subject: a subject is a header, and headers never carry a subscriber's values`,
  );
}

function _checkLists(
  lists: readonly number[],
  settings: Pick<Settings, 'lists'>,
): NewsletterError | undefined {
  const known = new Set(settings.lists.map((list) => list.id));
  const unknown = lists.find((id) => !known.has(id));
  if (unknown !== undefined)
    return newsletterError('unknown_list', `lists: list ${unknown} does not exist`);
  const twice = lists.find((id, index) => lists.indexOf(id) !== index);
  if (twice !== undefined)
    return newsletterError('invalid_parameter', `lists: list ${twice} is named more than once`);
  return undefined;
}

function _checkSize(html: string, text?: string, derived = false): NewsletterError | undefined {
  const htmlBytes = _bytes(html);
  const total = htmlBytes + (text === undefined ? 0 : _bytes(text));
  if (total <= MAX_CONTENT_BYTES) return undefined;
  const parts =
    text === undefined
      ? `html is ${_kilobytes(htmlBytes)}`
      : `html and text${derived ? ' (derived from the HTML)' : ''} are ${_kilobytes(total)} together`;
  return newsletterError(
    'content_too_large',
    `${parts}; an issue's HTML and text parts may hold ${_kilobytes(MAX_CONTENT_BYTES)} together (UTF-8), as they are stored in one database item`,
  );
}

function _checkTags(
  part: string,
  body: string,
  profileIds: readonly string[],
): NewsletterError | undefined {
  const unknown = findTags(body).find((tag) => !isKnownTag(tag.name, profileIds));
  if (unknown === undefined) return undefined;
  const field = profileFieldOf(unknown.name);
  const fields =
    profileIds.length === 0
      ? 'the settings define no profile fields'
      : `the profile fields are ${profileIds.join(', ')}`;
  return newsletterError(
    'unknown_tag',
    field === undefined
      ? `${part}: {${unknown.name}} is not a tag; the tags are ${BASE_TAGS.map((tag) => `{${tag}}`).join(', ')} and {profile_<id>} for a profile field of the settings`
      : `${part}: {${unknown.name}} names no profile field of the settings (${fields})`,
  );
}

function _warnings(
  html: string,
  text: string,
  derived: boolean,
  profileIds: readonly string[],
): string[] {
  const warnings: string[] = [];
  const htmlBytes = _bytes(html);
  if (htmlBytes > GMAIL_CLIP_BYTES)
    warnings.push(
      `html is ${_kilobytes(htmlBytes)}: Gmail clips messages above 102 KB and hides the rest, the unsubscribe footer included, behind "View entire message".`,
    );
  // A derived text part repeats the HTML's words: its warnings would say the same twice.
  const parts = derived
    ? [['html', html] as const]
    : ([
        ['html', html],
        ['text', text],
      ] as const);
  for (const [part, body] of parts) {
    for (const spaced of spacedTags(body, profileIds))
      warnings.push(
        `${part}: ${spaced} has spaces inside its braces, so it is not a tag and goes out as written.`,
      );
  }
  if (derived && text.trim() === '')
    warnings.push(
      'text: the HTML has no text, so the text part derived from it holds only the footer; give a text part.',
    );
  return warnings;
}
