/** The web version of an issue: its HTML for nobody, served only for sent, public issues. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  ReadOptions,
  StoredContent,
} from '../../../shared/adapters/store/campaign-store-port.ts';
import type { CampaignRecord } from '../../../shared/domain/campaign/campaign.ts';
import { parseCampaignContent } from '../../../shared/domain/campaign/campaign-content.ts';
import { findTags } from '../../../shared/domain/campaign/campaign-tags.ts';
import { renderWebVersion, webVersionUrlOf } from '../../../shared/domain/campaign/web-version.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import type { NewsletterIssueStatus } from '../../../shared/domain/newsletter-issue.ts';
import { viewNewsletter } from '../../../shared/operations/campaign/view-newsletter.ts';
import { campaignSettings, contentInput, NEWSLETTER_HTML } from './campaign-fixtures.ts';

const UNSUBSCRIBE_PAGE = '/api/newsletter/v1/subscription/unsubscribe';

const issue = (
  status: NewsletterIssueStatus,
  extra: Partial<CampaignRecord> = {},
): CampaignRecord =>
  ({
    id: 7,
    subject: 'Autumn news',
    status,
    created: '2026-10-01T08:00:00.000Z',
    sent_at: status === 'sent' ? '2026-10-02T08:00:00.000Z' : null,
    private: false,
    lists: [1],
    ...extra,
  }) as CampaignRecord;

/** A store holding one issue (id 7) and its content, counting reads; and the settings. */
function storeWith(
  record: CampaignRecord | undefined,
  content: StoredContent | undefined,
  tagFallbacks: Record<string, string> = {},
) {
  const reads: number[] = [];
  const consistency: (boolean | undefined)[] = [];
  const settingsReads: number[] = [];
  return {
    reads,
    consistency,
    settingsReads,
    settings: async () => {
      settingsReads.push(1);
      const settings = campaignSettings();
      return { campaign: { ...settings.campaign, tag_fallbacks: tagFallbacks } };
    },
    campaigns: {
      getCampaign: async (id: number, options?: ReadOptions) => {
        reads.push(id);
        consistency.push(options?.consistent);
        return id === 7 ? record : undefined;
      },
      getContent: async (id: number, options?: ReadOptions) => {
        consistency.push(options?.consistent);
        return id === 7 ? content : undefined;
      },
    },
  };
}

