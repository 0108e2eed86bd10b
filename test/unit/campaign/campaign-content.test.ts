/** Saving an issue's content: what is refused, what is warned about, how the text part is made. */
import { describe, expect, it } from 'vitest';
import {
  type CampaignContent,
  GMAIL_CLIP_BYTES,
  MAX_CONTENT_BYTES,
  type ParsedCampaignContent,
  parseCampaignContent,
  parseIssueFields,
} from '../../../shared/domain/campaign/campaign-content.ts';
import { deriveTextPart } from '../../../shared/domain/campaign/derive-text-part.ts';
import { isNewsletterError, type NewsletterError } from '../../../shared/domain/errors.ts';
import { campaignSettings, contentInput, NEWSLETTER_HTML } from './campaign-fixtures.ts';

const settings = campaignSettings();

function accepted(input: unknown): ParsedCampaignContent {
  const result = parseCampaignContent(input, settings);
  if (isNewsletterError(result)) throw new Error(`refused: ${result.message}`);
  return result;
}

function refused(input: unknown): NewsletterError {
  const result = parseCampaignContent(input, settings);
  if (!isNewsletterError(result)) throw new Error('accepted content that should be refused');
  return result;
}

const page = (body: string): string => `<html><body>${body}</body></html>`;

describe('[campaign.content] content is validated when it is saved', () => {
  it('accepts a whole newsletter and derives its text part', () => {
    // Act
    const { content, warnings } = accepted(
      contentInput({ web_url: 'https://news.example.com/autumn' }),
    );

    // Assert
    expect(content).toEqual<CampaignContent>({
      subject: 'Autumn news',
      html: NEWSLETTER_HTML,
      text: deriveTextPart(NEWSLETTER_HTML),
      lists: [1],
      web_url: 'https://news.example.com/autumn',
    });
    expect(warnings).toEqual([]);
  });

  it('keeps a text part the operator wrote as it is', () => {
    // Act
    const { content } = accepted(contentInput({ text: 'Hello {name},\n\n  indented\n' }));

    // Assert
    expect(content.text).toBe('Hello {name},\n\n  indented\n');
  });

  it.each([
    [{ subject: '' }, 'subject is required'],
    [{ subject: '   ' }, 'subject is required'],
    [{ subject: 'x'.repeat(201) }, 'subject must be at most 200 characters'],
    [{ subject: 'Two\nlines' }, 'subject must be one line without control characters'],
    [{ subject: 'Tab\there' }, 'subject must be one line without control characters'],
    [{ subject: 'Line\u2028separator' }, 'subject must be one line without control characters'],
    [{ subject: 'Half \uD800 pair' }, 'subject must be valid Unicode text'],
    [{ html: '' }, 'html must not be empty'],
    [{ html: ' \n ' }, 'html must not be empty'],
    [{ html: '<p>a\u0000b</p>' }, 'html must not contain control characters'],
    [{ html: '<p>\uFDD0</p>' }, 'html must not contain control characters'],
    [{ html: '<p>\uDC00</p>' }, 'html must be valid Unicode text'],
    [{ text: '' }, 'text must not be empty'],
    [{ text: 'bell \u0007' }, 'text must not contain control characters'],
    [{ lists: [] }, 'lists: name at least one list the issue goes to'],
    [{ lists: [1.5] }, 'lists must be an array of list ids'],
    [{ lists: [0] }, 'lists must be an array of list ids'],
    [{ lists: '1' }, 'lists must be an array of list ids'],
    [{ lists: [1, 2, 1] }, 'lists: list 1 is named more than once'],
    [{ web_url: 'ftp://news.example.com/a' }, 'web_url must be an absolute http(s) URL'],
    [{ web_url: 'javascript:alert(1)' }, 'web_url must be an absolute http(s) URL'],
    [{ web_url: '/relative' }, 'web_url must be an absolute http(s) URL'],
    [{ web_url: `https://x.example/${'a'.repeat(2048)}` }, 'web_url must be at most 2,048'],
    [{ extra: true }, 'extra is not a content field'],
  ])('refuses %j: %s', (overrides, message) => {
    // Act
    const error = refused({ ...contentInput(), ...overrides });

    // Assert
    expect(error.code).toBe('invalid_parameter');
    expect(error.status).toBe(400);
    expect(error.message).toContain(message);
  });

  it('refuses a list the settings do not have', () => {
    // Act
    const error = refused(contentInput({ lists: [1, 9] }));

    // Assert
    expect(error).toMatchObject({ code: 'unknown_list', message: 'lists: list 9 does not exist' });
  });

  it('refuses what is not content at all', () => {
    expect(refused(null)).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/^the content must be an object/),
    });
    expect(refused({ subject: 'x', lists: [1] }).message).toMatch(/^html/);
  });

  it('trims the subject and allows braces that are not tags in it', () => {
    expect(accepted(contentInput({ subject: '  Issue {3}: a{b:c}  ' })).content.subject).toBe(
      'Issue {3}: a{b:c}',
    );
  });
});

