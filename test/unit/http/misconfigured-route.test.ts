import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { apiHandler } from '../../../functions/http/api-handler.ts';
import { createFunctionRuntime } from '../../../functions/http/function-runtime.ts';
import { route } from '../../../functions/route-table/subscribers-list.ts';

const requestId = '6b1f0c3a-2d4e-4f5a-9b8c-7d6e5f4a3b2c';

/** A keyed POST /subscribers with `api_key` in its body. */
function keyedCall(apiKey: string): APIGatewayProxyEvent {
  return {
    httpMethod: 'POST',
    path: '/subscribers',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
    isBase64Encoded: false,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { requestId },
  } as unknown as APIGatewayProxyEvent;
}

const context = {
  awsRequestId: 'lambda-id',
  functionName: 'subscribers-list',
} as unknown as Context;

describe('a keyed route whose composition root wired no key loader', () => {
  it('[http.error-shape] answers a 500 that names the missing apiKey and carries the request id, and runs nothing', async () => {
    // Arrange
    let ran = false;
    const handler = apiHandler(route, createFunctionRuntime(), {}, async () => {
      ran = true;
      return [];
    });
    // Act
    const response = await handler(keyedCall('any key'), context);
    // Assert
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({
      code: 'internal_error',
      message: 'The service is misconfigured: apiKey is not configured.',
      data: { status: 500, request_id: requestId },
    });
    expect(ran).toBe(false);
  });

  it('[http.error-shape] with the loader wired, the key is checked as usual: a wrong key is a 403', async () => {
    const handler = apiHandler(
      route,
      createFunctionRuntime(),
      { apiKey: async () => 'the configured key' },
      async () => [],
    );
    const response = await handler(keyedCall('a wrong key'), context);
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'forbidden' });
  });
});
