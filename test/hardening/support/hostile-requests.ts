/**
 * fast-check arbitraries for hostile HTTP requests: every route and some that do not exist,
 * right and wrong methods, trailing slashes, JSON (with duplicate and prototype keys, deep
 * nesting, wrong types), broken JSON, forms, multipart (well formed and not), wrong or missing
 * content types, bodies over the 64 KiB limit, and hostile e-mail addresses (homoglyphs, CR/LF,
 * NUL, overlong). Mostly invalid on purpose; a valid request now and then gives the suite 200s
 * to account for.
 */
import fc from 'fast-check';
import { routes as allRoutes } from '../../../functions/routes.ts';

/** The v1 routes: these requests go below v1's root (API v2 has test/hardening/hostile-v2.test.ts). */
const routes = allRoutes.filter((route) => !('version' in route && route.version === 'v2'));

/** A JSON value kept as a tree, so objects may repeat keys and carry `__proto__` as data. */
export type JsonTree =
  | null
  | boolean
  | number
  | string
  | readonly JsonTree[]
  | { readonly entries: readonly (readonly [string, JsonTree])[] }
  | { readonly nested: number; readonly as: 'object' | 'array' };

/** One generated request, before it is put on the wire. */
export interface HostileRequest {
  readonly method: string;
  /** Below the API root, including any trailing slash and query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** How the body was made, for the summary. */
  readonly encoding: string;
}

/** `arbitrary` in `percent` of the draws, otherwise undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> {
  return fc.oneof(
    { weight: percent, arbitrary },
    { weight: 100 - percent, arbitrary: fc.constant(undefined) },
  );
}

/** Longest query string sent; see the `query` encoding. */
const MAX_QUERY = 6_000;

/** The 64 KiB body limit of decisions part 6. */
const BODY_LIMIT = 64 * 1024;

const isObjectTree = (
  tree: JsonTree,
): tree is { readonly entries: readonly (readonly [string, JsonTree])[] } =>
  typeof tree === 'object' && tree !== null && 'entries' in tree;

const isNestedTree = (
  tree: JsonTree,
): tree is { readonly nested: number; readonly as: 'object' | 'array' } =>
  typeof tree === 'object' && tree !== null && 'nested' in tree;