describe('[campaign.content] what a draft is saved with before it has content', () => {
  const fields = (input: unknown) => parseIssueFields(input, settings);

  it('takes each field when given, none required, by the content rules (the subject trimmed)', () => {
    expect(fields({})).toEqual({});
    expect(fields({ lists: [1] })).toEqual({ lists: [1] });
    expect(
      fields({ subject: '  Spring issue ', lists: [1, 2], web_url: 'https://example.com/spring' }),
    ).toEqual({ subject: 'Spring issue', lists: [1, 2], web_url: 'https://example.com/spring' });
  });

  it('refuses what a send would refuse, naming the field, lists before the subject', () => {
    expect(fields({ subject: 'Two\nlines' })).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/^subject/),
    });
    expect(fields({ subject: 'Hello {name}' })).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringContaining('{name} is a tag'),
    });
    expect(fields({ lists: [9], subject: 'Hello {name}' })).toMatchObject({
      code: 'unknown_list',
      message: 'lists: list 9 does not exist',
    });
    expect(fields({ web_url: 'javascript:alert(1)' })).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/^web_url/),
    });
    expect(fields(null)).toMatchObject({ code: 'invalid_parameter' });
  });
});

describe('[campaign.subject-no-tags] the subject carries no subscriber values', () => {
  it('refuses a tag in the subject, naming it', () => {
    // Act
    const error = refused(contentInput({ subject: 'News for {name}' }));

    // Assert
    expect(error.code).toBe('invalid_parameter');
    expect(error.message).toMatch(/^subject: \{name\} is a tag, and tags are not allowed/);
  });
});

