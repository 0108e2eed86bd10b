import {
  findAnchors,
  markUntrackedAnchor,
  untrackableHref,
  untrackTargets,
} from '../engagement/no-track.ts';
import { escapeHtml } from '../escape-html.ts';
import {
  type FooterLinks,
  footerOffset,
  htmlFooter,
  htmlFooterSeparator,
  textFooter,
} from './campaign-footer.ts';
import { BASE_TAGS, findTags, hasTag, profileFieldOf, replaceTags } from './campaign-tags.ts';
import {
  type CampaignParts,
  type CampaignRecipientValues,
  httpLink,
  oneLineSubject,
  renderCampaign,
  type TagFallbacks,
  tagValues,
} from './render-campaign.ts';

/** A part cut where recipients differ: `fixed` pieces around `values`, one more fixed than values. */
export interface PartPieces {
  readonly fixed: readonly string[];
  readonly values: readonly string[];
}

/** One recipient's mail, and the same parts cut where recipients differ. */
export interface RenderedCampaign extends CampaignParts {
  /**
   * `fixed` arrays belong to the prepared campaign and are the same objects for every recipient
   * (one of two for the text part), so what depends on them alone is done once (its encoding).
   */
  readonly pieces: { readonly html: PartPieces; readonly text: PartPieces };
}

/** An issue's parts compiled once, for many recipients. */
export interface PreparedCampaign {
  /** The subject as sent: the same for every recipient. */
  readonly subject: string;
  /**
   * One recipient's mail: exactly what renderCampaign makes of the same content, links and
   * fallbacks. @throws Error when `unsubscribeUrl` is not an absolute http(s) URL.
   */
  render(recipient: CampaignRecipientValues, unsubscribeUrl: string): RenderedCampaign;
}

type _Slot =
  | { readonly kind: 'tag'; readonly name: string }
  /** An `<a>` start tag holding tags: whether it gets `ses:no-track` depends on the values. */
  | { readonly kind: 'anchor'; readonly text: string }
  | { readonly kind: 'footer' };

interface _Part {
  readonly fixed: string[];
  readonly slots: _Slot[];
}

/**
 * The text part with a footer: the pieces up to the last fixed one that is not blank, then one
 * slot for everything after it (values and blank pieces, trimmed at the end as the footer needs)
 * and the footer. `trimmedFixed` is `fixed` with that last piece trimmed, for a recipient whose
 * values after it are blank too.
 */
interface _TextWithFooter extends _Part {
  readonly trimmedFixed: string[];
  readonly tail: _Part;
  /** Whether a piece that is not blank comes before the tail. */
  readonly bodyBefore: boolean;
}

// Where a value would join the markup around it (`<` + "a" opens an anchor, `</bod` + "y>" ends
// the body): those places are never filled ahead, the content is rendered per recipient.
const _JOINS_MARKUP = /<(?:a|\/(?:b(?:o(?:d(?:y)?)?)?)?)?$/i;

const _PROBE_LINK = 'https://probe.invalid/';

/** Both parts of a recipient whose render does not use the prepared pieces. */
const _WHOLE: readonly string[] = Object.freeze(['', '']);

/** Whether a tag name is filled from the recipient (the rest stay as written). */
function _fills(name: string): boolean {
  return (BASE_TAGS as readonly string[]).includes(name) || profileFieldOf(name) !== undefined;
}

/**
 * Compiles an issue's parts for many recipients ([campaign.render]): what is the same for
 * everyone (the text between tags, the anchors without tags and whether each gets
 * `ses:no-track`, where the footer goes, the subject) is worked out once; a recipient's render
 * only fills in their values, their unsubscribe link and the anchors that hold tags. The output
 * is renderCampaign's for the same arguments, byte for byte; content where a value could join
 * the markup around it (which saving refuses) is rendered per recipient by renderCampaign
 * itself, and so is a mail whose unsubscribe link equals an href the HTML holds as written.
 *
 * @throws Error when `links.webVersionUrl` is given and is not an absolute http(s) URL.
 */
