import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SigningKeysService } from './signing-keys.service.js';

/** The claims of an access token this server signed (API.md §5). */
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
      const claims = jwt.verify(token, key.key, {
        algorithms: [key.alg],
        issuer: this.config.issuer,
        ignoreExpiration: options.ignoreExpiration ?? false,
      }) as AccessTokenClaims;
      return typeof claims.jti === 'string' && typeof claims.client_id === 'string' ? claims : undefined;
    } catch {
      return undefined;
    }
  }
}
