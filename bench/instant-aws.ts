/**
 * AWS endpoints that answer at once, for measuring the product's own CPU: a `requestHandler`
 * for real AWS SDK v3 clients (so their serialising, signing and parsing run as deployed) that
 * answers every request in-process with a canned HTTP response, never opening a socket. Its
 * answers are generic by operation, not by the caller's calls: DynamoDB reads return the items
 * `lookup` gives for their keys, writes succeed (an update that asks for its values gets the
 * item `lookup` gives), queries find nothing; SES takes every mail. A change of which calls a
 * worker makes needs no change here unless it calls an operation not listed.
 */

/** A DynamoDB attribute value, as the wire carries it. */
type AttributeValue = Record<string, unknown>;

/** A plain item (strings, numbers, booleans, lists, maps) by its key's `pk` and `sk`. */
export type ItemLookup = (pk: string, sk: string) => Record<string, unknown> | undefined;

/** What the SDK hands a request handler, as far as this one reads it. */
interface SdkRequest {
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

/** A request handler the SDK clients take as `requestHandler`. */
export interface InstantHandler {
  handle(request: SdkRequest): Promise<{ response: InstantResponse }>;
  updateHttpClientConfig(): void;
  httpHandlerConfigs(): Record<string, never>;
}

interface InstantResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The request body as text, or its first `limit` characters (the SDK gives a string or bytes). */
function bodyText(body: unknown, limit = Number.POSITIVE_INFINITY): string {
  if (typeof body === 'string') return body.slice(0, limit);
  if (body instanceof Uint8Array) return decoder.decode(body.subarray(0, limit));
  return '';
}

function respond(contentType: string, body: string): { response: InstantResponse } {
  return {
    response: {
      statusCode: 200,
      headers: { 'content-type': contentType, 'x-amzn-requestid': 'instant' },
      body: encoder.encode(body),
    },
  };
}

/** A plain value as DynamoDB's JSON wire format writes it. */
export function attributeValue(value: unknown): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value === null || value === undefined) return { NULL: true };
  if (Array.isArray(value)) return { L: value.map(attributeValue) };
  return {
    M: Object.fromEntries(Object.entries(value).map(([key, each]) => [key, attributeValue(each)])),
  };
}

const wireItem = (item: Record<string, unknown>): Record<string, AttributeValue> =>
  attributeValue(item).M as Record<string, AttributeValue>;

/** DynamoDB's answers, by operation (the `X-Amz-Target` header), from the request's JSON. */
function dynamoAnswer(operation: string, input: Record<string, unknown>, lookup: ItemLookup) {
  const find = (key: unknown) => {
    const { pk, sk } = key as { pk?: { S?: string }; sk?: { S?: string } };
    const item = lookup(pk?.S ?? '', sk?.S ?? '');
    return item ? wireItem(item) : undefined;
  };
  switch (operation) {
    case 'GetItem': {
      const item = find(input.Key);
      return item ? { Item: item } : {};
    }
    case 'BatchGetItem': {
      const requests = input.RequestItems as Record<string, { Keys: unknown[] }>;
      const responses = Object.fromEntries(
        Object.entries(requests).map(([table, { Keys }]) => [
          table,
          Keys.map(find).filter(Boolean),
        ]),
      );
      return { Responses: responses, UnprocessedKeys: {} };
    }
    case 'UpdateItem': {
      const wanted = input.ReturnValues !== undefined && input.ReturnValues !== 'NONE';
      return wanted ? { Attributes: find(input.Key) ?? {} } : {};
    }
    case 'PutItem':
    case 'DeleteItem':
    case 'TransactWriteItems':
      return {};
    case 'BatchWriteItem':
      return { UnprocessedItems: {} };
    case 'Query':
    case 'Scan':
      return { Items: [], Count: 0, ScannedCount: 0 };
    default:
      throw new Error(`instant AWS: DynamoDB ${operation} has no canned answer`);
  }
}

const SES_XMLNS = 'http://ses.amazonaws.com/doc/2010-12-01/';

/** SES's answers (query protocol: `Action=` leads the form body). */
function sesAnswer(action: string): string {
  const result = (inner: string) =>
    `<${action}Response xmlns="${SES_XMLNS}"><${action}Result>${inner}</${action}Result>` +
    `<ResponseMetadata><RequestId>instant</RequestId></ResponseMetadata></${action}Response>`;
  switch (action) {
    case 'SendRawEmail':
      return result('<MessageId>0100-instant-0000</MessageId>');
    case 'GetSendQuota':
      return result(
        '<Max24HourSend>1000000</Max24HourSend><MaxSendRate>1000</MaxSendRate><SentLast24Hours>0</SentLast24Hours>',
      );
    default:
      throw new Error(`instant AWS: SES ${action} has no canned answer`);
  }
}

/** A handler for DynamoDB and SES clients; `lookup` gives the items reads find. */
export function instantAws(lookup: ItemLookup): InstantHandler {
  return {
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
    async handle(request) {
      const target = request.headers['x-amz-target'];
      if (target?.startsWith('DynamoDB_')) {
        const operation = target.slice(target.indexOf('.') + 1);
        const answer = dynamoAnswer(operation, JSON.parse(bodyText(request.body)), lookup);
        return respond('application/x-amz-json-1.0', JSON.stringify(answer));
      }
      // A mail's form body is large: its start names the action.
      const action = /^Action=(\w+)/.exec(bodyText(request.body, 64))?.[1];
      if (action === undefined) throw new Error('instant AWS: a request of no known service');
      return respond('text/xml', sesAnswer(action));
    },
  };
}
