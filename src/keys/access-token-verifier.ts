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
};

/**
 * Verifies an access token with jose against this server's keys: signature, `typ`, issuer,
 * expiry. Anything else (malformed, foreign, unknown key, expired) is undefined.
 */
@Injectable()
export class AccessTokenVerifier {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
  ) {}

  async verify(token: string, options: { ignoreExpiration?: boolean } = {}): Promise<AccessTokenClaims | undefined> {
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
      const { payload } = await jwtVerify(token, key.key, {
        algorithms: [key.alg],
        issuer: this.config.issuer,
        typ: 'at+jwt',
        // An expired token still names its client (revocation, introspection of a refresh family).
        ...(options.ignoreExpiration ? { currentDate: new Date(0) } : {}),
      });
      return checked(payload as AccessTokenClaims);
    } catch {
      return undefined;
    }
  }
}

function checked(claims: AccessTokenClaims): AccessTokenClaims | undefined {
  return typeof claims.jti === 'string' && typeof claims.client_id === 'string' ? claims : undefined;
}