describe('[campaign.web-version] the web version of an issue', () => {
  it('renders the HTML part for nobody: no values, no one’s unsubscribe link, no footer', () => {
    // Arrange: the saved content of the mail fixtures, full of personalisation tags.
    const saved = parseCampaignContent(contentInput(), campaignSettings());
    if (isNewsletterError(saved)) throw new Error(saved.message);

    // Act
    const page = renderWebVersion({ subject: 'Autumn news' }, saved.content, UNSUBSCRIBE_PAGE);

    // Assert: a whole document stays the operator's, every tag is gone.
    expect(page.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(findTags(page)).toEqual([]);
    expect(page).toContain('<title>Autumn news for </title>');
    expect(page).toContain('<h1>Hello  !</h1>');
    expect(page).toContain('<p>We write to  in , member .</p>');
    expect(page).toContain('alt="Logo for " title=\'\'');
    expect(page).toContain(`<a href="${UNSUBSCRIBE_PAGE}" title="Leave, ">Unsubscribe</a>`);
    expect(page).not.toContain('token=');
    expect(page).not.toContain('View this newsletter in your browser');
    expect(page.length).toBeLessThan(NEWSLETTER_HTML.length);
  });

  it('puts a fragment into a document in English, titled with the escaped subject, the content its main landmark', () => {
    // Act
    const page = renderWebVersion(
      { subject: 'Q&A <live>' },
      { html: '<p>Hi {name}, {profile_city} {notatag} a{color:red}</p>' },
      UNSUBSCRIBE_PAGE,
    );

    // Assert
    expect(page).toBe(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Q&amp;A &lt;live&gt;</title>
</head>
<body>
<main>
<p>Hi ,  {notatag} a{color:red}</p>
</main>
</body>
</html>
`);
  });

  it('serves a sent, public issue, and a 404 alike for drafts, private and unknown issues', async () => {
    // Arrange
    const content = { html: '<p>Hello {name}</p>', text: 'Hello {name}' };
    const answer = (record: CampaignRecord | undefined, id: unknown = '7') =>
      viewNewsletter(storeWith(record, content), id, '/api/newsletter/v1/');

    const store = storeWith(issue('sent'), content);

    // Act
    const sent = await viewNewsletter(store, '7', '/api/newsletter/v1/');
    const refused = await Promise.all([
      answer(issue('draft')),
      answer(issue('scheduled')),
      answer(issue('sending')),
      answer(issue('paused')),
      answer(issue('cancelled')),
      answer(issue('sent', { private: true })),
      answer(undefined),
    ]);

    // Assert
    if (isNewsletterError(sent)) throw new Error(sent.message);
    expect(sent.html).toContain('<p>Hello </p>');
    // Both reads eventually consistent: half the units, and sent content never changes.
    expect(store.consistency).toEqual([false, false]);
    expect(new Set(refused.map((each) => JSON.stringify(each)))).toEqual(
      new Set([
        JSON.stringify({
          code: 'not_found',
          message: 'There is no published newsletter with this id.',
          status: 404,
        }),
      ]),
    );
    expect(refused.every(isNewsletterError)).toBe(true);
  });

  it('links {unsubscription_url} to the unsubscribe page under the API root path, however that path ends', async () => {
    // Arrange
    const store = storeWith(issue('sent'), {
      html: '<a href="{unsubscription_url}">Leave</a>',
      text: 'x',
    });
    const hrefUnder = async (apiRootPath: string) => {
      const page = await viewNewsletter(store, '7', apiRootPath);
      if (isNewsletterError(page)) throw new Error(page.message);
      return /href="([^"]*)"/.exec(page.html)?.[1];
    };

    // Act
    const hrefs = await Promise.all(
      ['/api/newsletter/v1', '/api/newsletter/v1/', '/api/newsletter/v1//', '', '/'].map(hrefUnder),
    );

    // Assert: behind a custom domain's root mapping the path is empty, the page still a path.
    expect(hrefs).toEqual([
      UNSUBSCRIBE_PAGE,
      UNSUBSCRIBE_PAGE,
      UNSUBSCRIBE_PAGE,
      '/subscription/unsubscribe',
      '/subscription/unsubscribe',
    ]);
  });

  it('[campaign.empty-values] renders each tag as its fallback of the settings: "Hello reader,"', async () => {
    // Arrange
    const html = '<p>Hello {name} {surname}, {profile_city} {email}.</p>';
    const store = storeWith(
      issue('sent'),
      { html, text: 'x' },
      {
        name: 'reader',
        profile_city: '<your city>',
      },
    );

    // Act
    const page = await viewNewsletter(store, '7', '');
    const draft = storeWith(issue('draft'), { html, text: 'x' }, { name: 'reader' });
    const refused = await viewNewsletter(draft, '7', '');

    // Assert: a tag without a fallback stays empty; a 404 reads no settings.
    if (isNewsletterError(page)) throw new Error(page.message);
    expect(page.html).toContain('<p>Hello reader , &lt;your city&gt; .</p>');
    expect(store.settingsReads).toHaveLength(1);
    expect(isNewsletterError(refused)).toBe(true);
    expect(draft.settingsReads).toEqual([]);
  });

  it('answers 404 for a sent issue whose content is missing', async () => {
    expect(await viewNewsletter(storeWith(issue('sent'), undefined), '7', '')).toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });

  it('answers 404 to anything that is no id, without reading the table', async () => {
    // Arrange
    const store = storeWith(issue('sent'), { html: 'x', text: 'x' });
    const ids = fc.sample(
      fc.oneof(
        fc.string().filter((text) => !/^[1-9][0-9]{0,14}$/.test(text)),
        fc.constantFrom('0', '007', '-7', '+7', '7.0', '1e3', ' 7', '7 ', '%37', '9'.repeat(16)),
        fc.anything().filter((value) => typeof value !== 'string'),
      ),
      300,
    );

    // Act
    const answers = await Promise.all(ids.map((id) => viewNewsletter(store, id, '')));

    // Assert
    expect(answers.every((each) => isNewsletterError(each) && each.status === 404)).toBe(true);
    expect(store.reads).toEqual([]);
  });
});

describe('[campaign.web-version-link] the link in campaign mails', () => {
  const base = 'https://news.example.com/api/newsletter/v1';

  it('points to the web version of a public issue, the operator’s page when it has one', () => {
    expect(webVersionUrlOf({ id: 7, private: false }, base)).toBe(`${base}/newsletters/7/view`);
    expect(webVersionUrlOf({ id: 7, private: false }, `${base}/`)).toBe(
      `${base}/newsletters/7/view`,
    );
    expect(webVersionUrlOf({ id: 7, private: false }, `${base}//`)).toBe(
      `${base}/newsletters/7/view`,
    );
    expect(
      webVersionUrlOf({ id: 7, private: false, url: 'https://example.com/autumn' }, base),
    ).toBe('https://example.com/autumn');
    expect(webVersionUrlOf({ id: 7, private: true, url: 'https://example.com/a' }, base)).toBe(
      'https://example.com/a',
    );
  });

  it('leaves it out for a private issue, whose web version is a 404 for everyone', () => {
    expect(webVersionUrlOf({ id: 7, private: true }, base)).toBeUndefined();
  });
});
