/**
 * The local API Gateway does what the template says API Gateway does, on its own (no function
 * involved): the stage throttle answers 429 with the customised gateway response, its headers
 * included (CORS mapped from the request's Origin), and a method the template lacks is the
 * "missing authentication token" response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiGateway, startApiGateway } from '../../infra/local/cloud/api-gateway.ts';
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
  ],
  invokePermissions: [
    {
      functionLogicalId: 'Ping',
      sourceArn: 'arn:aws:execute-api:us-east-1:123456789012:local/api/*/ping',
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
