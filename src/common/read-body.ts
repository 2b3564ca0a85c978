import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body of at most `limit` bytes (the app has no global body parser). Rejects with
 * `tooLarge()` when the declared or the actual size is over, and with `unreadable()` on a stream error.
 */
export function readLimitedBody(request: IncomingMessage, limit: number, tooLarge: () => Error, unreadable: () => Error): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => (size > limit ? reject(tooLarge()) : resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))));
    request.on('error', () => reject(unreadable()));
  });
}
