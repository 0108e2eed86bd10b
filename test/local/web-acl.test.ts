/**
 * The local cloud's AWS WAF (infra/local/cloud/web-acl.ts) applies a web ACL as AWS WAF does,
 * and refuses to run what it does not know; the local distribution's path patterns and its
 * run of the template's viewer-request function (infra/local/cloud/cloudfront.ts).
 */
import { describe, expect, it } from 'vitest';
import { apiViewerRequestFunctionCode } from '../../infra/cdk/api-viewer-request.ts';
import { pathPatternMatches } from '../../infra/local/cloud/cloudfront.ts';
import type { DeployedWebAcl } from '../../infra/local/cloud/deployed-stack.ts';
import type { Resolved } from '../../infra/local/cloud/intrinsics.ts';
import { LocalWebAcl, type WebAclRequest } from '../../infra/local/cloud/web-acl.ts';

const path = (searchString: string) => ({
  ByteMatchStatement: {
    FieldToMatch: { UriPath: {} },
    PositionalConstraint: 'EXACTLY',
    SearchString: searchString,
    TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }],
  },
});

function acl(rules: Resolved[]): DeployedWebAcl {
  return {
    logicalId: 'Acl',
    scope: 'REGIONAL',
    properties: {
      DefaultAction: { Allow: {} },
      Rules: rules,
      CustomResponseBodies: {
        limited: { ContentType: 'APPLICATION_JSON', Content: '{"code":"rate_limited"}' },
      },
    },
  };
}

const request = (overrides: Partial<WebAclRequest> = {}): WebAclRequest => ({
  ip: '192.0.2.1',
  method: 'POST',
  path: '/api/newsletter/v1/subscribe',
  headers: {},
  ...overrides,
});

