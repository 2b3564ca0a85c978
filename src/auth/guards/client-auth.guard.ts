import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import passport from 'passport';
import { ClientAuthenticator } from '../client-authenticator.js';
import { CERTIFICATE_METHODS, CertificateAuthenticator } from '../certificate-authenticator.js';
import { ClientCertificates } from '../client-certificates.js';
import { ClientDirectory } from '../../clients/client-directory.js';
import { ClientAssertionAuthenticator } from '../client-assertion-authenticator.js';
import { DpopProofs, type DpopProof } from '../dpop-proofs.js';
import { ClientBasicStrategy } from '../strategies/client-basic.strategy.js';
import { UdapClientAuthenticator } from '../udap-client-authenticator.js';
import type { ClientRecord } from '../../clients/client-record.js';
import { OAuthError } from '../../oauth/oauth-error.js';
import { invalidProof } from '../../oauth/dpop-proof-claims.js';
import type { TokenParameters } from '../../oauth/token-request.js';

/**
 * A request on a route that takes DPoP proofs (DpopProofGuard, the token endpoint), with the valid
 * proof it carried (docs/reference/token-endpoint.md#dpop-proofs).
 */
export type ProofRequest = Request & { takesProofs?: true; dpop?: DpopProof; certificateThumbprint?: string };

/**
 * Client authentication for /oauth2/*: exactly one method per request (RFC 6749 §2.3),
 * `client_secret_basic` through the passport-http strategy, `client_secret_post` from the body, or
 * `private_key_jwt` (client_assertion). Sets `request.user` to the authenticated ClientRecord. On a
 * route that takes DPoP proofs (DpopProofGuard ran first), a DPoP-bound client must have sent one,
 * and the proof's jti is used up once the client is authenticated.
 *
 * Revocation uses this guard: passport runs the strategy there. The token endpoint and
 * introspection, the hot paths, use DirectClientAuthGuard, which calls the strategy's decision directly.
 */
