import { RevocationState } from '../revocation/revocation-state.js';
import { createHash } from 'node:crypto';
import { compactJwsTooDeep, exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { DpopKeys } from '../auth/dpop-keys.js';
import { ClientCertificates } from '../auth/client-certificates.js';
import { ReplayStore } from '../auth/replay-store.js';
import { ClientDirectory } from '../clients/client-directory.js';
import type { ClientRecord } from '../clients/client-record.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DPOP_ALGORITHMS, MAX_PROOF_AGE_SECONDS, MAX_PROOF_AHEAD_SECONDS, checkProofClaims, checkProofHeader } from '../oauth/dpop-proof-claims.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { DataSourceDirectory } from '../tickets/data-source-directory.js';
import { AccessTokenVerifier, type AccessTokenClaims } from '../keys/access-token-verifier.js';
import { isDatabaseUnavailable } from '../common/database-errors.js';

export const PROTECTION_SCOPE = 'uma_protection';
const REALM = 'uma';
const ALGORITHMS = [...DPOP_ALGORITHMS];

/** The caller of the protection API: the data source's umaClient, and the PAT's claims. */
export type ProtectionCaller = { client: ClientRecord; claims: AccessTokenClaims };

/**
 * Authenticates a protection API request by its PAT (docs/guides/uma.md): an access token of this
 * server, sent as `Bearer`, or as `DPoP` with a proof (RFC 9449 §7) when it is bound; with scope
 * `uma_protection`; whose client is the umaClient of an enrolled data source. Refusals are RFC 6750
 * challenges: 401 without a token, 401 invalid_token for a bad one, 403 insufficient_scope.
 */
@Injectable()
export class PatAuthenticator {
  private readonly keys = new DpopKeys();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly revocations: RevocationState,
    private readonly verifier: AccessTokenVerifier,
    private readonly clients: ClientDirectory,
    private readonly dataSources: DataSourceDirectory,
    private readonly replays: ReplayStore,
    private readonly certificates: ClientCertificates,
  ) {}

  /** True when the request carries a token in the Authorization header (Bearer or DPoP scheme). */
  static presentsToken(request: Request): boolean {
    return /^(bearer|dpop) /i.test(request.headers.authorization ?? '');
  }

  async authenticate(request: Request): Promise<ProtectionCaller> {
    const match = /^(bearer|dpop) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(request.headers.authorization ?? '');
    if (!match) {
      if (PatAuthenticator.presentsToken(request)) throw invalidToken('the Authorization header does not hold a well-formed token');
      throw challenge();
    }
    const [, scheme, token] = match as unknown as [string, string, string];
    const claims = await this.verifier.verify(token);
    if (!claims) throw invalidToken('the token is malformed, not signed by this server, or expired');
    if (await this.revoked(claims.jti)) throw invalidToken('the token has been revoked');
    await this.checkBinding(request, scheme.toLowerCase(), token, claims);
    if (!(typeof claims.scope === 'string' && claims.scope.split(' ').includes(PROTECTION_SCOPE))) {
      throw insufficientScope('the token lacks the uma_protection scope');
    }
    const client = await this.clients.find(claims.client_id);
    if (!client || (await this.dataSources.introspectedBy(client.id)).length === 0) {
      throw insufficientScope(`client ${claims.client_id} is not the umaClient of an enrolled data source`);
    }
    return { client, claims };
  }

  private async revoked(jti: string): Promise<boolean> {
    return this.revocations.isRevoked(jti);
  }

  /** RFC 9449 §7: a bound token comes with the DPoP scheme and a proof of its key; a Bearer token needs none. */
  private async checkBinding(request: Request, scheme: string, token: string, claims: AccessTokenClaims): Promise<void> {
    const x5t = claims.cnf?.['x5t#S256'];
    if (x5t !== undefined) {
      // docs/guides/mtls.md#certificate-bound-tokens (RFC 8705 §3): a Bearer token, over a connection with the very certificate it is bound to.
      if (scheme !== 'bearer') throw invalidToken('the token is certificate-bound: send it with the Bearer scheme');
      const certificate = this.certificates.of(request);
      if (certificate === undefined) throw invalidToken('the token is certificate-bound: no client certificate was presented');
      if (certificate.thumbprint !== x5t) throw invalidToken('the token is bound to another client certificate');
      return;
    }
    const jkt = claims.cnf?.jkt;
    if (scheme === 'bearer') {
      if (jkt !== undefined) throw invalidToken('the token is DPoP-bound: send it with the DPoP scheme and a DPoP proof');
      return;
    }
    if (jkt === undefined) throw invalidToken('the token is not DPoP-bound: send it with the Bearer scheme');
    const proof = request.headers.dpop;
    if (proof === undefined) throw invalidToken('the token is DPoP-bound: a DPoP proof is required');
    await this.checkProof(proof, request, token, jkt);
  }

  private async checkProof(proof: string | string[], request: Request, token: string, jkt: string): Promise<void> {
    try {
      if (Array.isArray(proof) || proof.includes(',')) throw new Error('send exactly one DPoP header');
      if (compactJwsTooDeep(proof)) throw new Error(`the proof's header or payload is ${TOO_DEEP}`);
      const header = decodeProtectedHeader(proof) as Record<string, unknown>;
      checkProofHeader(header);
      const key = await this.keys.resolve(header.jwk as Record<string, unknown>, header.alg as string);
      const { payload } = await compactVerify(proof, key.key, { algorithms: ALGORITHMS });
      const text = new TextDecoder().decode(payload);
      if (exceedsJsonDepth(text)) throw new Error(`the proof's payload is ${TOO_DEEP}`);
      const claims = JSON.parse(text) as Record<string, unknown>;
      const now = Math.floor(Date.now() / 1000);
      // htu from ISSUER, never from the request's Host header.
      const checked = checkProofClaims(claims, { htm: request.method, htu: `${this.config.issuer}${request.path}`, now });
      if (claims.ath !== createHash('sha256').update(token).digest('base64url')) throw new Error('the proof\'s "ath" is not the hash of this token');
      if (key.jkt !== jkt) throw new Error('the proof is signed by another key than the one the token is bound to');
      const expiresAt = Math.max(checked.iat, now) + MAX_PROOF_AGE_SECONDS + MAX_PROOF_AHEAD_SECONDS;
      if (!(await this.replays.firstUse('dpop', key.jkt, checked.jti, expiresAt))) throw new Error('the proof\'s "jti" has already been used');
    } catch (error) {
      // The replay store could not answer (a failover): "not now", not a bad proof.
      if (isDatabaseUnavailable(error)) throw error;
      const reason = error instanceof OAuthError ? error.description : error instanceof Error ? error.message : 'invalid';
      throw invalidToken(`the DPoP proof is not valid: ${reason.replace(/^DPoP: /, '')}`);
    }
  }
}

/** RFC 6750 §3.1: no token at all (or another scheme): a challenge without an error code. */
function challenge(): OAuthError {
  const error = new OAuthError('invalid_token', 'a PAT (an access token with scope uma_protection) is required: Authorization: Bearer <PAT>');
  error.headers['WWW-Authenticate'] = `Bearer realm="${REALM}"`;
  return error;
}

export function invalidToken(description: string): OAuthError {
  const error = new OAuthError('invalid_token', description);
  error.headers['WWW-Authenticate'] = `Bearer realm="${REALM}", error="invalid_token", error_description="${quoted(description)}"`;
  return error;
}

function insufficientScope(description: string): OAuthError {
  const error = new OAuthError('insufficient_scope', description);
  error.headers['WWW-Authenticate'] =
    `Bearer realm="${REALM}", error="insufficient_scope", scope="${PROTECTION_SCOPE}", error_description="${quoted(description)}"`;
  return error;
}

// RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E (no quote, no backslash).
function quoted(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ');
}