export function prepareCampaign(
  content: CampaignParts,
  links: { readonly webVersionUrl?: string } = {},
  fallbacks: TagFallbacks = {},
): PreparedCampaign {
  const webVersionUrl = links.webVersionUrl
    ? httpLink(links.webVersionUrl, 'web version link')
    : undefined;
  const web = webVersionUrl !== undefined ? { webVersionUrl } : {};
  const footerUnsubscribesHtml = !hasTag(content.html, 'unsubscription_url');
  const footerUnsubscribesText = !hasTag(content.text, 'unsubscription_url');
  const footerLinks = (inFooter: boolean, unsubscribeUrl: string): FooterLinks => ({
    ...(inFooter ? { unsubscribeUrl } : {}),
    ...web,
  });
  const html = _compileHtml(
    content.html,
    footerUnsubscribesHtml || webVersionUrl !== undefined
      ? htmlFooter(footerLinks(footerUnsubscribesHtml, _PROBE_LINK))
      : undefined,
    untrackTargets(webVersionUrl !== undefined ? [webVersionUrl] : []),
  );
  const text = _compileText(content.text, footerUnsubscribesText || webVersionUrl !== undefined);
  const subject = oneLineSubject(content.subject);

  const whole = (recipient: CampaignRecipientValues, unsubscribeUrl: string): RenderedCampaign => {
    const parts = renderCampaign(content, recipient, { unsubscribeUrl, ...web }, fallbacks);
    return {
      ...parts,
      pieces: {
        html: { fixed: _WHOLE, values: [parts.html] },
        text: { fixed: _WHOLE, values: [parts.text] },
      },
    };
  };

  return {
    subject,
    render(recipient, link) {
      const unsubscribeUrl = httpLink(link, 'unsubscribe link');
      if (
        html === undefined ||
        html.asWritten.has(unsubscribeUrl) ||
        html.asWritten.has(escapeHtml(unsubscribeUrl))
      )
        return whole(recipient, unsubscribeUrl);
      const value = _memo(tagValues(recipient, unsubscribeUrl, fallbacks));
      const escaped = _memo((name: string) => escapeHtml(value(name) ?? ''));
      const targets = untrackTargets([
        unsubscribeUrl,
        ...(webVersionUrl !== undefined ? [webVersionUrl] : []),
      ]);
      const htmlValues: string[] = [];
      for (const slot of html.slots) {
        if (slot.kind === 'tag') htmlValues.push(escaped(slot.name));
        else if (slot.kind === 'anchor')
          htmlValues.push(
            markUntrackedAnchor(
              replaceTags(slot.text, (name, tag) => (_fills(name) ? escaped(name) : tag)),
              targets,
            ),
          );
        else
          htmlValues.push(
            htmlFooterSeparator(_lastWritten(html.fixed, htmlValues)) +
              htmlFooter(footerLinks(footerUnsubscribesHtml, unsubscribeUrl)),
          );
      }
      const textPieces = _renderText(
        text,
        (name) => value(name) ?? '',
        textFooter(footerLinks(footerUnsubscribesText, unsubscribeUrl)),
      );
      return {
        subject,
        html: _join(html.fixed, htmlValues),
        text: _join(textPieces.fixed, textPieces.values),
        pieces: { html: { fixed: html.fixed, values: htmlValues }, text: textPieces },
      };
    },
  };
}

/** Cuts a part at its tags (those filled from the recipient; others stay as written). */
function _cutAtTags(part: string): _Part {
  const fixed: string[] = [];
  const slots: _Slot[] = [];
  let at = 0;
  for (const tag of findTags(part)) {
    if (!_fills(tag.name)) continue;
    fixed.push(part.slice(at, tag.start));
    slots.push({ kind: 'tag', name: tag.name });
    at = tag.end;
  }
  fixed.push(part.slice(at));
  return { fixed, slots };
}

/**
 * The HTML part compiled: cut at its tags, at the anchors that hold tags and where the footer
 * goes, anchors without tags marked `ses:no-track` already where the web version link is their
 * href; `asWritten`: the hrefs of the other anchors without tags, which an unsubscribe link
 * equal to one would mark. Undefined when a value or the footer could change where the anchors
 * or the end of the body are found: then every recipient's mail is rendered whole.
 */
