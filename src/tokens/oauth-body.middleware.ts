import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { OAuthError } from './oauth-error.js';
import { MAX_BODY_BYTES, parseTokenRequestBody } from './token-request.js';

/**
 * Reads and parses /oauth2/* request bodies (the public app has no global body parser):
 * small limit, both media types, strict about duplicates. A body error is kept on the request
 * and thrown by the route, so it is answered in the endpoint's own error format.
 */
@Injectable()
export class OAuthBodyMiddleware implements NestMiddleware {
  use(request: Request, _response: Response, next: NextFunction): void {
    if (request.method !== 'POST') return next();
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) return this.fail(request, next, tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) return this.fail(request, next, tooLarge());
      try {
        request.body = parseTokenRequestBody(request.headers['content-type'], Buffer.concat(chunks));
      } catch (error) {
        return this.fail(request, next, error as OAuthError);
      }
      next();
    });
    request.on('error', () => this.fail(request, next, new OAuthError('invalid_request', 'the request body could not be read')));
  }

  private fail(request: Request, next: NextFunction, error: OAuthError): void {
    request.body = {};
    (request as RequestWithBodyError).oauthBodyError = error;
    next();
  }
}

export type RequestWithBodyError = Request & { oauthBodyError?: OAuthError };

function tooLarge(): OAuthError {
  return new OAuthError('invalid_request', `the request body exceeds ${MAX_BODY_BYTES} bytes`).withStatus(413);
}
