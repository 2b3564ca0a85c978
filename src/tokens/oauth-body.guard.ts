import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { OAuthError } from './oauth-error.js';
import { MAX_BODY_BYTES, parseTokenRequestBody } from './token-request.js';

/**
 * Reads and parses an /oauth2/* request body (the public app has no global body parser): small
 * limit, both media types, strict about duplicates. Runs as the first guard, so a bad body is
 * answered in the endpoint's own error format before client authentication looks at it.
 */
@Injectable()
export class OAuthBodyGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const body = await readBody(request);
    request.body = parseTokenRequestBody(request.headers['content-type'], body);
    return true;
  }
}

function readBody(request: Request): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => (size > MAX_BODY_BYTES ? reject(tooLarge()) : resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))));
    request.on('error', () => reject(new OAuthError('invalid_request', 'the request body could not be read')));
  });
}

function tooLarge(): OAuthError {
  return new OAuthError('invalid_request', `the request body exceeds ${MAX_BODY_BYTES} bytes`).withStatus(413);
}
