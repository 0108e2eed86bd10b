/**
 * The web version of an issue under the local stack: the operator's CLI writes and sends an
 * issue through the synthesized engine, its mails carry a "view in your browser" link, and the
 * keyless `GET {api_root}/newsletters/{id}/view` (its own function, role and API Gateway
 * resource with a path parameter) serves the sent, public issue as a page holding nobody's
 * data; a draft, a private, an unknown issue or a path segment that is no id is a JSON 404.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  addressesOf,
  type CampaignOperator,
  campaignOperator,
} from './support/campaign-operator.ts';
import {
  type LocalService,
  listUnsubscribeUrl,
  startLocalService,
} from './support/local-service.ts';

vi.setConfig({ testTimeout: 120_000 });

let service: LocalService;
let operator: CampaignOperator;

const READERS = ['wv-ada@example.net', 'wv-grace@example.net'];
const SUBJECT = 'Web version issue';
let sentId = 0;

beforeAll(async () => {
  service = await startLocalService();
  operator = await campaignOperator(service);
  for (const email of READERS) await operator.add(email, [4]);
  sentId = await operator.createIssue(SUBJECT, [4]);
  await operator.cliOk('newsletters', 'send', String(sentId));
  await service.stack.settled();
});

afterAll(async () => {
  await operator?.close();
  await service?.stop();
});

const viewPath = (id: number | string) => `/newsletters/${id}/view`;

describe('[campaign.web-version] GET {api_root}/newsletters/{id}/view', () => {
  it('serves a sent, public issue as a cacheable HTML page without anyone’s data', async () => {
    // Act
    const page = await service.get(viewPath(sentId), {}, { Origin: 'https://site.example' });

    // Assert
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('public, max-age=300');
    expect(page.headers.get('access-control-allow-origin')).toBe('*');
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox /);
    expect(page.text).toContain('<h1>Hello </h1>');
    expect(page.text).toContain('<p>This went to .</p>');
    // The content's unsubscribe link leads to the tokenless page: nobody's link.
    const rootPath = new URL(service.apiRoot).pathname;
    expect(page.text).toContain(`<a href="${rootPath}/subscription/unsubscribe">`);
    expect(page.text).not.toMatch(/token=|\{(name|email|unsubscription_url)\}/);
    for (const email of READERS) {
      expect(page.text).not.toContain(email);
      expect(page.text).not.toContain(email.split('@')[0]);
    }
    // The same page with a trailing slash, as every route.
    expect((await service.get(`${viewPath(sentId)}/`)).text).toBe(page.text);
  });

  it('answers 404 in the JSON error shape for a draft, a private and an unknown issue', async () => {
    // Arrange: a draft, and a sent issue the operator then makes private.
    const draft = await operator.createIssue('Web version draft', [4]);
    const hidden = await operator.createIssue('Web version private', [4]);
    await operator.cliOk('newsletters', 'send', String(hidden));
    await service.stack.settled();
    expect((await service.get(viewPath(hidden))).status).toBe(200);
    await operator.cliOk('newsletters', 'edit', String(hidden), '--private', 'true');

    // Act
    const answers = await Promise.all(
      [draft, hidden, 999_999].map((id) =>
        service.get(viewPath(id), {}, { Origin: 'https://x.example' }),
      ),
    );

    // Assert: one answer for all three, so the page tells nobody which drafts exist.
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.json).toEqual({
        code: 'not_found',
        message: 'There is no published newsletter with this id.',
        data: { status: 404 },
      });
    }
  });

  it('answers 4xx, never 5xx, to a path segment that is no id, and 405 to another method', async () => {
    // Act
    const odd = await Promise.all(
      [
        '0',
        '007',
        'abc',
        '-1',
        '1.5',
        '%2e%2e',
        '%00',
        'x%20y',
        '9'.repeat(40),
        '%F0%9F%98%80',
      ].map((id) => service.get(viewPath(id))),
    );
    const post = await service.post(viewPath(sentId), {});
    const preflight = await service.request('OPTIONS', viewPath(sentId), {
      headers: { Origin: 'https://site.example', 'Access-Control-Request-Method': 'GET' },
    });
    const deeper = await service.get(`${viewPath(sentId)}/more`);

    // Assert
    expect(odd.map((answer) => answer.status)).toEqual(odd.map(() => 404));
    expect(odd.every((answer) => (answer.json as { code?: string }).code === 'not_found')).toBe(
      true,
    );
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
    expect(deeper.status).toBe(404);
  });
});

describe('[campaign.web-version-link] campaign mails link to the web version', () => {
  it('carries “View this newsletter in your browser” in both parts, leading to the page', async () => {
    // Arrange
    const mails = await operator.mailsOf(SUBJECT);
    expect(addressesOf(mails)).toEqual([...READERS].sort());
    const link = `${service.apiRoot}${viewPath(sentId)}`;

    // Assert: in the footer, before the unsubscribe header's link is needed.
    for (const mail of mails) {
      expect(mail.body.text).toContain(`View this newsletter in your browser: ${link}`);
      expect(mail.body.html).toContain(
        `<a href="${link}" style="color:#6b7280" ses:no-track>View this newsletter in your browser</a>`,
      );
      expect(listUnsubscribeUrl(mail)).toMatch(/\/subscription\/unsubscribe\?token=/);
    }
    const page = await service.get(link);
    expect(page.status).toBe(200);
  });

  it('is in a test mail too, and not in the mails of a private issue', async () => {
    // Arrange
    const hidden = await operator.createIssue('Web version private mail', [4]);
    await operator.cliOk('newsletters', 'edit', String(hidden), '--private', 'true');

    // Act
    await operator.cliOk('newsletters', 'test', String(sentId), '--to', 'wv-test@example.net');
    await operator.cliOk('newsletters', 'send', String(hidden));
    await service.stack.settled();

    // Assert
    const [test] = await service.mails('wv-test@example.net');
    expect(test?.body.text).toContain(`${service.apiRoot}${viewPath(sentId)}`);
    const privateMails = await operator.mailsOf('Web version private mail');
    expect(privateMails).toHaveLength(READERS.length);
    for (const mail of privateMails) {
      expect(mail.body.text).not.toContain('View this newsletter in your browser');
      expect(mail.body.html).not.toContain('/view');
    }
  });
});
