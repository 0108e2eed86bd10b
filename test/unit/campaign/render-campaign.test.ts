/** Rendering one recipient's campaign mail: values in, structure unchanged. */
import fc from 'fast-check';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { parseCampaignContent } from '../../../shared/domain/campaign/campaign-content.ts';
import {
  type CampaignParts,
  type CampaignRecipientValues,
  renderCampaign,
} from '../../../shared/domain/campaign/render-campaign.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import {
  campaignSettings,
  contentInput,
  UNSUBSCRIBE_URL,
  WEB_VERSION_URL,
} from './campaign-fixtures.ts';

const settings = campaignSettings();
const links = { unsubscribeUrl: UNSUBSCRIBE_URL };

const ada: CampaignRecipientValues = {
  email: 'ada@example.com',
  name: 'Ada',
  surname: 'Lovelace',
  profile: { city: 'London', '1': '1815' },
};

function saved(input: Parameters<typeof contentInput>[0] = {}): CampaignParts {
  const result = parseCampaignContent(contentInput(input), settings);
  if (isNewsletterError(result)) throw new Error(result.message);
  return result.content;
}

const parts = (html: string, text = 'text', subject = 'Subject'): CampaignParts => ({
  subject,
  html,
  text,
});

/**
 * The structure of an HTML document as a browser builds it (parse5 follows the WHATWG
 * algorithm): every element with its namespace, name and attribute names, every comment (with
 * the structure of a conditional comment's content, which Outlook reads as HTML) and doctype, by
 * depth. Text and attribute values are left out: they are where values belong.
 */
function structure(html: string): string[] {
  const lines: string[] = [];
  const walk = (node: DefaultTreeAdapterTypes.ParentNode, depth: number): void => {
    const indent = '  '.repeat(depth);
    for (const child of node.childNodes) {
      if ('tagName' in child) {
        const names = child.attrs.map((attribute) => attribute.name).sort();
        lines.push(`${indent}<${child.namespaceURI} ${child.tagName} ${names.join(' ')}>`);
        walk(child, depth + 1);
        if ('content' in child) walk(child.content, depth + 1);
      } else if (child.nodeName === '#comment' && 'data' in child) {
        const conditional = /^\[if[^\]]*\]>([\s\S]*)<!\[endif\]$/i.exec(child.data);
        lines.push(`${indent}<!-- ${structure(`<body>${conditional?.[1] ?? ''}`).join('|')} -->`);
      } else if (child.nodeName === '#documentType') {
        lines.push(`${indent}<!DOCTYPE>`);
      }
    }
  };
  walk(parse(html), 0);
  return lines;
}

/** Every element of a document, depth first. */
function elements(html: string): DefaultTreeAdapterTypes.Element[] {
  const found: DefaultTreeAdapterTypes.Element[] = [];
  const walk = (node: DefaultTreeAdapterTypes.ParentNode): void => {
    for (const child of node.childNodes) {
      if ('tagName' in child) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(parse(html));
  return found;
}

const attribute = (element: DefaultTreeAdapterTypes.Element, name: string): string | undefined =>
  element.attrs.find((candidate) => candidate.name === name)?.value;

const textOf = (element: DefaultTreeAdapterTypes.Element): string =>
  element.childNodes.map((child) => ('value' in child ? child.value : '')).join('');

const byId = (html: string, id: string): DefaultTreeAdapterTypes.Element => {
  const element = elements(html).find((candidate) => attribute(candidate, 'id') === id);
  if (!element) throw new Error(`no element #${id}`);
  return element;
};

/** Lines as any reader may split them: every line break and separator counts. */
const lines = (text: string): string[] => text.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/);

/** What the documentation says a value becomes before escaping. */
const cleaned = (value: string): string =>
  value
    .replace(/[\u202A-\u202E\u2066-\u2069]/g, '')
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .trim();

/** Pieces of markup, tags and line breaks that values are made of. */
const VALUE_PIECES = [
  '<',
  '>',
  '"',
  "'",
  '&',
  '=',
  ' ',
  '-',
  '!',
  '/',
  '?',
  '`',
  ';',
  'p',
  'title',
  'script',
  'amp;',
  'lt;',
  '#60;',
  '{name}',
  '{email}',
  '{unsubscription_url}',
  '{profile_city}',
  '{',
  '}',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  '</title>',
  '</style>',
  '-->',
  '--!',
  '<!--',
  ']]>',
  '\r\n',
  '\n',
  '\u0000',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u202E',
  '\u2067',
  'é',
  '👩🏽‍💻',
  '\uFFFD',
];

/**
 * The recipient with every value replaced by a harmless word, an empty one kept empty: whether
 * there is text at all can change a tree as any text does (the first text of a document starts
 * its body, where a stray `</p>` then makes an empty paragraph), so that is compared like with
 * like. Everything else a value holds must change nothing.
 */
function neutralFor(person: CampaignRecipientValues): CampaignRecipientValues {
  const word = (text: string | undefined): string => (cleaned(text ?? '') === '' ? '' : 'x');
  return {
    email: word(person.email),
    name: word(person.name),
    surname: word(person.surname),
    profile: { city: word(person.profile.city), '1': word(person.profile['1']) },
  };
}

const value = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.array(fc.constantFrom(...VALUE_PIECES), { maxLength: 12 }).map((pieces) => pieces.join('')),
);

