import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { expect, it } from 'vitest';
import { apiHandler } from '../../../functions/http/api-handler.ts';
import { createFunctionRuntime } from '../../../functions/http/function-runtime.ts';
import { route } from '../../../functions/route-table/openapi.ts';

it('[http.error-shape] a thrown bug is a 500 whose data.request_id is the request id, and says nothing of the bug', async () => {
  const handler = apiHandler(route, createFunctionRuntime(), {}, async () => {
    throw new TypeError('a bug with a secret in it');
  });
  const requestId = '0f6a1c2e-9b1d-4e4e-8d55-3c7f0b7e2a11';
  const event = {
    httpMethod: 'GET',
    path: '/openapi.json',
    headers: {},
    body: null,
    isBase64Encoded: false,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { requestId },
  } as unknown as APIGatewayProxyEvent;
  const context = { awsRequestId: 'lambda-id', functionName: 'openapi' } as unknown as Context;

  const response = await handler(event, context);

  expect(response.statusCode).toBe(500);
  expect(JSON.parse(response.body)).toMatchObject({
    code: 'internal_error',
    data: { status: 500, request_id: requestId },
  });
  expect(response.body).not.toContain('secret');
});