describe('[campaign.tags] tags are the original ones, and an unknown one is refused on save', () => {
  it('accepts every base tag and the profile fields of the settings', () => {
    // Arrange
    const html = page(
      '<p>{name} {surname} {email} {profile_city} {profile_1} {{name}}</p><a href="{unsubscription_url}">x</a>',
    );

    // Act
    const { content, warnings } = accepted(contentInput({ html }));

    // Assert
    expect(content.html).toBe(html);
    expect(warnings).toEqual([]);
  });

  it.each([
    [
      '{nmae}',
      'html: {nmae} is not a tag; the tags are {name}, {surname}, {email}, {unsubscription_url} and {profile_<id>}',
    ],
    ['{Name}', 'html: {Name} is not a tag'],
    ['{unsubscribe_url}', 'html: {unsubscribe_url} is not a tag'],
    [
      '{profile_country}',
      'html: {profile_country} names no profile field of the settings (the profile fields are city, 1)',
    ],
    ['{profile_}', 'html: {profile_} is not a tag'],
  ])('refuses %s as unknown_tag (400), naming it', (tag, message) => {
    // Act
    const error = refused(contentInput({ html: page(`<p>Hello ${tag}</p>`) }));

    // Assert
    expect(error).toMatchObject({ code: 'unknown_tag', status: 400 });
    expect(error.message).toContain(message);
  });

  it('refuses an unknown tag in a given text part, naming the part', () => {
    expect(refused(contentInput({ text: 'Hello {nmae}' })).message).toMatch(/^text: \{nmae\}/);
  });

  it('says when the settings define no profile fields', () => {
    // Act
    const result = parseCampaignContent(contentInput({ html: page('{profile_city}') }), {
      ...settings,
      profile_fields: [],
    });

    // Assert
    expect(isNewsletterError(result) && result.message).toContain(
      'the settings define no profile fields',
    );
  });

  it('lets CSS braces and other braces pass unchanged', () => {
    // Arrange
    const html = `<html><head><style>
a { color: red } a{color:red} p{margin:0;padding:0}
@media screen and (max-width:600px){.col{width:100%!important}}
.x{} .y{ } .z{_a:b}
</style></head><body><p>{0} {} {a-b} {a b} {_x} {9lives} {name</p></body></html>`;

    // Act
    const { content } = accepted(contentInput({ html }));

    // Assert
    expect(content.html).toBe(html);
  });

  it('warns about a tag written with spaces inside its braces', () => {
    // Act
    const { warnings } = accepted(contentInput({ html: page('<p>Hello { name }, {email }</p>') }));

    // Assert
    expect(warnings).toEqual([
      'html: { name } has spaces inside its braces, so it is not a tag and goes out as written.',
      'html: {email } has spaces inside its braces, so it is not a tag and goes out as written.',
    ]);
  });

  it('warns about a spaced tag in a given text part too, and not about braces round an unknown name', () => {
    // Act
    const { warnings } = accepted(
      contentInput({ html: page('<p>Hello { nickname }</p>'), text: 'Hello { name }' }),
    );

    // Assert
    expect(warnings).toEqual([
      'text: { name } has spaces inside its braces, so it is not a tag and goes out as written.',
    ]);
  });
});

