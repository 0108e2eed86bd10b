import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../functions/http/parse-request.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';

/** A multipart body as a client frames it: one part per field, CRLF line ends. */
function multipart(boundary: string, fields: readonly [string, string][]): string {
  const parts = fields.map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return `${parts.join('')}--${boundary}--\r\n`;
}

const event = (contentType: string, body: string) => ({
  headers: { 'Content-Type': contentType },
  body,
  isBase64Encoded: false,
  multiValueQueryStringParameters: null,
});

describe('[http.body-types] multipart/form-data', () => {
  it.each([
    ['a one-character boundary that occurs in a value', 'b', 'bob@example.com'],
    ['a value holding the boundary token', 'AaB03x', 'before--AaB03xafter'],
    ['a browser-style boundary', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'ada@example.com'],
  ])('reads %s', async (_case, boundary, value) => {
    const parsed = await parseRequest(
      event(
        `multipart/form-data; boundary=${boundary}`,
        multipart(boundary, [
          ['email', value],
          ['lists[]', '1'],
          ['lists[]', '2'],
        ]),
      ),
    );
    expect(isNewsletterError(parsed)).toBe(false);
    expect({ ...(parsed as object) }).toEqual({ email: value, 'lists[]': ['1', '2'] });
  });

  it('answers a body without its closing delimiter with malformed_body', async () => {
    const parsed = await parseRequest(
      event(
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nada',
      ),
    );
    expect(isNewsletterError(parsed) && parsed.code).toBe('malformed_body');
  });
});