const recipient: fc.Arbitrary<CampaignRecipientValues> = fc.record({
  email: value,
  name: value,
  surname: value,
  profile: fc.record({ city: value, '1': value }),
});

const BROAD_FRAGMENTS: readonly string[] = [
  '<p>',
  '</p>',
  '<a href="',
  '<a title=',
  '" title=\'',
  "'>",
  '">',
  '<b>',
  '</b>',
  '<br/>',
  '{name}',
  '{email}',
  '{profile_city}',
  '{unsubscription_url}',
  ' ',
  'x',
  '<',
  '>',
  '</',
  '<!',
  '<!-',
  '<!--',
  '-->',
  '--',
  '-',
  '!',
  '=',
  '"',
  "'",
  '/',
  '?',
  '&',
  '&amp;',
  '<style>',
  '</style>',
  'a{color:red}',
  '<title>',
  '</title>',
  '<textarea>',
  '</textarea>',
  '<svg>',
  '</svg>',
  '<![CDATA[',
  ']]>',
  ']]',
  '<table><tr><td>',
  '</td></tr></table>',
  '<img alt="',
  '<!DOCTYPE html>',
  '<body>',
  '</body>',
  'title',
  'p',
  // Tags next to what ends or starts markup, where a value joins the characters around it.
  '<!--{name}',
  '{name}>',
  '{email}-->',
  '{name}-',
  '<{name}',
  '</{email}',
  '<svg><![CDATA[{name}',
  '<a title="{name}">',
  "<p title='{email}'>",
];

/**
 * Saves each generated HTML and checks every accepted one: rendered for any recipient, it has
 * the structure of the neutral rendering and an unsubscribe link. Returns how many were accepted.
 */
function acceptedKeepStructure(
  html: fc.Arbitrary<string>,
  people: fc.Arbitrary<CampaignRecipientValues>,
  numRuns: number,
): number {
  let accepted = 0;
  fc.assert(
    fc.property(html, people, (candidate, person) => {
      const saved = parseCampaignContent(contentInput({ html: candidate, text: 'x' }), settings);
      if (isNewsletterError(saved)) return;
      accepted += 1;

      const mail = renderCampaign(saved.content, person, links);
      const neutral = renderCampaign(saved.content, neutralFor(person), links);

      expect(structure(mail.html)).toEqual(structure(neutral.html));
      if (!saved.content.html.includes('{unsubscription_url}')) {
        expect(elements(mail.html).some((e) => attribute(e, 'href') === UNSUBSCRIBE_URL)).toBe(
          true,
        );
      }
    }),
    { numRuns },
  );
  return accepted;
}