describe('[campaign.tag-placement] a tag stands only where a value cannot change the HTML', () => {
  it.each([
    ['text', '<p>Hi {name}</p>'],
    ['a double-quoted attribute', '<a href="{unsubscription_url}" title="{name}">x</a>'],
    ['a single-quoted attribute', "<img alt='{name}' src='https://x.example/a.png'>"],
    ['a comment', '<!-- for {email} -->'],
    ["Outlook's conditional comment", '<!--[if mso]><p>{name}</p><![endif]-->'],
    ['a title', '<title>{name}</title>'],
    ['a textarea', '<textarea>{name}</textarea>'],
    ['text after a lone brace', '<p>a < {name}</p>'],
    ['text before a comment ends, with a space', '<!-- {name} -->'],
    ['the query of a link', '<a href="https://example.com/?e={email}">x</a>'],
    ['the path of a relative link', '<a href="/people/{name}">x</a>'],
    ['a mailto link', '<a href="mailto:{email}">x</a>'],
    ['after our unsubscribe link', '<a href="{unsubscription_url}&amp;s={name}">x</a>'],
  ])('accepts a tag in %s', (_where, body) => {
    expect(accepted(contentInput({ html: page(body) })).content.html).toBe(page(body));
  });

  it.each([
    ['an unquoted attribute value', '<a href={unsubscription_url}>x</a>', "inside a tag's markup"],
    ['an attribute name', '<p {name}>x</p>', "inside a tag's markup"],
    ['an attribute name after a value', '<p title="a"{name}>x</p>', "inside a tag's markup"],
    ['a tag name', '<p{name}>x</p>', "inside a tag's markup"],
    ['an end tag', '</p{name}>', "inside a tag's markup"],
    ['a doctype', '<!DOCTYPE {name}>', "inside a tag's markup"],
    ['an unterminated tag', '<a title="{name}', "inside a tag's markup"],
    ['a style block', '<style>p { content: "{name}" }</style>', 'inside <style>'],
    ['a script', '<script>var n = "{name}";</script>', 'inside <script>'],
    ['an iframe', '<iframe>{name}</iframe>', 'inside <iframe>'],
    [
      "an attribute name in Outlook's conditional comment",
      '<!--[if mso]><p {name}>x</p><![endif]-->',
      "inside a tag's markup",
    ],
    ['text right after <', '<p>1 <{name}></p>', "right after '<'"],
    ['a bogus comment after </', '</{name}>', "right after '<'"],
    ['a bogus comment after <!-', '<!-{name}>', "right after '<'"],
    ['a title right after </ti', '<title></ti{name}></title>', "right after '<'"],
    ['a comment right before -->', '<!--{name}-->', "right before the '>' that ends a comment"],
    [
      'a comment before tags and -->',
      '<!-- {name}{email}-->',
      "right before the '>' that ends a comment",
    ],
    ['the start of a link', '<a href="{name}">x</a>', "before the address's scheme and host"],
    [
      'the host of a link',
      '<a href="https://{name}/x">x</a>',
      "before the address's scheme and host",
    ],
    [
      'a javascript: link',
      '<a href="javascript:{name}">x</a>',
      "before the address's scheme and host",
    ],
    ['an image address', '<img src="{email}">', "before the address's scheme and host"],
    ['a srcset', '<img srcset="a.png 1x, {name} 2x">', 'a list of addresses'],
  ])('refuses a tag in %s', (_where, body, where) => {
    // Act
    const error = refused(contentInput({ html: page(body) }));

    // Assert
    expect(error.code).toBe('invalid_parameter');
    expect(error.message).toMatch(/^html: the tag \{\w+\} stands /);
    expect(error.message).toContain(where);
  });

  it('refuses HTML whose end would swallow the unsubscribe footer', () => {
    for (const html of [
      '<p>x</p><!-- open',
      '<p>x</p><style>p{}',
      '<p>x</p><a title="x',
      '<p>x</p><p',
    ]) {
      expect(refused(contentInput({ html })).message).toMatch(/^html: the HTML ends inside/);
    }
  });
});

describe('where exactly a tag may stand in the HTML part', () => {
  it.each([
    ['a template', '<template><p>Hi {name}</p></template>'],
    ['text, right before >', '<p>{name}></p>'],
    ['a template, right before >', '<template>{name}></template>'],
    [
      'a <style> inside SVG, whose text is decoded',
      '<svg><style>.a{fill:red} {name}</style></svg>',
    ],
    ['SVG text', '<svg><text>{name}</text></svg>'],
    [
      'an SVG xlink:href query',
      '<svg><a xlink:href="https://example.com/?e={email}"><text>x</text></a></svg>',
    ],
    ['an SVG attribute whose name has capitals', '<svg viewBox="0 0 {name} 10"></svg>'],
    ['a quoted value after spaces around =', '<p title= "{name}">x</p>'],
    ['a path after a space', '<a href="/ {name}">x</a>'],
    ['a query that names a code scheme', '<a href="/search?q=data:{name}">x</a>'],
    ['a path with a double slash', '<a href="/files//{name}">x</a>'],
    ['the path of a protocol-relative link', '<a href="//example.com/{name}">x</a>'],
  ])('[campaign.tag-placement] accepts a tag in %s', (_where, body) => {
    expect(accepted(contentInput({ html: page(body) })).content.html).toBe(page(body));
  });

  it.each([
    [
      'an Outlook conditional comment right before >, as other clients read a comment',
      '<!--[if mso]><p>{name}></p><![endif]-->',
      "right before the '>' that ends a comment",
    ],
    ['SVG text right before >', '<svg><text>{name}></text></svg>', "right before the '>'"],
    [
      'an unquoted value after a quoted one',
      '<p class="x" title={name}>x</p>',
      "inside a tag's markup",
    ],
    ['an unquoted value holding a quote', '<p title=a="{name}">x</p>', "inside a tag's markup"],
    ['a scheme split by a newline', '<a href="ht\ntps://{name}/">x</a>', 'before the address'],
    [
      'a link that starts with spaces and one slash',
      '<a href="  /{name}">x</a>',
      'before the address',
    ],
    ['a link of one slash', '<a href="/{name}">x</a>', 'before the address'],
    ['a protocol-relative host', '<a href="//{name}/x">x</a>', 'before the address'],
    [
      'the end of a protocol-relative host',
      '<a href="//example.com{name}">x</a>',
      'before the address',
    ],
    ['the end of a host', '<a href="https://example.com{name}">x</a>', 'before the address'],
    ['an https link without a host', '<a href="https:?a:b/{name}">x</a>', 'before the address'],
    [
      'a relative link that could still become a scheme',
      '<a href="ab{name}">x</a>',
      'before the address',
    ],
  ])('[campaign.tag-placement] refuses a tag in %s', (_where, body, where) => {
    // Act
    const error = refused(contentInput({ html: page(body) }));

    // Assert
    expect(error.message).toMatch(/^html: the tag \{\w+\} stands /);
    expect(error.message).toContain(where);
  });

  it('[campaign.tag-placement] refuses HTML that ends inside a <template> or a comment, even after a link of its own', () => {
    for (const html of ['<p>x</p><template>', '<p><a>top</a></p><!-- open']) {
      const error = refused(contentInput({ html }));
      expect(error.code).toBe('invalid_parameter');
      expect(error.message).toMatch(/^html: the HTML ends inside/);
    }
  });
});