describe('[http.client-limits] the local AWS WAF', () => {
  it('counts per address within the rule scope, blocks past the limit with the custom response, and forgets after the window', () => {
    let now = 0;
    const waf = new LocalWebAcl(
      acl([
        {
          Name: 'SignUp',
          Priority: 1,
          Statement: {
            RateBasedStatement: {
              Limit: 2,
              EvaluationWindowSec: 60,
              AggregateKeyType: 'IP',
              ScopeDownStatement: path('/api/newsletter/v1/subscribe'),
            },
          },
          Action: {
            Block: {
              CustomResponse: {
                ResponseCode: 429,
                CustomResponseBodyKey: 'limited',
                ResponseHeaders: [{ Name: 'Access-Control-Allow-Origin', Value: '*' }],
              },
            },
          },
        },
      ]),
      () => now,
    );
    expect(waf.evaluate(request()).action).toBe('allow');
    // Percent-encoded, it is the same path after URL_DECODE, and counted.
    expect(waf.evaluate(request({ path: '/api/newsletter/v1/%73ubscribe' })).action).toBe('allow');
    expect(waf.evaluate(request())).toEqual({
      action: 'block',
      rule: 'SignUp',
      status: 429,
      headers: { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' },
      body: '{"code":"rate_limited"}',
    });
    // Another address, and another path, are not counted with it.
    expect(waf.evaluate(request({ ip: '192.0.2.2' })).action).toBe('allow');
    expect(waf.evaluate(request({ path: '/api/newsletter/v1/newsletters' })).action).toBe('allow');
    now += 60_001;
    expect(waf.evaluate(request()).action).toBe('allow');
  });

  it('aggregates by the first address of a forwarded header; an invalid one falls back as the rule says', () => {
    const waf = new LocalWebAcl(
      acl([
        {
          Name: 'Everything',
          Priority: 1,
          Statement: {
            RateBasedStatement: {
              Limit: 1,
              AggregateKeyType: 'FORWARDED_IP',
              ForwardedIPConfig: { HeaderName: 'X-Viewer', FallbackBehavior: 'MATCH' },
            },
          },
          Action: { Block: {} },
        },
      ]),
    );
    const from = (viewer: string | undefined) =>
      waf.evaluate(request({ headers: viewer === undefined ? {} : { 'x-viewer': viewer } })).action;
    expect(from('203.0.113.1, 10.0.0.1')).toBe('allow');
    expect(from('203.0.113.1')).toBe('block');
    expect(from('203.0.113.2')).toBe('allow');
    expect(from('not an address')).toBe('block');
    // Without the header AWS WAF does not apply the rule.
    expect(from(undefined)).toBe('allow');
  });

  it('[http.front-door] blocks what lacks a header of one of the values, Not and Or as AWS WAF reads them', () => {
    const header = (value: string) => ({
      ByteMatchStatement: {
        FieldToMatch: { SingleHeader: { Name: 'x-newsletter-origin' } },
        PositionalConstraint: 'EXACTLY',
        SearchString: value,
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    });
    const waf = new LocalWebAcl(
      acl([
        {
          Name: 'Origin',
          Priority: 0,
          Statement: {
            NotStatement: {
              Statement: { OrStatement: { Statements: [header('new'), header('old')] } },
            },
          },
          Action: { Block: {} },
        },
      ]),
    );
    const verdict = (headers: Record<string, string>) => waf.evaluate(request({ headers })).action;
    expect(verdict({ 'x-newsletter-origin': 'new' })).toBe('allow');
    expect(verdict({ 'x-newsletter-origin': 'old' })).toBe('allow');
    expect(verdict({ 'x-newsletter-origin': 'NEW' })).toBe('block');
    expect(verdict({})).toBe('block');
  });

  it('refuses a statement or a transformation it does not know, as it is read', () => {
    expect(
      () =>
        new LocalWebAcl(
          acl([
            {
              Name: 'Geo',
              Priority: 0,
              Statement: { GeoMatchStatement: {} },
              Action: { Block: {} },
            },
          ]),
        ),
    ).toThrow(/cannot run GeoMatchStatement/);
    expect(
      () =>
        new LocalWebAcl(
          acl([
            {
              Name: 'Odd',
              Priority: 0,
              Statement: {
                ByteMatchStatement: {
                  FieldToMatch: { UriPath: {} },
                  PositionalConstraint: 'EXACTLY',
                  SearchString: '/',
                  TextTransformations: [{ Priority: 0, Type: 'COMPRESS_WHITE_SPACE' }],
                },
              },
              Action: { Block: {} },
            },
          ]),
        ),
    ).toThrow(/cannot apply COMPRESS_WHITE_SPACE/);
  });
});

describe('the local distribution', () => {
  it('matches CloudFront path patterns: * any characters, ? one', () => {
    expect(pathPatternMatches('/api/newsletter/*', '/api/newsletter/v1/subscribe')).toBe(true);
    expect(pathPatternMatches('/api/newsletter/*', '/api/newsletters')).toBe(false);
    expect(pathPatternMatches('/preview.html', '/preview.html')).toBe(true);
    expect(pathPatternMatches('/preview.html', '/previewxhtml')).toBe(false);
    expect(pathPatternMatches('/a?c', '/abc')).toBe(true);
  });

  it("[http.front-door] the API's viewer-request function writes over what a viewer sent", async () => {
    const { createContext, Script } = await import('node:vm');
    const context = createContext({});
    new Script(apiViewerRequestFunctionCode()).runInContext(context);
    const handler = (
      context as { handler: (event: unknown) => { headers: Record<string, { value: string }> } }
    ).handler;
    const out = handler({
      viewer: { ip: '192.0.2.7' },
      request: {
        headers: {
          host: { value: 'news.example.com' },
          'x-newsletter-viewer-ip': { value: '203.0.113.1' },
          'x-newsletter-viewer-host': { value: 'evil.example' },
        },
      },
    });
    expect(out.headers['x-newsletter-viewer-ip']).toEqual({ value: '192.0.2.7' });
    expect(out.headers['x-newsletter-viewer-host']).toEqual({ value: 'news.example.com' });
  });
});
