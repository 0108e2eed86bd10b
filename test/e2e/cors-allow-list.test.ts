/**
 * [http.cors] with an allow-list of origins: a deployment of its own (`cdk synth -c
 * corsOrigins=...`), run as deployed. The origins live in the template only (the API's
 * responses and the functions' environment), so its synth writes the template and the
 * functions run the bundles this run's synth built for the same code.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { synthesize } from '../../infra/local/synthesize.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

const ALLOWED = ['https://www.example.com', 'https://shop.example.com'];
let scratch: string;
let stack: TestStack;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cors-synth-'));
  const cdkOut = await synthesize({
    outdir: join(scratch, 'cdk.out'),
    parameterCacheSeconds: 0,
    bundle: false,
    context: { corsOrigins: ALLOWED.join(',') },
  });
  stack = await startTestStack({ cdkOut, bundlesFrom: inject('cdkOut') });
  // A synth of its own: about 15 s idle, several times that on a loaded machine.
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const get = (path: string, origin: string) =>
  fetch(`${stack.apiRoot}${path}`, { headers: { Origin: origin } });

describe('[http.cors] an allow-list of origins', () => {
  it('answers an allowed origin with that origin and Vary: Origin', async () => {
    for (const origin of ALLOWED) {
      const response = await get('/newsletters', origin);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('vary')).toBe('Origin');
    }
  });

  it('[campaign.web-version] answers the web version as the other public routes, its 404 too', async () => {
    const allowed = await get('/newsletters/999/view', 'https://shop.example.com');
    expect(allowed.status).toBe(404);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(allowed.headers.get('vary')).toBe('Origin');
    const other = await get('/newsletters/999/view', 'https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('gives another origin no Access-Control-Allow-Origin, preflight included', async () => {
    const response = await get('/newsletters', 'https://evil.example');
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
    const preflight = await fetch(`${stack.apiRoot}/subscribe`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("API Gateway's own answers echo the origin they cannot check (error shape only)", async () => {
    const response = await get('/no-such-endpoint', 'https://shop.example.com');
    expect(response.status).toBe(404);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(response.headers.get('vary')).toBe('Origin');
    expect(await response.json()).toMatchObject({ code: 'not_found' });
  });
});
