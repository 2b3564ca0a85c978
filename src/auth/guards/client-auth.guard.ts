import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ClientAuthenticator } from '../client-authenticator.js';
import { ClientBasicStrategy } from '../strategies/client-basic.strategy.js';
import { OAuthError } from '../../oauth/oauth-error.js';
import type { TokenParameters } from '../../oauth/token-request.js';

/**
 * Client authentication for /oauth2/*: exactly one method per request (RFC 6749 §2.3),
 * `client_secret_basic` through the passport-http strategy's logic or `client_secret_post` from the body.
 * Sets `request.user` to the authenticated ClientRecord.
 */
@Injectable()
export class ClientAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: ClientAuthenticator,
    private readonly basic: ClientBasicStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const body = request.body as TokenParameters;
    const headerTried = request.headers.authorization !== undefined;
    if (headerTried && body.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'use one client authentication method, not both the Authorization header and client_secret');
    }
    if (headerTried) {
      // The strategy's own decision, without passport's per-request objects (see clientOf).
      request.user = await this.basic.clientOf(request);
      return true;
    }
    if (body.client_secret !== undefined && body.client_id === undefined) {
      throw new OAuthError('invalid_request', 'client_secret is given without client_id');
    }
    if (body.client_id === undefined) {
      throw OAuthError.invalidClient('client authentication is required (HTTP Basic or client_secret_post)', true);
    }
    if (body.client_secret === undefined) {
      throw OAuthError.invalidClient('client authentication failed: confidential clients must send their secret', false);
    }
    request.user = await this.authenticator.authenticate({
      clientId: body.client_id,
      clientSecret: body.client_secret,
      method: 'client_secret_post',
      sourceAddress: request.ip ?? 'unknown',
    });
    return true;
  }
}
