import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthError } from '../oauth/oauth-error.js';

export type RefreshTokenRow = {
  id: number;
  family_id: string;
  client_id: number;
  scope: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
};

/** SHA-256, hex: what is stored and looked up; the token itself never is. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Opaque, single-use refresh tokens in families (RFC 9700 §4.14): each use rotates the token; a
 * second use of a used token means it leaked, and revokes the whole family.
 */
@Injectable()
export class RefreshTokensService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A new refresh token for the client, in a new family or continuing `familyId`. */
  async issue(client: ClientRecord, scope: string, familyId: string = randomUUID()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.dataSource.query(
      `INSERT INTO refresh_token (token_hash, family_id, client_id, scope, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [hashRefreshToken(token), familyId, client.id, scope, this.config.refreshTokenTtl],
    );
    return token;
  }

  /**
   * Marks the presented token used and returns it, or throws invalid_grant. Atomic: of two
   * concurrent uses, one wins and the other is treated as reuse.
   */
  async consume(client: ClientRecord, token: string): Promise<RefreshTokenRow> {
    const hash = hashRefreshToken(token);
    const [used]: RefreshTokenRow[] = await this.dataSource
      .query(
        `UPDATE refresh_token SET used_at = now()
        WHERE token_hash = $1 AND client_id = $2 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
       RETURNING id, family_id, client_id, scope, expires_at, used_at, revoked_at`,
        [hash, client.id],
      )
      .then((result: [RefreshTokenRow[], number] | RefreshTokenRow[]) => (Array.isArray(result[0]) ? result[0] : (result as RefreshTokenRow[])));
    return used ?? this.refuse(client, token);
  }

  /** The invalid_grant a token this client may not use earns; a reused token revokes its family. */
  async refuse(client: ClientRecord, token: string): Promise<never> {
    const found = await this.find(token);
    if (found && found.client_id === client.id && found.used_at !== null && found.revoked_at === null) {
      await this.revokeFamily(found.family_id);
      throw new OAuthError('invalid_grant', 'the refresh token was already used; its whole family is now revoked');
    }
    throw new OAuthError('invalid_grant', 'the refresh token is unknown, expired, revoked or not issued to this client');
  }

  /** The token if this client may still use it (unused, unrevoked, unexpired), without using it up. */
  async findUsable(client: ClientRecord, token: string): Promise<RefreshTokenRow | undefined> {
    const [row]: RefreshTokenRow[] = await this.dataSource.query(
      `SELECT id, family_id, client_id, scope, expires_at, used_at, revoked_at FROM refresh_token
        WHERE token_hash = $1 AND client_id = $2 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()`,
      [hashRefreshToken(token), client.id],
    );
    return row;
  }

  async find(token: string): Promise<RefreshTokenRow | undefined> {
    const [row]: RefreshTokenRow[] = await this.dataSource.query(
      'SELECT id, family_id, client_id, scope, expires_at, used_at, revoked_at FROM refresh_token WHERE token_hash = $1',
      [hashRefreshToken(token)],
    );
    return row;
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.dataSource.query('UPDATE refresh_token SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
  }
}
