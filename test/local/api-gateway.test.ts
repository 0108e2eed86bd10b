/**
 * The local API Gateway does what the template says API Gateway does, on its own (no function
 * involved): the stage throttle answers 429 with the customised gateway response, its headers
 * included (CORS mapped from the request's Origin), and a method the template lacks is the
 * "missing authentication token" response. Path parameters are matched as API Gateway does.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiGateway,
  matchResource,
  startApiGateway,
} from '../../infra/local/cloud/api-gateway.ts';
import type { DeployedApi, GatewayResponse } from '../../infra/local/cloud/deployed-stack.ts';

const API: DeployedApi = {
  restApiId: 'local',
  stage: 'api',
  binaryMediaTypes: [],
  methods: [
    {
      path: '/ping',
      httpMethod: 'GET',
      integration: { kind: 'lambda', functionLogicalId: 'Ping' },
    },
    {
      path: '/items/{id}/view',
      httpMethod: 'GET',
      integration: { kind: 'lambda', functionLogicalId: 'View' },
    },
  ],
  invokePermissions: [
    {
      functionLogicalId: 'Ping',
      sourceArn: 'arn:aws:execute-api:us-east-1:123456789012:local/api/*/ping',
    },
    {
      // As CDK writes it for a resource with a path parameter: the parameter is a `*`.
      functionLogicalId: 'View',
      sourceArn: 'arn:aws:execute-api:us-east-1:123456789012:local/api/GET/items/*/view',
    },
  ],
  gatewayResponses: new Map<string, GatewayResponse>([
    [
      'THROTTLED',
      {
        statusCode: 429,
        headers: { 'Access-Control-Allow-Origin': { requestHeader: 'Origin' }, Vary: 'Origin' },
        templates: { 'application/json': '{"code":"rate_limited"}' },
      },
    ],
    [
      'MISSING_AUTHENTICATION_TOKEN',
      { statusCode: 404, headers: {}, templates: { 'application/json': '{"code":"not_found"}' } },
    ],
  ]),
  throttle: { rate: 0.001, burst: 2 },
};

let gateway: ApiGateway;
let invocations = 0;

beforeAll(async () => {
  gateway = await startApiGateway({
    api: API,
    port: 0,
    invoke: async () => {
      invocations += 1;
      return { ok: true, result: { statusCode: 200, body: 'pong' } };
    },
  });
});

afterAll(async () => {
  await gateway?.stop();
});

describe('the local API Gateway', () => {
  it('[http.path-parameters] routes a path parameter as API Gateway does', async () => {
    // Arrange: a gateway of its own, without the throttle the other test counts on.
    const seen: APIGatewayProxyEvent[] = [];
    const unthrottled = await startApiGateway({
      api: { ...API, throttle: undefined },
      port: 0,
      invoke: async (_logicalId, event) => {
        seen.push(event as APIGatewayProxyEvent);
        return { ok: true, result: { statusCode: 200, body: 'page' } };
      },
    });
    try {
      // Act
      const view = await fetch(`${unthrottled.stageUrl}/items/7%20x/view/`);
      const unknown = await Promise.all(
        ['/items//view', '/items/7', '/items/7/view/more'].map((path) =>
          fetch(`${unthrottled.stageUrl}${path}`),
        ),
      );

      // Assert: one segment, as sent; the resource with its template, the path as requested.
      expect(view.status).toBe(200);
      expect(seen).toHaveLength(1);
      const [event] = seen;
      expect(event?.pathParameters).toEqual({ id: '7%20x' });
      expect(event?.resource).toBe('/items/{id}/view');
      expect(event?.requestContext.resourcePath).toBe('/items/{id}/view');
      expect(event?.path).toBe('/items/7%20x/view/');
      expect(unknown.map((answer) => answer.status)).toEqual([404, 404, 404]);
    } finally {
      await unthrottled.stop();
    }
  });

  it('[http.path-parameters] prefers a literal segment to a parameter where both match', () => {
    const paths = ['/items/{id}/view', '/items/latest/view', '/items/{id}', '/ping'];
    expect(matchResource(paths, '/items/latest/view')).toEqual({
      path: '/items/latest/view',
      parameters: null,
    });
    expect(matchResource(paths, '/items/8/view')).toEqual({
      path: '/items/{id}/view',
      parameters: { id: '8' },
    });
    expect(matchResource(paths, '/items/8')?.path).toBe('/items/{id}');
    expect(matchResource(paths, '/ping')).toEqual({ path: '/ping', parameters: null });
    expect(matchResource(paths, '/pong')).toBeUndefined();
  });

  it('[http.client-limits] keeps a bucket per method, as API Gateway: a flood of one method throttles no other', async () => {
    // Arrange: every method's default of a burst of 2, and /ping's own of 1.
    const perMethod = await startApiGateway({
      api: {
        ...API,
        throttle: { rate: 0.001, burst: 2 },
        methodThrottles: new Map([['/ping GET', { rate: 0.001, burst: 1 }]]),
      },
      port: 0,
      invoke: async () => ({ ok: true, result: { statusCode: 200, body: 'ok' } }),
    });
    try {
      // Act
      const pings = [];
      for (let i = 0; i < 3; i += 1) pings.push((await fetch(`${perMethod.stageUrl}/ping`)).status);
      const views = [];
      for (let i = 0; i < 3; i += 1)
        views.push((await fetch(`${perMethod.stageUrl}/items/${i}/view`)).status);

      // Assert: /ping's own burst, then the view's default one, each counted apart.
      expect(pings).toEqual([200, 429, 429]);
      expect(views).toEqual([200, 200, 429]);
    } finally {
      await perMethod.stop();
    }
  });

  it('throttles beyond the burst with the customised 429, CORS mapped from the Origin', async () => {
    const call = () =>
      fetch(`${gateway.stageUrl}/ping`, { headers: { Origin: 'https://site.example' } });
    const answers = [await call(), await call(), await call()];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    const throttled = answers[2] as Response;
    expect(throttled.headers.get('access-control-allow-origin')).toBe('https://site.example');
    expect(throttled.headers.get('vary')).toBe('Origin');
    expect(await throttled.json()).toEqual({ code: 'rate_limited' });
    expect(invocations).toBe(2);
  });
});
