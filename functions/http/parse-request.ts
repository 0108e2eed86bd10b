import { Busboy } from '@fastify/busboy';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  isNewsletterError,
  type NewsletterError,
  newsletterError,
} from '../../shared/domain/errors.ts';
import { header } from './headers.ts';

/** Largest accepted body (decisions part 6); larger is a 400 before any parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Most fields a multipart form may carry; a real form has a handful. */
const MAX_FORM_FIELDS = 200;

/** Parameters as they came, keyed by name; repeated form fields become arrays. */
export type RequestParameters = Record<string, unknown>;

/** A parameter bag whose keys can never reach Object.prototype (`__proto__` stays a key). */
function bag(): RequestParameters {
  return Object.create(null) as RequestParameters;
}

function add(target: RequestParameters, key: string, value: string): void {
  const existing = target[key];
  if (existing === undefined) target[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else target[key] = [existing, value];
}

/** Form fields (urlencoded or query) with repeated names as arrays. */
function fromSearchParams(params: URLSearchParams): RequestParameters {
  const out = bag();
  for (const [key, value] of params) add(out, key, value);
  return out;
}

function fromJson(text: string): RequestParameters | NewsletterError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return newsletterError('malformed_body', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return newsletterError(
      'malformed_body',
      'The JSON body must be an object of named parameters.',
    );
  }
  // Re-home the keys on a null prototype so `{"__proto__": …}` is just an unknown parameter.
  return Object.assign(bag(), value);
}

/**
 * A multipart/form-data body, read by busboy. Node's own parser (`Response.formData()`) was
 * measured as 27 KB lighter but rejects well-framed bodies whose values contain the boundary
 * token (nodejs/undici#5561), so it is not used (docs/benchmarks.md, Decisions). Field names
 * are kept as sent (`profile[3]`, `lists[]`); file parts are drained and ignored (a
 * subscription form has none).
 */
function fromMultipart(
  body: Buffer,
  contentType: string,
): Promise<RequestParameters | NewsletterError> {
  const malformed = newsletterError(
    'malformed_body',
    'The multipart/form-data body could not be read.',
  );
  return new Promise((resolve) => {
    const out = bag();
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        limits: {
          fields: MAX_FORM_FIELDS,
          fieldSize: MAX_BODY_BYTES,
          files: 0,
          parts: MAX_FORM_FIELDS,
        },
      });
    } catch {
      resolve(malformed);
      return;
    }
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('field', (name, value) => add(out, name, value));
    parser.on('finish', () => resolve(out));
    parser.on('error', () => resolve(malformed));
    parser.end(body);
  });
}

/**
 * Reads a request's parameters from its query string and its body (JSON, urlencoded or
 * multipart; base64 bodies from API Gateway decoded). Parameters in the query string of a POST
 * count too, as WordPress merges them (decisions part 1); the body wins over the query for a
 * name in both. Bad bodies are 400s, never thrown.
 */
export async function parseRequest(
  event: Pick<
    APIGatewayProxyEvent,
    'headers' | 'body' | 'isBase64Encoded' | 'multiValueQueryStringParameters'
  >,
): Promise<RequestParameters | NewsletterError> {
  const params = bag();
  for (const [key, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    for (const value of values ?? []) add(params, key, value);
  }
  const raw = event.body ?? '';
  const body = Buffer.from(raw, event.isBase64Encoded ? 'base64' : 'utf8');
  if (body.length > MAX_BODY_BYTES) {
    return newsletterError(
      'body_too_large',
      `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`,
    );
  }
  if (body.length === 0) return params;

  const contentType = header(event, 'content-type') ?? '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  let fromBody: RequestParameters | NewsletterError;
  if (mediaType === 'application/json' || /^application\/[\w.-]+\+json$/.test(mediaType)) {
    fromBody = fromJson(body.toString('utf8'));
  } else if (mediaType === 'application/x-www-form-urlencoded') {
    fromBody = fromSearchParams(new URLSearchParams(body.toString('utf8')));
  } else if (mediaType === 'multipart/form-data') {
    fromBody = await fromMultipart(body, contentType);
  } else {
    return newsletterError(
      'malformed_body',
      'Send parameters as JSON (Content-Type: application/json) or as form fields.',
    );
  }
  if (isNewsletterError(fromBody)) return fromBody;
  return Object.assign(params, fromBody);
}
