/** An issue's content as saved, and each recipient's mail as rendered from it. */
import fc from 'fast-check';
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import {
  GMAIL_CLIP_BYTES,
  MAX_HTML_BYTES,
  parseCampaignContent,
  textOf,
} from '../../../shared/domain/campaign/campaign-content.ts';
import {
  invalidTransition,
  transitionOf,
} from '../../../shared/domain/campaign/campaign-status.ts';
import { renderCampaign } from '../../../shared/domain/campaign/render-campaign.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { testSettings } from '../../support/fixtures.ts';

const settings = testSettings();
const save = (input: Partial<Parameters<typeof parseCampaignContent>[0]>) =>
  parseCampaignContent({ subject: 'November', html: '<p>Hi</p>', lists: [1], ...input }, settings);

const STYLED = `<html><head><style>
a { color: red }
p{margin:0}
@media (max-width: 600px) { .card { padding: 8px } }
</style></head><body><p class="card">Hello {name} {surname} ({email}), {profile_1} at {profile_company}.</p>
<a href="{unsubscription_url}" title="{name}">Unsubscribe</a></body></html>`;

describe('[campaign.tags] tags are the original’s; other braces are text', () => {
  it('accepts the known tags and the profile fields of the settings', () => {
    const saved = save({ html: STYLED });
    expect(isNewsletterError(saved)).toBe(false);
  });

  it.each(['{nmae}', '{profile_9}', '{Name}', '{unsubscribe_url}'])(
    'refuses %s when the issue is saved, naming it',
    (tag) => {
      const saved = save({ html: `<p>Hello ${tag}</p>` });
      expect(saved).toMatchObject({ code: 'unknown_tag', status: 400 });
      expect(isNewsletterError(saved) && saved.message).toContain(tag);
    },
  );

  it('passes CSS braces through unchanged', () => {
    const rendered = renderCampaign(
      { subject: 'S', html: STYLED, text: 'x {unsubscription_url}' },
      { email: 'a@example.com', name: 'Ada', surname: 'L', profile: { 1: 'London' } },
      { unsubscribeUrl: 'https://n.example.com/u?token=t' },
    );
    expect(rendered.html).toContain('a { color: red }');
    expect(rendered.html).toContain('p{margin:0}');
    expect(rendered.html).toContain('.card { padding: 8px }');
    expect(rendered.html).toContain('Hello Ada L (a@example.com), London at .');
    expect(rendered.html).toContain('href="https://n.example.com/u?token=t" title="Ada"');
  });

  it('refuses tags in the subject: a header never carries a subscriber’s value', () => {
    expect(save({ subject: 'Hello {name}' })).toMatchObject({ code: 'invalid_parameter' });
  });
});