describe('[campaign.text-part] without a text part, html-to-text derives one in which tags stay tags', () => {
  it('keeps tags in headings (in their own case), links, image alt texts and table cells', () => {
    // Act
    const text = deriveTextPart(NEWSLETTER_HTML);

    // Assert
    expect(text).toBe(
      [
        'Hello {name} {surname}!',
        '',
        'We write to {email} in {profile_city}, member {profile_1}.',
        '',
        'Logo for {name}',
        '',
        'Unsubscribe [{unsubscription_url}]',
      ].join('\n'),
    );
  });

  it('keeps links with their URLs, once when the text is the URL', () => {
    // Act
    const text = deriveTextPart(
      page(
        '<p><a href="https://news.example.com/a?x=1&amp;y=2">Read more</a> <a href="https://news.example.com/b">https://news.example.com/b</a></p>',
      ),
    );

    // Assert
    expect(text).toBe('Read more [https://news.example.com/a?x=1&y=2] https://news.example.com/b');
  });

  it('leaves out styles and scripts, wraps long lines and keeps CSS braces out of the text', () => {
    // Act
    const text = deriveTextPart(
      `<html><head><style>a{color:red}</style></head><body><p>${'word '.repeat(30)}{name}</p><script>x{}</script></body></html>`,
    );

    // Assert
    expect(text).not.toContain('color');
    expect(text).not.toContain('x{}');
    expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThanOrEqual(78);
    expect(text).toContain('{name}');
  });

  it('does not mistake the markers it uses for a tag the operator could write', () => {
    // A noncharacter marker cannot be saved (refused above), so only real tags come back.
    expect(deriveTextPart(page('<h2>{name}</h2><p>{email}{name}</p>'))).toBe(
      '{name}\n\n{email}{name}',
    );
  });

  it('derives the text again as the HTML says, even for an HTML part without words', () => {
    // Act
    const { content, warnings } = accepted(
      contentInput({ html: page('<img src="https://x.example/a.png">') }),
    );

    // Assert
    expect(content.text).toBe('');
    expect(warnings).toEqual([
      'text: the HTML has no text, so the text part derived from it holds only the footer; give a text part.',
    ]);
  });

  it('counts line breaks alone as no text', () => {
    // Act
    const { content, warnings } = accepted(contentInput({ html: page('<br><br>') }));

    // Assert
    expect(content.text.trim()).toBe('');
    expect(warnings).toEqual([
      'text: the HTML has no text, so the text part derived from it holds only the footer; give a text part.',
    ]);
  });
});

