/**
 * Real websites calling the API (decisions part 1): CORS on the public routes and never on the
 * keyed ones, and a browser's plain form post to /subscribe landing on a page.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshAddresses } from '../support/fixtures.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;
const SITE = 'https://shop.example.net';
/** What a browser sends for a navigation (a plain form submission). */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(async () => {
  await service?.stop();
});

afterEach(() => {
  service.resetSettings();
});

/** A fresh address per call, so tests never see each other's subscribers. */
const address = freshAddresses();

const preflight = (path: string) =>
  service.request('OPTIONS', path, {
    headers: {
      Origin: SITE,
      'Access-Control-Request-Method': path === '/newsletters' ? 'GET' : 'POST',
      'Access-Control-Request-Headers': 'content-type',
    },
  });

describe('[http.cors] CORS on the public routes', () => {
  it.each([
    ['/subscribe', 'POST, OPTIONS'],
    ['/newsletters', 'GET, OPTIONS'],
    ['/openapi.json', 'GET, OPTIONS'],
  ])(
    '%s answers a preflight with 204, the origin, methods, headers and a max-age',
    async (path, methods) => {
      const response = await preflight(path);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toBe(methods);
      expect(response.headers.get('access-control-allow-headers')).toBe(
        'Content-Type, Authorization',
      );
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    },
  );

  it('every answer carries Access-Control-Allow-Origin: success, errors, 429, and the gateway own', async () => {
    const headers = { Origin: SITE };
    const ok = await service.post('/subscribe', { email: address('cors') }, { headers });
    const bad = await service.post('/subscribe', { email: 'nope' }, { headers });
    const listed = await service.get('/newsletters', {}, headers);
    const described = await service.get('/openapi.json', {}, headers);
    const unknownPath = await service.get('/no-such-endpoint', {}, headers);
    service.setSettings({ public_rate_limit: { max_requests: 1, window_minutes: 10 } });
    // The limit counts in fixed windows: two calls either side of a window's end are both
    // allowed (a run at 12:40:00 saw it), so a third call is in the second one's window.
    let limited = await service.post('/subscribe', { email: address('cors') }, { headers });
    for (let call = 0; call < 2 && limited.status !== 429; call += 1)
      limited = await service.post('/subscribe', { email: address('cors') }, { headers });
    expect([
      ok.status,
      bad.status,
      listed.status,
      described.status,
      unknownPath.status,
      limited.status,
    ]).toEqual([200, 400, 200, 200, 404, 429]);
    for (const response of [ok, bad, listed, described, unknownPath, limited]) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('[http.cors-authorization] a preflight asking for authorization, content-type is allowed, and the bearer header is ignored', async () => {
    const response = await service.request('OPTIONS', '/subscribe', {
      headers: {
        Origin: SITE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(response.status).toBe(204);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '')
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    // The call itself: keyless whatever the bearer says, never a 403.
    const email = address('bearer');
    const call = await service.post(
      '/subscribe',
      { email },
      { headers: { Origin: SITE, Authorization: 'Bearer not-a-key' } },
    );
    expect(call.status).toBe(200);
    expect(call.json).toEqual({ email, status: 'pending' });
    expect(call.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each(['/subscribers', '/subscribers/add', '/subscribers/delete', '/unsubscribe'])(
    'keyed route %s answers a cross-origin preflight without any CORS header',
    async (path) => {
      const response = await preflight(path);
      expect(response.status).toBe(405);
      const cors = [...response.headers.keys()].filter((name) =>
        name.startsWith('access-control-'),
      );
      expect(cors).toEqual([]);
      // Nor do its real answers invite a page to read them.
      const real = await service.post(
        path,
        { api_key: service.apiKey },
        { headers: { Origin: SITE } },
      );
      expect(real.headers.get('access-control-allow-origin')).toBeNull();
    },
  );
});

describe('[http.form-page] a browser form post to /subscribe lands on a page', () => {
  const formPost = (fields: Record<string, string>, type: 'form' | 'multipart' = 'form') =>
    service.post('/subscribe', fields, { type, headers: { Accept: BROWSER_ACCEPT, Origin: SITE } });

  it('success: the hosted "check your inbox" page, in both form encodings', async () => {
    for (const type of ['form', 'multipart'] as const) {
      const response = await formPost({ email: address('page') }, type);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.text).toContain('<title>Check your inbox</title>');
    }
  });

  it('an error: the hosted error page in words, with the status, and a link back to the form', async () => {
    const response = await service.post(
      '/subscribe',
      { email: 'not an address' },
      { type: 'form', headers: { Accept: BROWSER_ACCEPT, Referer: `${SITE}/join` } },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.text).toContain('valid e-mail address');
    expect(response.text).toContain(`<a href="${SITE}/join">Back to the form</a>`);
  });

  it("with the operator's URLs: a 303 there, the error code in the query; never a URL from the request", async () => {
    service.setSettings({
      form_success_url: 'https://example.com/thanks?from=form',
      form_error_url: 'https://example.com/sorry',
    });
    const done = await formPost({
      email: address('redirect'),
      redirect: 'https://evil.example/',
      return_url: 'https://evil.example/',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('https://example.com/thanks?from=form');
    const failed = await formPost({ email: 'bad', redirect: 'https://evil.example/' });
    expect(failed.status).toBe(303);
    expect(failed.headers.get('location')).toBe('https://example.com/sorry?error=invalid_email');
  });

  it('JSON clients, fetch() included, keep their JSON answers', async () => {
    const fetchLike = await service.post(
      '/subscribe',
      { email: address('json') },
      { type: 'form', headers: { Accept: '*/*' } },
    );
    expect(fetchLike.json).toMatchObject({ status: 'pending' });
    const json = await service.post(
      '/subscribe',
      { email: address('json') },
      { headers: { Accept: BROWSER_ACCEPT } },
    );
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
