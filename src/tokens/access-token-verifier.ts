import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { jwtVerify } from 'jose';
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
  /** docs/reference/token-endpoint.md#dpop-proofs: the thumbprint of the DPoP key the token is bound to. */
  cnf?: { jkt: string };
};

/**
 * Verifies an access token with jsonwebtoken against this server's keys: signature, `typ`,
 * issuer, expiry. Anything else (malformed, foreign, unknown key, expired) is undefined.
 */
@Injectable()
export class AccessTokenVerifier {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
  ) {}

  async verify(token: string, options: { ignoreExpiration?: boolean } = {}): Promise<AccessTokenClaims | undefined> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload !== 'object' || decoded.header.typ !== 'at+jwt' || !decoded.header.kid) return undefined;
    const key = await this.keys.verificationKey(decoded.header.kid);
    if (!key || decoded.header.alg !== key.alg) return undefined;
    try {
      // jsonwebtoken 9 has no EdDSA: jose verifies those (RFC 8037).
      if (key.alg === 'EdDSA')
        return checked(
          (
            await jwtVerify(token, key.key, {
              algorithms: ['EdDSA'],
              issuer: this.config.issuer,
              typ: 'at+jwt',
              ...(options.ignoreExpiration ? { currentDate: new Date(0) } : {}),
            })
          ).payload as AccessTokenClaims,
        );
      const claims = jwt.verify(token, key.key, {
        algorithms: [key.alg],
        issuer: this.config.issuer,
        ignoreExpiration: options.ignoreExpiration ?? false,
      }) as AccessTokenClaims;
      return checked(claims);
    } catch {
      return undefined;
    }
  }
}

function checked(claims: AccessTokenClaims): AccessTokenClaims | undefined {
  return typeof claims.jti === 'string' && typeof claims.client_id === 'string' ? claims : undefined;
}
