import type { APIGatewayProxyEvent } from 'aws-lambda';

/** Case-insensitive header lookup; API Gateway passes header names as the client wrote them. */
export function header(
  event: Pick<APIGatewayProxyEvent, 'headers'>,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}