describe('the derived text part, in detail', () => {
  it('[campaign.text-part] wraps lines of tags where the tags themselves would wrap', () => {
    // Arrange: 75 and 76 characters, under the 78 a line may hold
    const short = Array.from({ length: 19 }, () => '{a}').join(' ');
    const names = Array.from({ length: 11 }, () => '{name}').join(' ');

    // Act / Assert
    expect(deriveTextPart(`<p>${short}</p>`)).toBe(short);
    expect(deriveTextPart(`<p>${names}</p>`)).toBe(names);
  });

  it('[campaign.tags] names the derived text part when a tag appears only there', () => {
    // Arrange: an escaped brace shows a literal {nmae} in the HTML, a tag in the text part
    const html = '<p>&#123;nmae&#125;</p>';

    // Act
    const error = refused(contentInput({ html }));

    // Assert
    expect(error.code).toBe('unknown_tag');
    expect(error.message).toMatch(/^text \(derived from the HTML\): /);
  });

  it('[campaign.content] leaves web_url out of the content when none is given', () => {
    expect('web_url' in accepted(contentInput()).content).toBe(false);
  });

  it('[campaign.text-part] gives an image as its alt text without the spaces around it', () => {
    expect(deriveTextPart('<p>a<img alt="  Logo  " src="https://x.example/l.png">b</p>')).toBe(
      'aLogob',
    );
  });
});

describe('[campaign.content-size] content fits one database item, and Gmail clipping is warned of', () => {
  const filler = (bytes: number): string => `<p>${'a'.repeat(bytes - 7)}</p>`;

  it('refuses HTML and text over 300 KB together with content_too_large', () => {
    // Arrange
    const html = filler(200 * 1024);

    // Act
    const error = refused(
      contentInput({ html, text: 'b'.repeat(MAX_CONTENT_BYTES - 200 * 1024 + 1) }),
    );

    // Assert
    expect(error).toMatchObject({ code: 'content_too_large', status: 400 });
    expect(error.message).toBe(
      "html and text are 301 KB together; an issue's HTML and text parts may hold 300 KB together (UTF-8), as they are stored in one database item",
    );
  });

  it('accepts exactly the limit, counted in UTF-8 bytes', () => {
    // Arrange: 'é' is two bytes
    const html = filler(200 * 1024);
    const text = 'é'.repeat((MAX_CONTENT_BYTES - 200 * 1024) / 2);

    // Act
    const result = parseCampaignContent(contentInput({ html, text }), settings);

    // Assert
    expect(isNewsletterError(result)).toBe(false);
    expect(
      isNewsletterError(parseCampaignContent(contentInput({ html, text: `${text}a` }), settings)),
    ).toBe(true);
  });

  it('counts a derived text part too', () => {
    // Arrange: the derived text is as long as the HTML's words
    const html = filler(160 * 1024);

    // Act
    const error = refused(contentInput({ html }));

    // Assert
    expect(error.code).toBe('content_too_large');
    expect(error.message).toMatch(/^html and text \(derived from the HTML\) are 32\d KB together/);
  });

  it('refuses HTML alone over the limit before deriving anything', () => {
    expect(refused(contentInput({ html: filler(MAX_CONTENT_BYTES + 1) })).message).toMatch(
      /^html is 301 KB;/,
    );
  });

  it('warns above 102 KB of HTML, not at it', () => {
    // Act
    const at = accepted(contentInput({ html: filler(GMAIL_CLIP_BYTES), text: 'x' }));
    const above = accepted(contentInput({ html: filler(GMAIL_CLIP_BYTES + 1), text: 'x' }));

    // Assert
    expect(at.warnings).toEqual([]);
    expect(above.warnings).toEqual([
      'html is 103 KB: Gmail clips messages above 102 KB and hides the rest, the unsubscribe footer included, behind "View entire message".',
    ]);
  });
});
