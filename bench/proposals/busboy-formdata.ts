/**
 * Proposal (functions/http/parse-request.ts): read multipart/form-data with the parser Node
 * already has, `new Response(body, { headers }).formData()`, instead of bundling
 * `@fastify/busboy` (about 28 KB minified, CommonJS, evaluated at every cold start although
 * most forms post urlencoded). The body is already capped at 64 KiB before parsing.
 *
 * This stand-in keeps busboy's call shape (`Busboy({ headers, limits })`, `on('field')`,
 * `on('finish')`, `on('error')`, `end(body)`) so that the functions build unchanged; the real
 * change would call `formData()` directly in `fromMultipart`.
 */
import { EventEmitter } from 'node:events';

interface BusboyOptions {
  readonly headers: { readonly 'content-type'?: string };
  readonly limits?: { readonly fields?: number };
}

/** Parses once `end(body)` is called; file parts are skipped, as the functions skip them. */
export function Busboy(options: BusboyOptions): EventEmitter & { end(body: Buffer): void } {
  const contentType = options.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;.*\bboundary=/i.test(contentType)) {
    // Busboy throws synchronously here too; the caller answers 400.
    throw new Error('Multipart: Boundary not found');
  }
  const maxFields = options.limits?.fields ?? Number.POSITIVE_INFINITY;
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    end(body: Buffer): void {
      new Response(new Uint8Array(body), { headers: { 'content-type': contentType } })
        .formData()
        .then((form) => {
          let fields = 0;
          for (const [name, value] of form) {
            if (typeof value !== 'string' || fields >= maxFields) continue;
            fields += 1;
            emitter.emit('field', name, value);
          }
          emitter.emit('finish');
        })
        .catch((error: unknown) => emitter.emit('error', error));
    },
  });
}
