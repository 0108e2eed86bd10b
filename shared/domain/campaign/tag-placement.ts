import { type DefaultTreeAdapterTypes, html as HTML, parse } from 'parse5';
import { findTags, replaceTags } from './campaign-tags.ts';

/**
 * Where tags may stand in an HTML part ([campaign.tag-placement]). A value is HTML-escaped
 * (`& < > " '`), which keeps it text in element content, in a quoted attribute value and in a
 * comment. Elsewhere no escaping helps: in a tag or attribute name, or an unquoted attribute
 * value, a space or `=` in a value would add attributes; in `<style>`, `<script>` and the other
 * raw-text elements an escaped value shows its `&amp;`s, because entities are not decoded there;
 * and a tag the parser drops (in an end tag, a doctype) never shows. So a tag is accepted only in
 * text, in a quoted attribute value or in a comment, and refused anywhere else when the issue is
 * saved. Outlook reads what a conditional comment (`<!--[if mso]>…<![endif]-->`) holds as HTML,
 * so the same rules apply inside one.
 *
 * The HTML is read by parse5, which follows the WHATWG parsing algorithm as browsers do: each tag
 * is swapped for a marker of Unicode noncharacters (no parser treats them as markup, and saved
 * content cannot hold them), and where each marker lands in the tree says where its tag stands.
 *
 * A value also joins the characters around it, so two places are refused even there: right
 * after `<`, `<!`, `<!-`, `<?` or `</` and letters (a value `p` or `!--` would start a tag or a
 * comment; an empty one after `</title` would end the title), and in a comment or an SVG/MathML
 * CDATA section right before `>` with only `-`, `!`, `]` or other tags between (a value ending in
 * `--` or `]]` would end it early).
 */

/** A tag the HTML holds where a value could change the markup, and where that is. */
export interface MisplacedTag {
  readonly name: string;
  /** A phrase that completes "stands …": "inside <style>", "inside a tag's markup". */
  readonly where: string;
}

type _Node = DefaultTreeAdapterTypes.Node;
type _Element = DefaultTreeAdapterTypes.Element;
type _Attribute = _Element['attrs'][number];

/** Elements whose text browsers do not decode or parse: an escaped value would show as typed. */
const _RAW_TEXT = new Set([
  'script',
  'style',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
]);

/** Elements whose content is not shown. */
const _HIDDEN = new Set(['template', 'noscript', 'head']);

const _MARKER = /\uFDD0(\d+)\uFDD1/g;

type _Landing = 'text' | 'foreign text' | 'quoted attribute' | 'comment' | string;

/** The first tag of the HTML that stands where a value could change the markup, if any. */
export function misplacedTag(html: string): MisplacedTag | undefined {
  const tags = findTags(html);
  if (tags.length === 0) return undefined;
  let next = 0;
  const landings = new Map<number, _Landing>();
  _land(
    replaceTags(html, () => `\uFDD0${next++}\uFDD1`),
    landings,
    tags.map((tag) => tag.name),
  );
  for (const [index, tag] of tags.entries()) {
    const landing = landings.get(index) ?? "inside a tag's markup";
    if (!_isSafe(landing)) return { name: tag.name, where: landing };
    if (_OPENS_MARKUP.test(html.slice(Math.max(0, tag.start - 40), tag.start)))
      return { name: tag.name, where: "right after '<'" };
    if ((landing === 'comment' || landing === 'foreign text') && _closesComment(html, tag.end))
      return { name: tag.name, where: "right before the '>' that ends a comment" };
  }
  return undefined;
}

// Outlook's conditional comment: Outlook reads what it holds as HTML.
const _CONDITIONAL = /^\[if[^\]]*\]>([\s\S]*)<!\[endif\]$/i;

/** Parses marked HTML and records where each marker lands (the worst place when several). */
function _land(marked: string, landings: Map<number, _Landing>, names: readonly string[]): void {
  const land = (text: string, where: _Landing): void => {
    for (const match of text.matchAll(_MARKER)) {
      const index = Number(match[1]);
      // A marker the parser copied (a formatting element reopened) counts where it is worst.
      if (!landings.has(index) || !_isSafe(where)) landings.set(index, where);
    }
  };
  _walk(parse(marked, { sourceCodeLocationInfo: true }), (node) => {
    if (node.nodeName === '#text' && 'value' in node) {
      const parent = node.parentNode;
      const element = parent && 'tagName' in parent ? parent : undefined;
      if (element?.namespaceURI === HTML.NS.HTML && _RAW_TEXT.has(element.tagName)) {
        land(node.value, `inside <${element.tagName}>`);
      } else {
        land(
          node.value,
          element && element.namespaceURI !== HTML.NS.HTML ? 'foreign text' : 'text',
        );
      }
    } else if (node.nodeName === '#comment' && 'data' in node) {
      land(node.data, 'comment');
      const conditional = _CONDITIONAL.exec(node.data);
      if (conditional) _land(conditional[1] ?? '', landings, names);
    } else if ('tagName' in node) {
      land(node.tagName, "inside a tag's markup");
      for (const attribute of node.attrs) {
        land(attribute.name, "inside a tag's markup");
        if (!_isQuoted(marked, node, attribute)) land(attribute.value, "inside a tag's markup");
        else if (_URL_ATTRIBUTES.has(attribute.name)) _landInUrl(attribute, names, land);
        else if (_URL_LIST_ATTRIBUTES.has(attribute.name))
          land(
            attribute.value,
            `in ${attribute.name}, a list of addresses a subscriber must not choose`,
          );
        else land(attribute.value, 'quoted attribute');
      }
    }
  });
}

