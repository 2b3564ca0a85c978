import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ClientAuthenticator } from '../client-authenticator.js';
import { ClientAssertionAuthenticator } from '../client-assertion-authenticator.js';
import { DpopProofs, type DpopProof } from '../dpop-proofs.js';
import { ClientBasicStrategy } from '../strategies/client-basic.strategy.js';
import type { ClientRecord } from '../../clients/client-record.js';
import { OAuthError } from '../../oauth/oauth-error.js';
import { invalidProof } from '../../oauth/dpop-proof-claims.js';
import type { TokenParameters } from '../../oauth/token-request.js';

/** A token request that carried a valid DPoP proof (docs/reference/token-endpoint.md#dpop-proofs). */
export type ProofRequest = Request & { dpop?: DpopProof };

/**
 * Client authentication for /oauth2/*: exactly one method per request (RFC 6749 §2.3),
 * `client_secret_basic` through the passport strategy, `client_secret_post` from the body, or
 * `private_key_jwt` (client_assertion). Sets `request.user` to the authenticated ClientRecord. At
 * the token endpoint a DPoP proof is checked first (docs/reference/token-endpoint.md#dpop-proofs),
 * so a request refused for its proof or nonce does not use up its client assertion; the proof's jti
 * is used up once the client is authenticated.
 */
@Injectable()
export class ClientAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: ClientAuthenticator,
    private readonly assertions: ClientAssertionAuthenticator,
    private readonly proofs: DpopProofs,
    private readonly basic: ClientBasicStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ProofRequest>();
    const body = request.body as TokenParameters;
    const headerTried = request.headers.authorization !== undefined;
    const assertionTried = body.client_assertion !== undefined || body.client_assertion_type !== undefined;
    if ((headerTried ? 1 : 0) + (body.client_secret !== undefined ? 1 : 0) + (assertionTried ? 1 : 0) > 1) {
      throw new OAuthError('invalid_request', 'use one client authentication method, not several (Authorization header, client_secret, client_assertion)');
    }
    const proof = request.headers.dpop !== undefined && isTokenEndpoint(request) ? await this.proofs.check(request.headers.dpop, request.method) : undefined;
    if (proof !== undefined) request.dpop = proof;
    if (assertionTried) {
      // The assertion's jti and the proof's are used up together, all or none.
      request.user = await this.assertions.authenticate(body, request.ip ?? 'unknown', (client) => requireProof(client, request), proof);
      return true;
    }
    if (headerTried) {
      // The strategy's own decision, without passport's per-request objects (see clientOf).
      const client = await this.basic.clientOf(request);
      requireProof(client, request);
      request.user = client;
      if (proof !== undefined) await this.proofs.consume(proof);
      return true;
    }
    if (body.client_secret !== undefined && body.client_id === undefined) {
      throw new OAuthError('invalid_request', 'client_secret is given without client_id');
    }
    if (body.client_id === undefined) {
      throw OAuthError.invalidClient('client authentication is required (HTTP Basic, client_secret_post or private_key_jwt)', true);
    }
    if (body.client_secret === undefined) {
      throw OAuthError.invalidClient('client authentication failed: confidential clients must send their secret or a client assertion', false);
    }
    const client = await this.authenticator.authenticate({
      clientId: body.client_id,
      clientSecret: body.client_secret,
      method: 'client_secret_post',
      sourceAddress: request.ip ?? 'unknown',
    });
    requireProof(client, request);
    request.user = client;
    if (proof !== undefined) await this.proofs.consume(proof);
    return true;
  }
}

/**
 * docs/reference/token-endpoint.md#dpop-proofs: a client registered with dpop_bound_access_tokens
 * sends a proof with every token request, whatever its grant. Checked here only, once the client is
 * known and before any jti (the assertion's) is used up.
 */
export function requireProof(client: ClientRecord, request: ProofRequest): void {
  if (client.dpopBound && request.dpop === undefined && isTokenEndpoint(request)) {
    throw invalidProof('this client must send a DPoP proof with every token request');
  }
}

function isTokenEndpoint(request: Request): boolean {
  return request.path.endsWith('/token');
}
