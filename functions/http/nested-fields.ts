import { parse } from 'qs-esm';
import type { RequestParameters } from './parse-request.ts';

/**
 * Form fields written the PHP way (`extra_fields[0][id]=1&extra_fields[0][value]=x`, as jQuery
 * serialises nested objects and WordPress reads them) as the nested values a JSON body would
 * carry, read by a library (PHP's rules) rather than by hand: `qs-esm`, the ESM fork of `qs`
 * (express's parser) without `qs`'s CommonJS polyfill packages, which cost every v2 function
 * about 45 KB. Only bracketed names are touched; a plain name given too wins. Depth, array
 * size and field count are bounded, and objects have no prototype, so `__proto__[x]` is just
 * a name.
 */
export function nestBracketedFields(params: RequestParameters): RequestParameters {
  const bracketed = Object.entries(params).filter(
    ([name, value]) =>
      name.includes('[') &&
      (typeof value === 'string' ||
        (Array.isArray(value) && value.every((item) => typeof item === 'string'))),
  );
  if (bracketed.length === 0) return params;
  const search = new URLSearchParams();
  for (const [name, value] of bracketed) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const nested = parse(search.toString(), {
    depth: 3,
    arrayLimit: 100,
    parameterLimit: 300,
    allowPrototypes: false,
    plainObjects: true,
  }) as Record<string, unknown>;
  const out: RequestParameters = Object.create(null);
  for (const [name, value] of Object.entries(params)) {
    if (!bracketed.some(([each]) => each === name)) out[name] = value;
  }
  for (const [name, value] of Object.entries(nested)) out[name] ??= value;
  return out;
}