describe('[campaign.render] no value changes the structure of the mail', () => {
  /** Tags, attribute names and text-free structure of an HTML document. */
  const structure = (html: string): string[] => {
    const events: string[] = [];
    const parser = new Parser({
      onopentag: (name, attributes) =>
        events.push(`<${name} ${Object.keys(attributes).join(',')}>`),
      onclosetag: (name) => events.push(`</${name}>`),
      oncomment: () => events.push('<!---->'),
    });
    parser.write(html);
    parser.end();
    return events;
  };
  const values = fc.record({
    email: fc.string(),
    name: fc.oneof(
      fc.string(),
      fc.constantFrom(
        '<b>x</b>',
        '"><script>alert(1)</script>',
        '{name}',
        '{unsubscription_url}',
        '&amp;',
        "'",
        '</style>',
        '\r\nBcc: x@y',
      ),
    ),
    surname: fc.string({ unit: 'grapheme' }),
    profile: fc.dictionary(fc.constantFrom('1', 'company'), fc.string()),
  });
  const neutral = { email: 'e', name: 'n', surname: 's', profile: { 1: 'c', company: 'c' } };
  const url = 'https://n.example.com/u?token=t';

  it('the HTML part keeps its elements and attributes, and the text part its lines', () => {
    const saved = save({ html: STYLED });
    if (isNewsletterError(saved)) throw new Error(saved.message);
    const parts = { ...saved.content, subject: 'S' };
    const expected = renderCampaign(parts, neutral, { unsubscribeUrl: url });
    fc.assert(
      fc.property(values, (recipient) => {
        const rendered = renderCampaign(parts, recipient, { unsubscribeUrl: url });
        expect(structure(rendered.html)).toEqual(structure(expected.html));
        expect(rendered.text.split('\n')).toHaveLength(expected.text.split('\n').length);
        expect(rendered.subject).toBe('S');
      }),
      { numRuns: 300 },
    );
  });

  it('a value is never scanned again for tags', () => {
    const rendered = renderCampaign(
      { subject: 'S', html: '<p>{name} {unsubscription_url}</p>', text: '{name}' },
      { email: 'e', name: '{email}', surname: '', profile: {} },
      { unsubscribeUrl: url },
    );
    expect(rendered.html).toContain('<p>{email} ');
    expect(rendered.text).toContain('{email}');
  });

  it('adds an unsubscribe footer to a part without the link', () => {
    const rendered = renderCampaign(
      { subject: 'S', html: '<html><body><p>Hi</p></body></html>', text: 'Hi' },
      neutral,
      { unsubscribeUrl: url },
    );
    expect(rendered.html).toMatch(
      /<p[^>]*>Unsubscribe: <a href="https:\/\/n\.example\.com\/u\?token=t">.*<\/p>\n<\/body>/,
    );
    expect(rendered.text).toBe(`Hi\n\nUnsubscribe: ${url}\n`);
  });

  it('an empty name and an empty profile field render as nothing, as in the original', () => {
    const rendered = renderCampaign(
      {
        subject: 'S',
        html: '<p>Hi {name}{profile_1}!</p> {unsubscription_url}',
        text: 'x {unsubscription_url}',
      },
      { email: 'e', name: '', surname: '', profile: {} },
      { unsubscribeUrl: url },
    );
    expect(rendered.html).toContain('<p>Hi !</p>');
  });
});

describe('[campaign.text-part] without a text part, it is derived from the HTML', () => {
  it('keeps tags and links, and the case of headings', () => {
    const text = textOf(
      '<h1>Hello {name}</h1><p>Read <a href="{unsubscription_url}">this</a>.</p>',
    );
    expect(text).toContain('Hello {name}');
    expect(text).toContain('this [{unsubscription_url}]');
  });

  it('a given text part is kept as written', () => {
    const saved = save({ text: 'Plain {name}' });
    expect(!isNewsletterError(saved) && saved.content.text).toBe('Plain {name}');
  });
});

describe('[campaign.content-size] content has a stated limit, and Gmail’s clipping is a warning', () => {
  it('refuses an HTML part over the limit', () => {
    const saved = save({ html: `<p>${'x'.repeat(MAX_HTML_BYTES)}</p>` });
    expect(saved).toMatchObject({ code: 'content_too_large', status: 400 });
  });

  it('warns above 102 KB and not below', () => {
    const big = save({ html: `<p>${'x'.repeat(GMAIL_CLIP_BYTES)}</p>` });
    const small = save({ html: `<p>${'x'.repeat(GMAIL_CLIP_BYTES - 100)}</p>` });
    expect(!isNewsletterError(big) && big.warnings[0]).toMatch(/Gmail clips messages above 102 KB/);
    expect(!isNewsletterError(small) && small.warnings).toEqual([]);
  });
});

describe('[campaign.content] what an issue must have', () => {
  it.each([
    [{ subject: '' }, 'invalid_parameter'],
    [{ lists: [] }, 'invalid_parameter'],
    [{ lists: [9] }, 'unknown_list'],
    [{ lists: [1, 1] }, 'invalid_parameter'],
    [{ html: '' }, 'invalid_parameter'],
    [{ web_url: 'ftp://x' }, 'invalid_parameter'],
  ] as const)('refuses %j', (input, code) => {
    expect(save(input)).toMatchObject({ code });
  });
});

describe('[campaign.lifecycle] the transitions', () => {
  it('names where an issue is and from where an action applies', () => {
    expect(transitionOf('cancel').from).toEqual(['scheduled', 'sending', 'paused']);
    expect(invalidTransition(7, 'sent', 'edit').message).toBe(
      'Newsletter 7 is sent; only a draft or scheduled newsletter can be edited.',
    );
    expect(invalidTransition(3, 'draft', 'pause')).toMatchObject({
      code: 'invalid_state',
      status: 409,
    });
  });
});
