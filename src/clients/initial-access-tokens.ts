import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { allocateId } from '../database/record-ids.js';
import { recordAuditEvent } from '../audit/audit-trail.js';
import {
  checkAuthMethods,
  checkExpiresAt,
  checkGrantTypes,
  checkLifetime,
  checkMaxUses,
  checkScopeCeiling,
  generateToken,
  InitialAccessTokenError,
  tokenHash,
} from '../clients/initial-access-token-rules.js';
import { mutualTlsEnabled } from '../clients/mutual-tls.js';

/** What the CLI asks for (docs/reference/cli.md#initial-access-tokens); the admin interface has its own record handler under the same rules. */
export type NewInitialAccessToken = {
  name: string;
  scopes: string;
  grantTypes?: string;
  authMethods?: string;
  accessTokenLifetime?: number;
  maxUses?: number;
  expiresInSeconds?: number;
};

/** Initial access tokens for the operator's command line: created (the token shown once) and revoked, each audited. */
@Injectable()
export class InitialAccessTokens {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(input: NewInitialAccessToken, actor: string): Promise<{ id: number; token: string; expiresAt: Date }> {
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 255)
      throw new InitialAccessTokenError('name', 'name must be 1 to 255 characters');
    const attributes = {
      name: input.name,
      scopeCeiling: checkScopeCeiling(input.scopes),
      grantTypes: checkGrantTypes(input.grantTypes),
      authMethods: checkAuthMethods(input.authMethods, mutualTlsEnabled(this.config)),
      accessTokenLifetime: checkLifetime(input.accessTokenLifetime),
      maxUses: checkMaxUses(input.maxUses),
      expiresAt: checkExpiresAt(input.expiresInSeconds === undefined ? undefined : new Date(Date.now() + input.expiresInSeconds * 1000).toISOString()),
    };
    const token = generateToken();
    const id = await this.dataSource.transaction(async (manager) => {
      const recordId = await allocateId(manager, 'initial_access_token');
      await manager.query(
        `INSERT INTO initial_access_token (id, name, token_hash, scope_ceiling, grant_types, auth_methods, access_token_lifetime, max_uses, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          recordId,
          attributes.name,
          tokenHash(token),
          attributes.scopeCeiling,
          attributes.grantTypes,
          attributes.authMethods,
          attributes.accessTokenLifetime,
          attributes.maxUses,
          attributes.expiresAt,
        ],
      );
      await recordAuditEvent(manager, {
        actor,
        operation: 'add',
        recordType: 'initial-access-token',
        recordId,
        before: null,
        after: { ...attributes, expiresAt: attributes.expiresAt.toISOString(), uses: 0, lastUsedAt: null },
      });
      return recordId;
    });
    return { id, token, expiresAt: attributes.expiresAt };
  }

  /** Removes the token: it registers nothing more; its clients stay. False when no such token exists. */
  async revoke(id: number, actor: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager.query<unknown[]>('DELETE FROM initial_access_token WHERE id = $1 RETURNING name', [id]);
      const removed = Array.isArray(rows[0]) ? (rows[0] as unknown[]) : rows;
      if (removed.length === 0) return false;
      await recordAuditEvent(manager, {
        actor,
        operation: 'remove',
        recordType: 'initial-access-token',
        recordId: id,
        before: removed[0] as Record<string, unknown>,
        after: null,
      });
      return true;
    });
  }
}
