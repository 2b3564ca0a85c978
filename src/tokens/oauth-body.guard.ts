import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { readLimitedBody } from '../common/read-body.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { MAX_BODY_BYTES, parseTokenRequestBody } from '../oauth/token-request.js';

/**
 * Reads and parses an /oauth2/* request body (the public app has no global body parser): small
 * limit, both media types, strict about duplicates. Runs as the first guard, so a bad body is
 * answered in the endpoint's own error format before client authentication looks at it.
 */
@Injectable()
export class OAuthBodyGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const body = await readLimitedBody(request, MAX_BODY_BYTES, tooLarge, () => new OAuthError('invalid_request', 'the request body could not be read'));
    request.body = parseTokenRequestBody(request.headers['content-type'], body);
    return true;
  }
}

function tooLarge(): OAuthError {
  return new OAuthError('invalid_request', `the request body exceeds ${MAX_BODY_BYTES} bytes`).withStatus(413);
}