const _PROBE_URL = 'https://campaign-footer.invalid/';

/**
 * Whether a link inserted at `offset` becomes a shown element of the body: not swallowed by a
 * comment, a tag or a raw-text element left open before it, nor inside a `<template>`.
 */
export function acceptsMarkupAt(html: string, offset: number): boolean {
  const probed = `${html.slice(0, offset)}<a href="${_PROBE_URL}">x</a>${html.slice(offset)}`;
  let shown = false;
  _walk(parse(probed), (node, ancestors) => {
    if (
      'tagName' in node &&
      node.tagName === 'a' &&
      node.attrs.some((attribute) => attribute.name === 'href' && attribute.value === _PROBE_URL) &&
      ancestors.some((ancestor) => 'tagName' in ancestor && ancestor.tagName === 'body') &&
      !ancestors.some((ancestor) => 'tagName' in ancestor && _HIDDEN.has(ancestor.tagName))
    ) {
      shown = true;
    }
  });
  return shown;
}

function _walk(node: _Node, visit: (node: _Node, ancestors: readonly _Node[]) => void): void {
  const ancestors: _Node[] = [];
  const go = (current: _Node): void => {
    visit(current, ancestors);
    ancestors.push(current);
    if ('childNodes' in current) for (const child of current.childNodes) go(child);
    if ('content' in current) go(current.content);
    ancestors.pop();
  };
  go(node);
}

function _isSafe(landing: _Landing): boolean {
  return (
    landing === 'text' ||
    landing === 'foreign text' ||
    landing === 'quoted attribute' ||
    landing === 'comment'
  );
}

/** Whether the attribute's value was written in quotes, by its location in the source. */
function _isQuoted(source: string, element: _Element, attribute: _Attribute): boolean {
  // Locations are keyed by the name as written: `xlink:href` for SVG's adjusted `href`.
  const written = attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name;
  const locations = element.sourceCodeLocation?.attrs;
  const location = locations?.[written] ?? locations?.[written.toLowerCase()];
  if (!location) return false;
  return /^[^=]*=[\t\n\f\r ]*["']/.test(source.slice(location.startOffset, location.endOffset));
}

// What a value could complete into a start tag, an end tag, a comment or a doctype.
const _OPENS_MARKUP = /<(?:\/?[A-Za-z]*|!-?|\?)$/;

// What a value ending in `--`, `--!` or `]]` would complete into the end of a comment or CDATA.
const _CLOSES_COMMENT = /(?:[-!\]]|\{[A-Za-z][A-Za-z0-9_]*\})*>/y;

function _closesComment(html: string, from: number): boolean {
  _CLOSES_COMMENT.lastIndex = from;
  return _CLOSES_COMMENT.test(html);
}

/** Attributes whose value is one address. */
const _URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'background',
  'poster',
  'cite',
  'longdesc',
  'usemap',
  'data',
  'codebase',
  'manifest',
  'icon',
  'lowsrc',
  'dynsrc',
]);
/** Attributes whose value lists addresses: any value in them could start one. */
const _URL_LIST_ATTRIBUTES = new Set(['srcset', 'ping', 'archive']);
/** Schemes whose addresses have a host after `scheme:`, with any number of slashes. */
const _SPECIAL_SCHEMES = new Set(['http', 'https', 'ftp', 'ws', 'wss', 'file']);
/** Schemes whose address is code or a document: a value in one writes it. */
const _CODE_SCHEMES = new Set(['javascript', 'vbscript', 'data']);

/**
 * A link's target is the operator's: in an address attribute a subscriber's value may stand in
 * the path, the query or the fragment (`https://example.com/?e={email}`), never where it would
 * choose the scheme or the host (`javascript:`, another site). `{unsubscription_url}` is ours and
 * may start one.
 */
function _landInUrl(
  attribute: _Attribute,
  names: readonly string[],
  land: (text: string, where: _Landing) => void,
): void {
  for (const match of attribute.value.matchAll(_MARKER)) {
    const name = names[Number(match[1])] ?? '';
    const before = attribute.value.slice(0, match.index);
    const fixed = name === 'unsubscription_url' || _fixesTarget(before, names);
    land(
      match[0],
      fixed
        ? 'quoted attribute'
        : `in ${attribute.name} before the address's scheme and host are fixed: a value may go in its path, query or fragment (https://example.com/?e={email}), never choose where the link leads`,
    );
  }
}

/** Whether an address's start (tags before standing for what they render) fixes scheme and host. */
function _fixesTarget(before: string, names: readonly string[]): boolean {
  const prefix = before
    .replace(_MARKER, (_marker, index: string) =>
      names[Number(index)] === 'unsubscription_url' ? 'https://unsubscribe.invalid/' : 'x',
    )
    // As a URL parser reads it: tabs and newlines dropped anywhere, leading controls and spaces.
    .replace(/[\t\n\r]/g, '')
    .replace(/^[\p{Cc} ]+/u, '');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(prefix)?.[1]?.toLowerCase();
  if (scheme !== undefined && _CODE_SCHEMES.has(scheme)) return false;
  if (scheme !== undefined)
    return !_SPECIAL_SCHEMES.has(scheme) || /^[^:]+:[/\\]*[^/\\?#]+[/\\?#]/.test(prefix);
  if (/^[/\\]{2}/.test(prefix)) return /^[/\\]{2}[^/\\?#]+[/\\?#]/.test(prefix);
  if (/^[/\\]/.test(prefix)) return prefix.length > 1;
  return /[/\\?#]/.test(prefix);
}
