import { compile, type FormatCallback } from 'html-to-text';
import { replaceTags } from './campaign-tags.ts';

/**
 * The text part of an issue saved without one ([campaign.text-part]), derived from its HTML by
 * html-to-text (a maintained converter, not regular expressions): paragraphs and line breaks as
 * a mail client would show them, lines wrapped at 78 characters (RFC 5322's recommendation),
 * links as `text [URL]` (the URL alone when it is the text), table cells as blocks (mail HTML
 * lays out with tables), images as their `alt` text (their addresses are noise in a text mail),
 * `<head>`, `<style>` and `<script>` left out, headings in the operator's own case.
 *
 * Tags survive as tags: each is swapped for a marker as long as the tag (U+FDD0, digits,
 * U+FDD1: Unicode noncharacters, which no formatting step touches) and swapped back after, so
 * `<a href="{unsubscription_url}">` gives `[{unsubscription_url}]` and lines wrap where they
 * would around the tag. Saved content never holds noncharacters (`parseCampaignContent` refuses
 * them), so no marker can be forged. One consequence is deliberate: `&#123;name&#125;`, the way
 * to show a literal `{name}` in HTML, decodes to `{name}` in the text part, where it is a tag; a
 * text part has no way to write a literal tag.
 */
export function deriveTextPart(html: string): string {
  const names: string[] = [];
  const marked = replaceTags(html, (name, tag) => {
    const known = names.indexOf(name);
    const index = known === -1 ? names.push(name) - 1 : known;
    return `\uFDD0${String(index).padStart(tag.length - 2, '0')}\uFDD1`;
  });
  return _convert(marked)
    .replace(/\uFDD0(\d+)\uFDD1/g, (marker: string, index: string) => {
      const name = names[Number(index)];
      return name === undefined ? marker : `{${name}}`;
    })
    .replace(/[\uFDD0\uFDD1]/g, '');
}

/** An image as its alternative text, without its address. */
const _altText: FormatCallback = (elem, _walk, builder) => {
  const alt = elem.attribs?.alt?.trim();
  if (alt) builder.addInline(alt);
};

const _convert = compile({
  wordwrap: 78,
  formatters: { altText: _altText },
  selectors: [
    { selector: 'img', format: 'altText' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    // Mail HTML lays out with tables: each cell is a block of its own, not glued to the next.
    ...['table', 'tr', 'td', 'th'].map((selector) => ({ selector, format: 'block' })),
    // Headings keep the operator's case: upper-casing mangles names and some languages (ß).
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
      selector,
      options: { uppercase: false },
    })),
  ],
});