describe('[campaign.render] values never change the structure of the mail', () => {
  it('a whole newsletter keeps its elements, attributes, comments and lines whatever the values', () => {
    // Arrange
    const content = saved({ text: undefined });
    const contentLines = lines(content.text);

    fc.assert(
      fc.property(recipient, (person) => {
        // Act
        const mail = renderCampaign(content, person, links);
        const neutral = renderCampaign(content, neutralFor(person), links);

        // Assert
        expect(mail.subject).toBe(neutral.subject);
        expect(structure(mail.html)).toEqual(structure(neutral.html));
        const mailLines = lines(mail.text);
        expect(mailLines.length).toBe(lines(neutral.text).length);
        contentLines.forEach((line, index) => {
          if (!line.includes('{')) expect(mailLines[index]).toBe(line);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a value arrives as exactly its text, in element content, attributes and the text part', () => {
    // Arrange
    const content = parts(
      `<p id="a">{name}</p><p id="b" title="{name}" data-x='{surname}'>{surname}</p><a id="c" href="https://x.example/?c={profile_city}">{email}</a>`,
      '{name}|{surname}|{profile_city}\n{email}',
    );

    fc.assert(
      fc.property(recipient, (person) => {
        // Act
        const mail = renderCampaign(content, person, links);

        // Assert
        expect(textOf(byId(mail.html, 'a'))).toBe(cleaned(person.name));
        expect(attribute(byId(mail.html, 'b'), 'title')).toBe(cleaned(person.name));
        expect(attribute(byId(mail.html, 'b'), 'data-x')).toBe(cleaned(person.surname));
        expect(textOf(byId(mail.html, 'b'))).toBe(cleaned(person.surname));
        expect(attribute(byId(mail.html, 'c'), 'href')).toBe(
          `https://x.example/?c=${cleaned(person.profile.city ?? '')}`,
        );
        expect(textOf(byId(mail.html, 'c'))).toBe(cleaned(person.email));
        expect(lines(mail.text).slice(0, 2)).toEqual([
          `${cleaned(person.name)}|${cleaned(person.surname)}|${cleaned(person.profile.city ?? '')}`,
          cleaned(person.email),
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('any HTML that saving accepts keeps its structure and gets its unsubscribe link', () => {
    // Arrange: HTML made of markup fragments, tags and the characters around markup
    const html = fc
      .array(fc.constantFrom(...BROAD_FRAGMENTS), { minLength: 1, maxLength: 24 })
      .map((pieces) => pieces.join(''));
    const accepted = acceptedKeepStructure(html, recipient, 3000);

    // Assert: the property says something only if enough of the generated HTML was accepted
    expect(accepted).toBeGreaterThan(300);
  });

  it('so does HTML dense in comments and CDATA, with values made of what ends them', () => {
    // Arrange: comments and CDATA sections holding tags next to `-`, `!`, `]` and `>`, then
    // markup a comment ended early would let out
    const inner = fc
      .array(fc.constantFrom('{name}', '{email}', '-', '!', ']', '>', ' ', 'x', '<p>'), {
        maxLength: 8,
      })
      .map((pieces) => pieces.join(''));
    const segment = fc.oneof(
      inner.map((text) => `<!--${text}-->`),
      inner.map((text) => `<svg><![CDATA[${text}]]></svg>`),
      inner,
      fc.constant('<p>y</p>'),
    );
    const html = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
    const ending = fc
      .array(fc.constantFrom('-', '!', ']', ' ', '--', ']]', 'x'), { maxLength: 4 })
      .map((pieces) => pieces.join(''));
    const people = fc.record({
      email: ending,
      name: ending,
      surname: ending,
      profile: fc.record({ city: ending, '1': ending }),
    });

    // Act
    const accepted = acceptedKeepStructure(html, people, 3000);

    // Assert
    expect(accepted).toBeGreaterThan(300);
  });
});

describe('[campaign.tags] rendering fills the tags in one pass', () => {
  it('fills every tag, profile tags and repeated tags included', () => {
    // Arrange
    const content = parts(
      '<p>{name} {surname} <{email}> {profile_city} {profile_1} {name}{name}</p><a href="{unsubscription_url}">x</a>',
      '{name} {surname} {email} {profile_city} {profile_1} {name}{name} {unsubscription_url}',
    );

    // Act
    const mail = renderCampaign(content, ada, links);

    // Assert
    expect(mail.html).toBe(
      `<p>Ada Lovelace <ada@example.com> London 1815 AdaAda</p><a href="${UNSUBSCRIBE_URL}" ses:no-track>x</a>`,
    );
    expect(mail.text).toBe(`Ada Lovelace ada@example.com London 1815 AdaAda ${UNSUBSCRIBE_URL}`);
  });

  it('never scans a value again: a value that looks like a tag stays text', () => {
    // Act
    const mail = renderCampaign(
      parts('<p>{name}|{surname}</p>', '{name}|{surname}'),
      { ...ada, name: '{surname}', surname: '{unsubscription_url}{email}' },
      links,
    );

    // Assert
    expect(mail.html).toContain('<p>{surname}|{unsubscription_url}{email}</p>');
    expect(mail.text).toMatch(/^\{surname\}\|\{unsubscription_url\}\{email\}\n/);
  });

  it('leaves CSS braces and other braces exactly as written', () => {
    // Arrange
    const html =
      '<html><head><style>a { color: red } a{color:red} @media (max-width:600px){.c{width:100%}}</style></head><body><p>{0} {} { name } {a-b} {name}</p></body></html>';

    // Act
    const mail = renderCampaign(parts(html, 'a{color:red} {0} {name}'), ada, links);

    // Assert
    expect(mail.html).toContain(
      '<style>a { color: red } a{color:red} @media (max-width:600px){.c{width:100%}}</style>',
    );
    expect(mail.html).toContain('<p>{0} {} { name } {a-b} Ada</p>');
    expect(mail.text).toMatch(/^a\{color:red\} \{0\} Ada\n/);
  });

  it('escapes values in text and inside attributes of either quote', () => {
    // Arrange
    const evil = `"'><script>alert(1)</script>&amp;`;

    // Act
    const mail = renderCampaign(
      parts(`<p title="{name}" data-x='{name}'>{name}</p>`, '{name}'),
      { ...ada, name: evil },
      links,
    );

    // Assert
    const escaped = '&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;';
    expect(mail.html).toContain(`<p title="${escaped}" data-x='${escaped}'>${escaped}</p>`);
    expect(mail.text).toMatch(/^"'><script>alert\(1\)<\/script>&amp;\n/);
  });

  it('makes line breaks in values spaces and drops bidi controls, so no value adds a line', () => {
    // Act
    const mail = renderCampaign(
      parts('<p>{name}</p>', 'Hello {name}!\nBye'),
      { ...ada, name: ' Ada\r\nBcc: x@example.com\u2028\u0085\u202Eevil\u2069 ' },
      links,
    );

    // Assert
    expect(mail.text.split('\n').slice(0, 2)).toEqual([
      'Hello Ada Bcc: x@example.com evil!',
      'Bye',
    ]);
    expect(mail.html).toContain('<p>Ada Bcc: x@example.com evil</p>');
  });

  it('keeps a tag name it does not know as written, and never reads inherited properties', () => {
    // Act
    const mail = renderCampaign(
      parts('{nmae} {profile_constructor} {profile___proto__} {profile_zip}', '{nmae}'),
      ada,
      links,
    );

    // Assert
    expect(mail.html.split('\n')[0]).toBe('{nmae}   ');
    expect(mail.text.split('\n')[0]).toBe('{nmae}');
  });

  it('leaves the subject as the operator wrote it, in one line', () => {
    expect(renderCampaign(parts('x', 'x', '  Autumn\tnews  '), ada, links).subject).toBe(
      'Autumn news',
    );
  });
});

describe("[campaign.empty-values] an empty value renders as its tag's fallback of the settings", () => {
  const fallbacks = { name: 'reader', profile_city: 'your <city> & "town"', email: 'you' };

  it('makes "Hello reader," for a subscriber without a name, escaped in HTML, in both parts', () => {
    // Act
    const mail = renderCampaign(
      parts('<p>Hello {name}, from {profile_city}</p>', 'Hello {name}, from {profile_city}'),
      { ...ada, name: '', profile: {} },
      links,
      fallbacks,
    );

    // Assert
    expect(mail.html).toMatch(
      /^<p>Hello reader, from your &lt;city&gt; &amp; &quot;town&quot;<\/p>/,
    );
    expect(mail.text).toMatch(/^Hello reader, from your <city> & "town"\n/);
  });

  it('leaves a value that is there alone, and counts a value of only spaces or controls as empty', () => {
    const render = (name: string) =>
      renderCampaign(parts('<p>{name}</p>', '{name}'), { ...ada, name }, links, fallbacks).text;
    expect(render('Ada')).toMatch(/^Ada\n/);
    expect(render('  \u0007 ')).toMatch(/^reader\n/);
  });

  it('fills a fallback as a value: never scanned again for tags, a tag without one stays empty', () => {
    const mail = renderCampaign(
      parts('<p>[{name}][{surname}]</p>', '[{name}][{surname}]'),
      { ...ada, name: '', surname: '' },
      links,
      { name: '{email}' },
    );
    expect(mail.text).toMatch(/^\[\{email\}\]\[\]\n/);
  });

  it('ignores what is no own fallback: a tag named like an Object property stays as stored', () => {
    const mail = renderCampaign(
      parts('<p>[{profile_constructor}]</p>', '[{profile_constructor}]'),
      { ...ada, profile: {} },
      links,
      {},
    );
    expect(mail.text).toMatch(/^\[\]\n/);
  });
});

describe('[campaign.empty-values] an empty value renders as nothing when its tag has no fallback', () => {
  it('leaves "Hello ," for a subscriber without a name', () => {
    // Act
    const mail = renderCampaign(
      parts('<p>Hello {name},</p>', 'Hello {name},'),
      { ...ada, name: '', profile: {} },
      links,
    );

    // Assert
    expect(mail.html).toMatch(/^<p>Hello ,<\/p>/);
    expect(mail.text).toMatch(/^Hello ,\n/);
  });

  it('renders a profile field the subscriber left empty, or that is gone, as nothing', () => {
    expect(
      renderCampaign(parts('[{profile_city}]', '[{profile_1}]'), { ...ada, profile: {} }, links)
        .text,
    ).toMatch(/^\[\]\n/);
  });
});

describe('[campaign.unsubscribe-footer] every campaign mail carries an unsubscribe link', () => {
  it('adds a footer to a part without {unsubscription_url}, before </body>', () => {
    // Act
    const mail = renderCampaign(parts('<html><body><p>Hi</p></body></html>', 'Hi\n\n'), ada, links);

    // Assert
    expect(mail.html).toBe(
      `<html><body><p>Hi</p>\n<p style="margin:24px 0 0 0;font-size:12px;line-height:1.5;color:#6b7280;text-align:center"><a href="${UNSUBSCRIBE_URL}" style="color:#6b7280" ses:no-track>Unsubscribe</a></p>\n</body></html>`,
    );
    expect(mail.text).toBe(`Hi\n\nUnsubscribe: ${UNSUBSCRIBE_URL}\n`);
  });

  it('adds the footer at the end of a fragment, and only to the part that lacks the tag', () => {
    // Act
    const mail = renderCampaign(parts('<p>Hi</p>', 'Leave: {unsubscription_url}'), ada, links);

    // Assert
    expect(mail.html).toMatch(
      /^<p>Hi<\/p>\n<p style="[^"]+"><a href="[^"]+" [^>]+>Unsubscribe<\/a><\/p>\n$/,
    );
    expect(mail.text).toBe(`Leave: ${UNSUBSCRIBE_URL}`);
  });

  it('adds no footer when both parts carry the link', () => {
    // Arrange
    const content = parts(
      '<a href="{unsubscription_url}">Leave</a>',
      'Leave: {unsubscription_url}',
    );

    // Act
    const mail = renderCampaign(content, ada, links);

    // Assert
    // [engagement.no-track] the operator's own unsubscribe link is never tracked either.
    expect(mail.html).toBe(`<a href="${UNSUBSCRIBE_URL}" ses:no-track>Leave</a>`);
    expect(mail.text).toBe(`Leave: ${UNSUBSCRIBE_URL}`);
  });

  it('adds the web version link to both parts when the issue has one', () => {
    // Act
    const mail = renderCampaign(
      parts('<a href="{unsubscription_url}">Leave</a>', 'Leave: {unsubscription_url}'),
      ada,
      { ...links, webVersionUrl: WEB_VERSION_URL },
    );

    // Assert
    expect(mail.html).toContain(
      `<a href="${WEB_VERSION_URL}" style="color:#6b7280" ses:no-track>View this newsletter in your browser</a>`,
    );
    expect(mail.html).not.toContain('>Unsubscribe</a>');
    expect(mail.text).toBe(
      `Leave: ${UNSUBSCRIBE_URL}\n\nView this newsletter in your browser: ${WEB_VERSION_URL}\n`,
    );
  });

  it('puts links in their serialised form, and refuses a link that is not http(s)', () => {
    // Act
    const mail = renderCampaign(parts('{unsubscription_url}', '{unsubscription_url}'), ada, {
      unsubscribeUrl: 'https://x.example/u?t=a"b<c> d',
    });

    // Assert
    expect(mail.text).toBe('https://x.example/u?t=a%22b%3Cc%3E%20d');
    expect(() =>
      renderCampaign(parts('x', 'x'), ada, { unsubscribeUrl: 'javascript:alert(1)' }),
    ).toThrow(/http\(s\)/);
    expect(() =>
      renderCampaign(parts('x', 'x'), ada, { ...links, webVersionUrl: 'ftp://x.example/' }),
    ).toThrow(/http\(s\)/);
  });
});

describe('where the footer goes and how its lines are joined', () => {
  const FOOTER_STYLE =
    'margin:24px 0 0 0;font-size:12px;line-height:1.5;color:#6b7280;text-align:center';
  const unsubscribeLine = `<a href="${UNSUBSCRIBE_URL}" style="color:#6b7280" ses:no-track>Unsubscribe</a>`;
  const htmlFooter = `<p style="${FOOTER_STYLE}">${unsubscribeLine}</p>\n`;

  it.each([
    ['an empty part: the footer alone', '', htmlFooter],
    [
      'a part ending in a line break: no blank line added',
      '<p>Hi</p>\n',
      `<p>Hi</p>\n${htmlFooter}`,
    ],
    [
      'a part starting, not ending, with a line break: one added',
      '\n<p>Hi</p>',
      `\n<p>Hi</p>\n${htmlFooter}`,
    ],
    [
      'a document whose </body> starts it: the footer first',
      '</body></html>',
      `${htmlFooter}</body></html>`,
    ],
  ])(
    '[campaign.unsubscribe-footer] puts the HTML footer on a line of its own in %s',
    (_case, html, expected) => {
      // Act
      const mail = renderCampaign(parts(html, 'Leave: {unsubscription_url}'), ada, links);

      // Assert
      expect(mail.html).toBe(expected);
    },
  );

  it.each([
    ['', `Unsubscribe: ${UNSUBSCRIBE_URL}\n`],
    [' \n\n ', `Unsubscribe: ${UNSUBSCRIBE_URL}\n`],
    ['Hi\n\n\n', `Hi\n\nUnsubscribe: ${UNSUBSCRIBE_URL}\n`],
  ])(
    '[campaign.unsubscribe-footer] a text part %j gets the footer without leading blank lines',
    (text, expected) => {
      // Act
      const mail = renderCampaign(parts('{unsubscription_url}', text), ada, links);

      // Assert
      expect(mail.text).toBe(expected);
    },
  );

  it('[campaign.web-version-link] puts the web version link and the unsubscribe link on lines of their own', () => {
    // Act
    const mail = renderCampaign(parts('<p>Hi</p>', 'Hi'), ada, {
      ...links,
      webVersionUrl: WEB_VERSION_URL,
    });

    // Assert
    expect(mail.html).toBe(
      `<p>Hi</p>\n<p style="${FOOTER_STYLE}"><a href="${WEB_VERSION_URL}" style="color:#6b7280" ses:no-track>View this newsletter in your browser</a><br>\n${unsubscribeLine}</p>\n`,
    );
    expect(mail.text).toBe(
      `Hi\n\nView this newsletter in your browser: ${WEB_VERSION_URL}\nUnsubscribe: ${UNSUBSCRIBE_URL}\n`,
    );
  });
});

describe('links and subject as rendered', () => {
  it('[campaign.unsubscribe-footer] takes a plain http link too, and names the link it refuses', () => {
    // Act
    const mail = renderCampaign(parts('<p>Hi</p>', 'Hi'), ada, {
      unsubscribeUrl: 'http://localhost:3000/u?t=1',
      webVersionUrl: 'http://localhost:3000/view',
    });

    // Assert
    expect(mail.text).toBe(
      'Hi\n\nView this newsletter in your browser: http://localhost:3000/view\nUnsubscribe: http://localhost:3000/u?t=1\n',
    );
    expect(() =>
      renderCampaign(parts('x', 'x'), ada, { unsubscribeUrl: 'ftp://x.example/' }),
    ).toThrow('The unsubscribe link must be an http(s) URL, got scheme ftp:');
    expect(() =>
      renderCampaign(parts('x', 'x'), ada, { ...links, webVersionUrl: 'ftp://x.example/' }),
    ).toThrow('The web version link must be an http(s) URL, got scheme ftp:');
  });

  it('[campaign.render] makes runs of white space in the subject one space', () => {
    expect(renderCampaign(parts('x', 'x', 'Autumn   news \t for  you'), ada, links).subject).toBe(
      'Autumn news for you',
    );
  });
});

it('[campaign.empty-values] a profile value stored as something other than text renders as nothing', () => {
  // Arrange: the stored record is not what the type says, as an old or hand-edited item can be
  const odd = { ...ada, profile: { city: 42 } as unknown as Record<string, string> };

  // Act
  const mail = renderCampaign(parts('<p>[{profile_city}]</p>', '[{profile_city}]'), odd, links);

  // Assert
  expect(mail.html.startsWith('<p>[]</p>')).toBe(true);
  expect(mail.text.startsWith('[]')).toBe(true);
});