function _compileHtml(
  html: string,
  footer: string | undefined,
  webTargets: ReadonlySet<string>,
): (_Part & { readonly asWritten: ReadonlySet<string> }) | undefined {
  const tags = findTags(html).filter((tag) => _fills(tag.name));
  if (tags.some((tag) => _JOINS_MARKUP.test(html.slice(Math.max(0, tag.start - 6), tag.start))))
    return undefined;
  // A tag holds no `<`, `>` or quote, and a value is escaped: the anchors and the end of the
  // body are where they are found in the HTML as stored.
  const anchors = findAnchors(html);
  const offset = footer === undefined ? undefined : footerOffset(html);
  if (offset !== undefined && footer !== undefined) {
    const expected: { start: number; end: number }[] = [];
    for (const anchor of anchors) {
      if (anchor.end <= offset) expected.push(anchor);
      else if (anchor.start >= offset)
        expected.push({ start: anchor.start + footer.length, end: anchor.end + footer.length });
      else return undefined;
    }
    expected.push(
      ...findAnchors(footer).map((anchor) => ({
        start: anchor.start + offset,
        end: anchor.end + offset,
      })),
    );
    expected.sort((a, b) => a.start - b.start);
    const found = findAnchors(`${html.slice(0, offset)}${footer}${html.slice(offset)}`);
    if (
      found.length !== expected.length ||
      found.some(
        (anchor, index) =>
          anchor.start !== expected[index]?.start || anchor.end !== expected[index]?.end,
      )
    )
      return undefined;
  }

  type Edit = { readonly start: number; readonly end: number } & (
    | { readonly slot: _Slot }
    | { readonly text: string }
  );
  const edits: Edit[] = [];
  const asWritten = new Set<string>();
  const inAnchors = new Set<number>();
  for (const anchor of anchors) {
    const text = html.slice(anchor.start, anchor.end);
    const inside = tags.filter((tag) => tag.start >= anchor.start && tag.end <= anchor.end);
    if (inside.length > 0) {
      for (const tag of inside) inAnchors.add(tag.start);
      edits.push({ ...anchor, slot: { kind: 'anchor', text } });
      continue;
    }
    const marked = markUntrackedAnchor(text, webTargets);
    if (marked !== text) edits.push({ ...anchor, text: marked });
    else {
      const href = untrackableHref(text);
      if (href !== undefined) asWritten.add(href);
    }
  }
  for (const tag of tags) {
    if (!inAnchors.has(tag.start))
      edits.push({ start: tag.start, end: tag.end, slot: { kind: 'tag', name: tag.name } });
  }
  if (offset !== undefined) edits.push({ start: offset, end: offset, slot: { kind: 'footer' } });
  edits.sort((a, b) => a.start - b.start || a.end - b.end);

  const fixed: string[] = [];
  const slots: _Slot[] = [];
  let current = '';
  let at = 0;
  for (const edit of edits) {
    current += html.slice(at, edit.start);
    if ('text' in edit) current += edit.text;
    else {
      fixed.push(current);
      current = '';
      slots.push(edit.slot);
    }
    at = edit.end;
  }
  fixed.push(current + html.slice(at));
  return { fixed, slots, asWritten };
}

/** The text part compiled: cut at its tags, and for a footer, where its trimmed end may start. */
function _compileText(text: string, withFooter: boolean): _Part | _TextWithFooter {
  const cut = _cutAtTags(text);
  if (!withFooter) return cut;
  let last = cut.fixed.length - 1;
  while (last >= 0 && (cut.fixed[last] ?? '').trimEnd() === '') last -= 1;
  if (last < 0)
    return { fixed: ['', ''], trimmedFixed: ['', ''], slots: [], tail: cut, bodyBefore: false };
  const head = cut.fixed.slice(0, last + 1);
  return {
    fixed: [...head, ''],
    trimmedFixed: [...head.slice(0, -1), (head[last] ?? '').trimEnd(), ''],
    slots: cut.slots.slice(0, last),
    // The slot after the last piece that is not blank, and everything after it.
    tail: { fixed: ['', ...cut.fixed.slice(last + 1)], slots: cut.slots.slice(last) },
    bodyBefore: true,
  };
}

/** One recipient's text part as pieces; `footer` is textFooter's lines for them. */
function _renderText(
  text: _Part | _TextWithFooter,
  value: (name: string) => string,
  footer: string,
): PartPieces {
  const fill = (slots: readonly _Slot[]) =>
    slots.map((slot) => (slot.kind === 'tag' ? value(slot.name) : ''));
  const values = fill(text.slots);
  if (!('tail' in text)) return { fixed: text.fixed, values };
  // The footer follows the part trimmed at its end, after a blank line unless nothing is left.
  const tail = _join(text.tail.fixed, fill(text.tail.slots)).trimEnd();
  if (tail !== '') return { fixed: text.fixed, values: [...values, `${tail}\n\n${footer}`] };
  return {
    fixed: text.trimmedFixed,
    values: [...values, `${text.bodyBefore ? '\n\n' : ''}${footer}`],
  };
}

/** The last piece before the next value that is not empty, or '' when there is none. */
function _lastWritten(fixed: readonly string[], values: readonly string[]): string {
  for (let index = values.length; index >= 0; index -= 1) {
    const piece = fixed[index] ?? '';
    if (piece !== '') return piece;
    const value = index > 0 ? (values[index - 1] ?? '') : '';
    if (value !== '') return value;
  }
  return '';
}

function _join(fixed: readonly string[], values: readonly string[]): string {
  let joined = fixed[0] ?? '';
  for (let index = 0; index < values.length; index += 1)
    joined += (values[index] ?? '') + (fixed[index + 1] ?? '');
  return joined;
}

function _memo<T>(compute: (name: string) => T): (name: string) => T {
  const known = new Map<string, T>();
  return (name) => {
    if (known.has(name)) return known.get(name) as T;
    const value = compute(name);
    known.set(name, value);
    return value;
  };
}
