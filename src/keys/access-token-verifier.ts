import { Inject, Injectable } from '@nestjs/common';
import { decodeProtectedHeader, jwtVerify, type ProtectedHeaderParameters } from 'jose';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SigningKeysService } from './signing-keys.service.js';

/** The claims of an access token this server signed (docs/reference/token-endpoint.md#access-tokens). */
export type AccessTokenClaims = {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope: string;
  permissions?: unknown[];
  /**
   * docs/reference/token-endpoint.md#dpop-proofs: the thumbprint of the DPoP key the token is bound
   * to; docs/guides/mtls.md#certificate-bound-tokens: or of the client certificate (one of the two).
   */
  cnf?: { jkt?: string; 'x5t#S256'?: string };
  /** docs/reference/trust-communities.md#the-token: a UDAP token's `{"hl7-b2b": {…}}`. */
  extensions?: Record<string, unknown>;
  /** docs/guides/token-exchange.md#the-exchanged-token: the actors of an exchanged token (RFC 8693 §4.1), innermost the first. */
  act?: { sub: string; act?: unknown };
};

// Tokens whose signature this process has verified, at most this many (the oldest go first).
const VERIFIED_TOKENS = 4_096;

/**
 * Verifies an access token with jose against this server's keys: signature, `typ`, issuer,
 * expiry. Anything else (malformed, foreign, unknown key, expired) is undefined.
 *
 * A resource server introspects the same token on each of its requests: the claims of a token
 * whose signature was verified are kept by the token's exact text, so that a repeat costs a map
 * lookup instead of a signature check, and a new token asked about by many requests at once is
 * checked once. The key must still be one this server knows, and the expiry is checked again at
 * each use.
 */
@Injectable()
export class AccessTokenVerifier {
  private readonly verified = new Map<string, { kid: string; claims: AccessTokenClaims }>();
  // Signatures being checked: the same new token asked about by many requests at once is checked once.
  private readonly checking = new Map<string, Promise<AccessTokenClaims | undefined>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
  ) {}

  async verify(token: string, options: { ignoreExpiration?: boolean } = {}): Promise<AccessTokenClaims | undefined> {
    const known = this.verified.get(token);
    // A remembered token's key must still be published; a new one's signature is checked.
    const claims = known !== undefined ? (await this.keys.verificationKey(known.kid)) && known.claims : await this.checkOnce(token);
    if (!claims) return undefined;
    return options.ignoreExpiration || claims.exp > Math.floor(Date.now() / 1000) ? claims : undefined;
  }

  private checkOnce(token: string): Promise<AccessTokenClaims | undefined> {
    let checking = this.checking.get(token);
    if (checking === undefined) {
      checking = this.verifySignature(token).finally(() => this.checking.delete(token));
      this.checking.set(token, checking);
    }
    return checking;
  }

  private async verifySignature(token: string): Promise<AccessTokenClaims | undefined> {
    let header: ProtectedHeaderParameters;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    if (header.typ !== 'at+jwt' || typeof header.kid !== 'string') return undefined;
    const key = await this.keys.verificationKey(header.kid);
    if (!key || header.alg !== key.alg) return undefined;
    try {
      // The expiry is verify's business (an expired token still names its client: revocation).
      const { payload } = await jwtVerify(token, key.key, { algorithms: [key.alg], issuer: this.config.issuer, typ: 'at+jwt', currentDate: new Date(0) });
      const claims = checked(payload as AccessTokenClaims);
      if (claims) this.remember(token, header.kid, claims);
      return claims;
    } catch {
      return undefined;
    }
  }

  private remember(token: string, kid: string, claims: AccessTokenClaims): void {
    if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { kid, claims });
  }
}

function checked(claims: AccessTokenClaims): AccessTokenClaims | undefined {
  return typeof claims.jti === 'string' && typeof claims.client_id === 'string' && typeof claims.exp === 'number' ? claims : undefined;
}
