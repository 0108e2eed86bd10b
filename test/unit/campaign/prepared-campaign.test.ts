/** An issue compiled once for many recipients renders exactly what renderCampaign renders. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCampaignContent } from '../../../shared/domain/campaign/campaign-content.ts';
import {
  type PartPieces,
  prepareCampaign,
} from '../../../shared/domain/campaign/prepared-campaign.ts';
import {
  type CampaignParts,
  type CampaignRecipientValues,
  renderCampaign,
  type TagFallbacks,
} from '../../../shared/domain/campaign/render-campaign.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { realisticHtml } from '../../support/realistic-issue.ts';
import {
  campaignSettings,
  contentInput,
  NEWSLETTER_HTML,
  UNSUBSCRIBE_URL,
  WEB_VERSION_URL,
} from './campaign-fixtures.ts';

/** An href the HTML may hold as written that an unsubscribe or web version link may equal. */
const WRITTEN = 'https://x.example/p?a=1&b=2';

const HTML_FRAGMENTS = [
  '<p>',
  '</p>',
  '<a href="',
  "<a href='",
  '<a href=',
  '<a title="',
  '<A HREF="',
  '" title=\'',
  "'>",
  '">',
  '>',
  '/>',
  ' ses:no-track',
  ' href="',
  `<a href="${WRITTEN}">`,
  `<a href=" ${WRITTEN} ">`,
  `<a href="${WRITTEN.replace('&', '&amp;')}">`,
  `<a href="${WEB_VERSION_URL}">`,
  `<a href="${UNSUBSCRIBE_URL}" ses:no-track>`,
  '</a>',
  '{name}',
  '{surname}',
  '{email}',
  '{profile_city}',
  '{profile_1}',
  '{profile_zip}',
  '{unsubscription_url}',
  '{nmae}',
  '{ name }',
  '{',
  '}',
  ' ',
  '\n',
  'x',
  '<',
  '</',
  '</b',
  '<a',
  '<!--',
  '-->',
  '"',
  "'",
  '=',
  '&',
  '<style>a{color:red}</style>',
  '<body>',
  '</body>',
  '</BODY >',
  '</body\n',
  '</html>',
  '<br/>',
  '<img src="x.png" alt="{name}">',
  // Tags where a value would join the markup around it, which saving refuses.
  `<a{name} href="${WEB_VERSION_URL}">`,
  `<{name} href="${WEB_VERSION_URL}">`,
  '</bod{surname}',
  '</body{surname}',
  // The footer's place inside an anchor, or before a quote it would close.
  '<a title="</body>">',
  '<a title=x ',
  '</body ',
  ` href="${WEB_VERSION_URL}">`,
  '<a title="x',
];

const TEXT_FRAGMENTS = [
  '{name}',
  '{surname}',
  '{email}',
  '{profile_city}',
  '{profile_zip}',
  '{unsubscription_url}',
  '{nmae}',
  'Hello ',
  'x',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '\t',
  '\u00a0',
  '{',
  '}',
];

const VALUES = [
  ...['', ' ', 'Ada', 'a', 'y', 'dy', 'a"b', "<x>&'", 'href=x', '\n', 'é', '{name}', '\u202E'],
  ...['a b', '/', 'y/'],
];

const html = fc
  .array(fc.constantFrom(...HTML_FRAGMENTS), { maxLength: 30 })
  .map((pieces) => pieces.join(''));
const text = fc
  .array(fc.constantFrom(...TEXT_FRAGMENTS), { maxLength: 16 })
  .map((pieces) => pieces.join(''));
const value = fc.oneof(fc.constantFrom(...VALUES), fc.string({ unit: 'binary', maxLength: 12 }));
const recipient: fc.Arbitrary<CampaignRecipientValues> = fc.record({
  email: value,
  name: value,
  surname: value,
  profile: fc.record({ city: value, '1': value }, { requiredKeys: [] }),
});
const fallbacks: fc.Arbitrary<TagFallbacks> = fc.constantFrom<TagFallbacks>(
  {},
  { name: 'reader' },
  { name: '{email}', profile_city: 'a <b> & "c"' },
  { email: '  ' },
);
const unsubscribeUrl = fc.constantFrom(
  UNSUBSCRIBE_URL,
  WRITTEN,
  WEB_VERSION_URL,
  'http://localhost:3000/u?t=a"b<c> d',
  'https://x.example/u?token=1.2.abc',
);
const webVersionUrl = fc.constantFrom(undefined, WEB_VERSION_URL, WRITTEN);