/** JSON text of a tree; written by hand so duplicate keys and `__proto__` survive. */
export function jsonText(tree: JsonTree): string {
  if (Array.isArray(tree)) return `[${tree.map(jsonText).join(',')}]`;
  if (isNestedTree(tree)) {
    return tree.as === 'object'
      ? `${'{"a":'.repeat(tree.nested)}1${'}'.repeat(tree.nested)}`
      : `${'['.repeat(tree.nested)}1${']'.repeat(tree.nested)}`;
  }
  if (isObjectTree(tree)) {
    return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`;
  }
  return JSON.stringify(tree) ?? 'null';
}

/** Form fields of a tree: objects as `key[sub]`, arrays as repeated `key[]`. */
function formFields(key: string, tree: JsonTree, out: [string, string][]): void {
  if (Array.isArray(tree)) {
    for (const item of tree) formFields(`${key}[]`, item, out);
  } else if (isNestedTree(tree)) {
    // Capped: a form key is not where a nesting attack has room, a JSON body is.
    out.push([`${key}${'[a]'.repeat(Math.min(tree.nested, 200))}`, '1']);
  } else if (isObjectTree(tree)) {
    for (const [sub, value] of tree.entries) formFields(`${key}[${sub}]`, value, out);
  } else {
    out.push([key, tree === null ? '' : String(tree)]);
  }
}

function fieldsOf(params: readonly (readonly [string, JsonTree])[]): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of params) formFields(key, value, out);
  return out;
}

/** A multipart body written by hand, so it can also be broken in chosen ways. */
function multipartText(
  fields: readonly [string, string][],
  boundary: string,
  flaw: 'none' | 'unterminated' | 'file' | 'garbage',
): string {
  const parts = fields.map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '%22')}"\r\n\r\n${value}\r\n`,
  );
  if (flaw === 'file') {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="../../etc/passwd"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001binary\r\n`,
    );
  }
  if (flaw === 'garbage') return `${parts.join('')}--${boundary}-garbage\r\n\u0000`;
  return flaw === 'unterminated' ? parts.join('') : `${parts.join('')}--${boundary}--\r\n`;
}

/** Addresses that look like one but are not (or are, after trimming and lower-casing). */
const HOSTILE_ADDRESSES = [
  '\u0430dmin@example.com', // Cyrillic a
  'admin@ex\u0430mple.com',
  'admin@\u0435xample.com', // Cyrillic e
  '\uff41dmin@example.com', // fullwidth a
  'admin\u200b@example.com', // zero-width space
  '\u202eadmin@example.com', // right-to-left override
  'admin@example.com\r\nBcc: victim@example.com',
  'admin@example.com\nX-Injected: 1',
  'admin@example.com\r\n',
  'ad\u0000min@example.com',
  'admin@example.com\u0000',
  '"quoted local"@example.com',
  'admin@[127.0.0.1]',
  'admin@localhost',
  'a@b',
  '@example.com',
  'admin@',
  'admin@@example.com',
  'admin@.example.com',
  'admin@example..com',
  'admin example@example.com',
  'admin@example.com.',
  '<script>alert(1)</script>@example.com',
  'admin@example.com,other@example.com',
  'admin@example.com;other@example.com',
  '=?utf-8?b?YWRtaW4=?=@example.com',
  `${'a'.repeat(65)}@example.com`,
  `${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`,
  'admin@xn--.com',
  'admin@exa_mple.com',
  'admin@-example.com',
  'admin@example.c',
  ' ',
  '',
];

const KEYS = [
  'email',
  'name',
  'surname',
  'gender',
  'lists',
  'lists[]',
  // PHP-indexed arrays, as http_build_query writes them.
  'lists[0]',
  'lists[1]',
  'lists[999999999999]',
  'lists[-1]',
  'lists[x]',
  'profile',
  'profile[city]',
  'profile_city',
  'profile_company',
  'profile[__proto__]',
  'profile___proto__',
  'profile[constructor]',
  'profile_prototype',
  'send_emails',
  'status',
  'api_key',
  'token',
  'nl_website',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'EMAIL',
  'Email',
  'email[]',
  'email[0]',
  'api_key[]',
  'e\u0000mail',
  'email\r\n',
];

/** The paths the router must answer as unknown (JSON 404) or route despite odd spelling. */
const ODD_PATHS = [
  '/',
  '',
  '/subscribe/x',
  '/SUBSCRIBE',
  '/subscribers/add/../delete',
  '/subscribe/%2e%2e/unsubscribe',
  '/%00',
  '/subscribe%00',
  '/subscribe%2F',
  '/newsletter/v1/subscribe',
  '/subscribers/list',
  '/subscription',
  '/subscription/confirm/extra',
  '/openapi.yaml',
  `/${'a'.repeat(2000)}`,
  '/.env',
  '/subscribe;jsessionid=1',
];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

/**
 * The arbitrary of one hostile request. `apiKey` is the service's real key (sent now and then,
 * so keyed routes reach their parameter checks); `addresses` is how many valid addresses the
 * valid requests draw from, which bounds how many subscribers the suite can create.
 */
export function hostileRequest(apiKey: string, addresses: number): fc.Arbitrary<HostileRequest> {
  const validAddress = fc
    .integer({ min: 0, max: addresses - 1 })
    .chain((n) =>
      fc.constantFrom(
        `hostile-${n}@example.com`,
        `HOSTILE-${n}@EXAMPLE.COM`,
        `  hostile-${n}@example.com\t`,
      ),
    );
  const longString = fc
    .integer({ min: 200, max: 20_000 })
    .chain((n) => fc.constantFrom('A'.repeat(n), '\u00e9'.repeat(n), '\r\n'.repeat(n / 2)));
  const text = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '\r\n',
        '\u0000',
        'true',
        'off',
        '0',
        '-1',
        '1e309',
        'NaN',
        '[]',
        '{}',
        '__proto__',
        'm',
        'F',
        'x',
        'S',
        'C',
        'B',
        '1',
        '3',
        '99',
        "' OR '1'='1",
        '\u0024{jndi:ldap://x}', // a log4shell probe
        '<img src=x onerror=alert(1)>',
      ),
    },
    { weight: 1, arbitrary: longString },
  );
  const scalar: fc.Arbitrary<JsonTree> = fc.oneof(
    { weight: 4, arbitrary: text },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
    // "Not given" in both spellings, for every parameter.
    { weight: 1, arbitrary: fc.constant('') },
  );
  const key = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...KEYS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constant('k'.repeat(3000)) },
  );
  const nested = fc.record({
    nested: fc.integer({ min: 10, max: 12_000 }),
    as: fc.constantFrom('object' as const, 'array' as const),
  });
  const value: fc.Arbitrary<JsonTree> = fc.oneof(
    { weight: 6, arbitrary: scalar },
    { weight: 2, arbitrary: fc.array(scalar, { maxLength: 4 }) },
    {
      weight: 2,
      arbitrary: fc.record({
        entries: fc.array(fc.tuple(key, scalar), { maxLength: 4 }),
      }),
    },
    { weight: 1, arbitrary: nested },
    // A PHP array as JSON: an object whose keys are indexes (`{"0": 1, "1": 3}`).
    {
      weight: 1,
      arbitrary: fc
        .array(scalar, { maxLength: 4 })
        .map((items) => ({ entries: items.map((item, index) => [String(index), item] as const) })),
    },
  );
  const email: fc.Arbitrary<JsonTree> = fc.oneof(
    { weight: 3, arbitrary: validAddress },
    { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_ADDRESSES) },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => `${s}@example.com`),
    },
    { weight: 2, arbitrary: value },
  );
  const presentedKey: fc.Arbitrary<JsonTree> = fc.oneof(
    { weight: 6, arbitrary: fc.constant(apiKey) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        `${apiKey} `,
        ` ${apiKey}`,
        apiKey.toUpperCase(),
        apiKey.slice(0, -1),
        `${apiKey}x`,
        `x${apiKey.slice(1)}`,
        'wrong-key',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.constant([apiKey, 'wrong-key']) },
    { weight: 2, arbitrary: value },
  );

  // Parameters: the ones routes read, often present, plus hostile extras.
  const params = fc
    .record({
      email: sometimes(email, 80),
      apiKey: sometimes(presentedKey, 60),
      extras: fc.array(fc.tuple(key, value), { maxLength: 5 }),
      duplicateEmail: sometimes(email, 10),
    })
    .map(({ email, apiKey: presented, extras, duplicateEmail }) => {
      const list: [string, JsonTree][] = [];
      if (email !== undefined) list.push(['email', email]);
      if (presented !== undefined) list.push(['api_key', presented]);
      list.push(...extras.map(([k, v]) => [k, v] as [string, JsonTree]));
      if (duplicateEmail !== undefined) list.push(['email', duplicateEmail]);
      return list;
    });

  const target = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...routes.map((route) => route.path)) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_PATHS) },
  );
  const suffix = fc.oneof(
    { weight: 12, arbitrary: fc.constant('') },
    { weight: 3, arbitrary: fc.constant('/') },
    { weight: 1, arbitrary: fc.constant('//') },
  );
  const queryOf = (list: readonly (readonly [string, JsonTree])[]): string => {
    const search = new URLSearchParams(fieldsOf(list)).toString();
    return search ? `?${search}` : '';
  };

  type Encoding =
    | 'json'
    | 'json-broken'
    | 'json-not-object'
    | 'form'
    | 'multipart'
    | 'multipart-broken'
    | 'wrong-type'
    | 'oversized'
    | 'empty'
    | 'query';
  const encoding = fc.constantFrom<Encoding>(
    'json',
    'json',
    'json',
    'json-broken',
    'json-not-object',
    'form',
    'form',
    'multipart',
    'multipart-broken',
    'wrong-type',
    'oversized',
    'empty',
    'query',
  );
  const brokenJson = fc.oneof(
    fc.constantFrom(
      '{',
      '{"email": "a@example.com"',
      "{'email': 'a@example.com'}",
      '{"email": "a@example.com",}',
      '{"email": undefined}',
      '{"email": NaN}',
      '\u0000',
      '\ufeff{"email": "a@example.com"}',
      '{"email": "\\ud800"}',
      '{"a":1}garbage',
      '}{',
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
  );
  const contentTypes = {
    json: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/vnd.api+json',
      'application/json; charset=utf-16',
    ),
    form: fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=UTF-8',
    ),
    wrong: fc.constantFrom(
      'text/plain',
      'application/xml',
      'text/html',
      'application/octet-stream',
      'image/png',
      'application/jsonp',
      'json',
      ';',
      '',
    ),
  };

  return fc
    .record({
      target,
      suffix,
      // Mostly the route's own method, so requests reach the handlers rather than the router.
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      methodIndex: fc.nat(),
      params,
      encoding,
      brokenJson,
      jsonType: contentTypes.json,
      formType: contentTypes.form,
      wrongType: contentTypes.wrong,
      wrongTypeBody: fc.constantFrom('json', 'form', 'none'),
      notObject: fc.constantFrom('[]', '[1,2]', '"a@example.com"', '42', 'null', 'true'),
      boundary: fc.constantFrom('----hardening', 'x', 'a'.repeat(70), 'b"oundary'),
      multipartFlaw: fc.constantFrom(
        'unterminated' as const,
        'garbage' as const,
        'no-boundary' as const,
        'wrong-boundary' as const,
      ),
      withFile: fc.boolean(),
      oversize: fc.integer({ min: BODY_LIMIT + 1, max: 3 * BODY_LIMIT }),
      oversizeAs: fc.constantFrom('json', 'form', 'multipart'),
      authorization: sometimes(fc.constantFrom(`Bearer ${apiKey}`, `Basic ${apiKey}`), 10),
      // Header names that are also Object.prototype members, and a repeated header.
      oddHeader: sometimes(
        fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'x-repeated'),
        5,
      ),
      forwardedFor: sometimes(fc.constantFrom('203.0.113.9', '10.0.0.1, 127.0.0.1', '::1'), 15),
    })
    .map((r): HostileRequest => {
      const route = routes.find((candidate) => candidate.path === r.target);
      const method = r.method ?? route?.methods[r.methodIndex % route.methods.length] ?? 'POST';
      const headers: Record<string, string> = {};
      if (r.authorization) headers.authorization = r.authorization;
      if (r.forwardedFor) headers['x-forwarded-for'] = r.forwardedFor;
      if (r.oddHeader) headers[r.oddHeader] = 'x';
      let path = `${r.target}${r.suffix}`;
      let body: string | Buffer | undefined;
      const fields = fieldsOf(r.params);
      switch (r.encoding) {
        case 'json':
          headers['content-type'] = r.jsonType;
          body = jsonText({ entries: r.params });
          break;
        case 'json-broken':
          headers['content-type'] = r.jsonType;
          body = r.brokenJson;
          break;
        case 'json-not-object':
          headers['content-type'] = r.jsonType;
          body = r.notObject;
          break;
        case 'form':
          headers['content-type'] = r.formType;
          body = new URLSearchParams(fields).toString();
          break;
        case 'multipart':
          headers['content-type'] =
            `multipart/form-data; boundary="${r.boundary.replace(/"/g, '')}"`;
          body = multipartText(fields, r.boundary.replace(/"/g, ''), r.withFile ? 'file' : 'none');
          break;
        case 'multipart-broken': {
          const boundary = r.boundary.replace(/"/g, '');
          headers['content-type'] =
            r.multipartFlaw === 'no-boundary'
              ? 'multipart/form-data'
              : r.multipartFlaw === 'wrong-boundary'
                ? 'multipart/form-data; boundary=other'
                : `multipart/form-data; boundary=${boundary}`;
          body = multipartText(
            fields,
            boundary,
            r.multipartFlaw === 'unterminated' || r.multipartFlaw === 'garbage'
              ? r.multipartFlaw
              : 'none',
          );
          break;
        }
        case 'wrong-type':
          if (r.wrongType !== '') headers['content-type'] = r.wrongType;
          body =
            r.wrongTypeBody === 'json'
              ? jsonText({ entries: r.params })
              : r.wrongTypeBody === 'form'
                ? new URLSearchParams(fields).toString()
                : 'email=a@example.com';
          if (body.length === 0) body = 'x';
          break;
        case 'oversized': {
          const filler = 'A'.repeat(r.oversize);
          const big: [string, JsonTree][] = [
            ['email', 'hostile-0@example.com'],
            ['name', filler],
          ];
          if (r.oversizeAs === 'json') {
            headers['content-type'] = 'application/json';
            body = jsonText({ entries: [...r.params, ...big] });
          } else if (r.oversizeAs === 'form') {
            headers['content-type'] = 'application/x-www-form-urlencoded';
            body = new URLSearchParams([...fields, ...fieldsOf(big)]).toString();
          } else {
            headers['content-type'] = 'multipart/form-data; boundary=big';
            body = multipartText([...fields, ...fieldsOf(big)], 'big', 'none');
          }
          break;
        }
        case 'empty':
          headers['content-type'] = r.jsonType;
          body = '';
          break;
        case 'query':
          // Parameters (duplicates included) in the query string, which every route reads.
          // Cut (even mid-escape) below 8 KiB: longer request lines never reach a function,
          // neither on API Gateway nor through Node's HTTP parser, which answers 431 itself.
          path = `${path}${queryOf(r.params).slice(0, MAX_QUERY)}`;
          break;
      }
      return {
        method,
        path,
        headers,
        ...(body === undefined ? {} : { body }),
        encoding: r.encoding,
      };
    });
}