@Injectable()
export class ClientAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: ClientAuthenticator,
    private readonly assertions: ClientAssertionAuthenticator,
    private readonly proofs: DpopProofs,
    protected readonly basic: ClientBasicStrategy,
    private readonly clients: ClientDirectory,
    private readonly certificateAuth: CertificateAuthenticator,
    private readonly certificates: ClientCertificates,
    private readonly udap: UdapClientAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ProofRequest>();
    const body = request.body as TokenParameters;
    const headerTried = request.headers.authorization !== undefined;
    const assertionTried = body.client_assertion !== undefined || body.client_assertion_type !== undefined;
    // docs/reference/trust-communities.md#token-request: with UDAP on, `udap` at the token endpoint takes the UDAP path (the certificate is the credential).
    if (body.udap !== undefined && request.takesProofs === true && this.udap.enabled) {
      if (headerTried || body.client_secret !== undefined) {
        throw new OAuthError(
          'invalid_request',
          'a UDAP token request authenticates with its client assertion alone: no Authorization header, no client_secret',
        );
      }
      request.user = await this.udap.authenticate(body, request.ip ?? 'unknown', (client) => this.checkBindings(client, request), request.dpop);
      return true;
    }
    if ((headerTried ? 1 : 0) + (body.client_secret !== undefined ? 1 : 0) + (assertionTried ? 1 : 0) > 1) {
      throw new OAuthError('invalid_request', 'use one client authentication method, not several (Authorization header, client_secret, client_assertion)');
    }
    const proof = request.dpop;
    if (assertionTried) {
      // The assertion's jti and the proof's are used up together, all or none.
      request.user = await this.assertions.authenticate(body, request.ip ?? 'unknown', (client) => this.checkBindings(client, request), proof);
      return true;
    }
    if (headerTried) {
      const client = await this.basicClient(request, context.switchToHttp().getResponse<Response>());
      this.checkBindings(client, request);
      request.user = client;
      if (proof !== undefined) await this.proofs.consume(proof);
      return true;
    }
    if (body.client_secret !== undefined && body.client_id === undefined) {
      throw new OAuthError('invalid_request', 'client_secret is given without client_id');
    }
    if (body.client_id === undefined) {
      throw OAuthError.invalidClient('no client authentication was sent (HTTP Basic, client_secret_post, private_key_jwt or a certificate)', true);
    }
    if (body.client_secret === undefined) {
      const client = this.certificates.enabled ? await this.certificateClient(body.client_id) : undefined;
      if (client === undefined) {
        throw OAuthError.invalidClient('a client_id alone, from no client registered for a certificate method (or MTLS is off)', false);
      }
      // docs/guides/mtls.md: client_id alone, and the connection's certificate.
      const authenticated = await this.certificateAuth.authenticate(client, request);
      this.checkBindings(authenticated, request);
      request.user = authenticated;
      if (proof !== undefined) await this.proofs.consume(proof);
      return true;
    }
    const client = await this.authenticator.authenticate({
      clientId: body.client_id,
      clientSecret: body.client_secret,
      method: 'client_secret_post',
      sourceAddress: request.ip ?? 'unknown',
    });
    this.checkBindings(client, request);
    request.user = client;
    if (proof !== undefined) await this.proofs.consume(proof);
    return true;
  }

  /** A client registered for tls_client_auth or self_signed_tls_client_auth (with MTLS on), else undefined. */
  private async certificateClient(clientId: string): Promise<ClientRecord | undefined> {
    if (clientId.includes('\0')) return undefined;
    const client = await this.clients.find(clientId);
    return client !== null && CERTIFICATE_METHODS.has(client.authenticationType) ? client : undefined;
  }

  /**
   * The token endpoint's binding rules, once the client is known and before any jti is used up:
   * a DPoP-bound client sends a proof (requireProof); a certificate-bound client
   * (docs/guides/mtls.md#certificate-bound-tokens) sends no proof and presents a certificate,
   * whose thumbprint the access token is bound to. Refused here, before the grant, so that a
   * refresh token or a permission ticket is not used up.
   */
  private checkBindings(client: ClientRecord, request: ProofRequest): void {
    if (client.certificateBound === true && request.takesProofs === true) {
      if (request.dpop !== undefined) {
        throw new OAuthError('invalid_request', "this client's tokens are bound to its certificate: send no DPoP proof (a token carries one binding)");
      }
      const certificate = this.certificates.of(request);
      if (certificate === undefined)
        throw new OAuthError('invalid_request', "this client's tokens are bound to its certificate: no client certificate was presented");
      request.certificateThumbprint = certificate.thumbprint;
    }
    requireProof(client, request);
  }

  /** `client_secret_basic`: passport runs the registered passport-http strategy (its `validate`). */
  protected basicClient(request: Request, response: Response): Promise<ClientRecord> {
    return new Promise((resolve, reject) => {
      const middleware = passport.authenticate(this.basic.instanceName, { session: false }, (error: unknown, client: ClientRecord | false) => {
        if (error) reject(error instanceof Error ? error : new Error('the Basic strategy failed'));
        else if (client) resolve(client);
        else reject(OAuthError.invalidClient('the HTTP Basic strategy refused the credentials', true));
      }) as (request: Request, response: Response, next: (error?: unknown) => void) => void;
      middleware(request, response, (error?: unknown) => reject(error instanceof Error ? error : new Error('the Basic strategy failed')));
    });
  }
}

/**
 * The client authentication of the hot paths, the token endpoint and introspection: the same
 * decisions, but `client_secret_basic` calls the strategy's decision directly
 * (ClientBasicStrategy.clientOf) instead of through passport, whose per-request strategy object,
 * closures and request properties cost 30-60 µs of CPU per request (docs/design-decisions.md,
 * "Performance of the token path").
 */
@Injectable()
export class DirectClientAuthGuard extends ClientAuthGuard {
  protected override basicClient(request: Request): Promise<ClientRecord> {
    return this.basic.clientOf(request);
  }
}

/**
 * docs/reference/token-endpoint.md#dpop-proofs: a client registered with dpop_bound_access_tokens
 * sends a proof with every token request, whatever its grant. Checked here only, once the client is
 * known and before any jti (the assertion's) is used up.
 */
export function requireProof(client: ClientRecord, request: ProofRequest): void {
  if (client.dpopBound && request.takesProofs === true && request.dpop === undefined) {
    throw invalidProof('this client must send a DPoP proof with every token request');
  }
}