const join = (part: PartPieces): string =>
  part.values.reduce(
    (joined, piece, index) => joined + piece + part.fixed[index + 1],
    part.fixed[0] ?? '',
  );

describe('[campaign.render] a prepared campaign renders as renderCampaign does', () => {
  it('gives the same subject, HTML and text for any parts, recipients, links and fallbacks', () => {
    fc.assert(
      fc.property(
        html,
        text,
        fc.array(fc.tuple(recipient, unsubscribeUrl), { minLength: 1, maxLength: 3 }),
        webVersionUrl,
        fallbacks,
        (htmlPart, textPart, mails, web, tagFallbacks) => {
          // Arrange
          const content: CampaignParts = {
            subject: ' News \t of  the\nday ',
            html: htmlPart,
            text: textPart,
          };
          const links = web === undefined ? {} : { webVersionUrl: web };

          // Act
          const prepared = prepareCampaign(content, links, tagFallbacks);

          // Assert: every recipient of the same preparation, in turn
          for (const [person, link] of mails) {
            const expected = renderCampaign(
              content,
              person,
              { unsubscribeUrl: link, ...links },
              tagFallbacks,
            );
            const rendered = prepared.render(person, link);
            expect({ subject: rendered.subject, html: rendered.html, text: rendered.text }).toEqual(
              expected,
            );
            expect(prepared.subject).toBe(expected.subject);
            expect(join(rendered.pieces.html)).toBe(rendered.html);
            expect(join(rendered.pieces.text)).toBe(rendered.text);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('gives the same for saved newsletters, the realistic one included', () => {
    // Arrange
    const settings = campaignSettings();
    const saved = [NEWSLETTER_HTML, realisticHtml()].map((candidate) => {
      const result = parseCampaignContent(contentInput({ html: candidate }), settings);
      if (isNewsletterError(result)) throw new Error(result.message);
      return result.content;
    });

    fc.assert(
      fc.property(
        fc.constantFrom(...saved),
        recipient,
        unsubscribeUrl,
        webVersionUrl,
        fallbacks,
        (content, person, link, web, tagFallbacks) => {
          const links = web === undefined ? {} : { webVersionUrl: web };
          const rendered = prepareCampaign(content, links, tagFallbacks).render(person, link);
          expect({ subject: rendered.subject, html: rendered.html, text: rendered.text }).toEqual(
            renderCampaign(content, person, { unsubscribeUrl: link, ...links }, tagFallbacks),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fills only values for each recipient: the fixed pieces are the same objects for all', () => {
    // Arrange
    const settings = campaignSettings();
    const saved = parseCampaignContent(contentInput({ html: realisticHtml() }), settings);
    if (isNewsletterError(saved)) throw new Error(saved.message);
    const prepared = prepareCampaign(saved.content, { webVersionUrl: WEB_VERSION_URL }, {});

    // Act
    const ada = prepared.render(
      { email: 'ada@example.com', name: 'Ada', surname: 'Lovelace', profile: { city: 'London' } },
      UNSUBSCRIBE_URL,
    );
    const bob = prepared.render(
      { email: 'bob@example.com', name: '', surname: '', profile: {} },
      'https://api.example.com/api/newsletter/v1/subscription/unsubscribe?token=7.43.other',
    );

    // Assert: the 38 KB part is cut into many pieces, and only values differ
    expect(ada.pieces.html.fixed).toBe(bob.pieces.html.fixed);
    expect(ada.pieces.text.fixed).toBe(bob.pieces.text.fixed);
    expect(ada.pieces.html.values.length).toBeGreaterThan(20);
    const valueBytes = ada.pieces.html.values.join('').length;
    expect(valueBytes).toBeLessThan(ada.html.length / 5);
  });

  it('refuses links that are not http(s), as renderCampaign does', () => {
    const content = { subject: 'S', html: '<p>x</p>', text: 'x' };
    const ada = { email: 'ada@example.com', name: 'Ada', surname: '', profile: {} };
    expect(() => prepareCampaign(content).render(ada, 'javascript:alert(1)')).toThrow(
      'The unsubscribe link must be an http(s) URL, got scheme javascript:',
    );
    expect(() => prepareCampaign(content, { webVersionUrl: 'ftp://x.example/' })).toThrow(
      'The web version link must be an http(s) URL, got scheme ftp:',
    );
  });
});
