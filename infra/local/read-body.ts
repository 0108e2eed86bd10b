import type { IncomingMessage } from 'node:http';

/**
 * Reads a request or response body of at most `maxBytes`. A longer body is read to its end
 * (so the peer can still be answered) but not kept, and the result is undefined.
 */
export async function readBody(
  stream: IncomingMessage,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= maxBytes) chunks.push(buffer);
  }
  return size > maxBytes ? undefined : Buffer.concat(chunks);
}
