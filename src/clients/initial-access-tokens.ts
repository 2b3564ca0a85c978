import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { CONTROL_CHARACTER } from '../common/control-characters.js';
import { isUniqueViolation } from '../common/database-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { allocateId } from '../database/record-ids.js';
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
} from './initial-access-token-rules.js';
import { mutualTlsEnabled } from './mutual-tls.js';

/**
 * The one writer of `initial_access_token` (docs/guides/dynamic-registration.md#initial-access-tokens):
 * the admin interface's record handler, the CLI and registration's use of a token all write
 * through these functions, in the caller's transaction. Refusals are InitialAccessTokenErrors.
 */

/** An initial access token's attributes once its rules are checked. */
export type InitialAccessTokenAttributes = {
  name: string;
  scopeCeiling: string;
  grantTypes: string;
  authMethods: string;
  accessTokenLifetime: number | null;
  maxUses: number;
  expiresAt: Date;
};

/** What a replace may change. */
export type InitialAccessTokenChanges = { name?: string; maxUses?: number; expiresAt?: Date };

/** The attributes of a new token as given (admin JSON:API names), checked by every rule; `mtls`: whether mutual TLS methods may be named. */
export function checkNewInitialAccessToken(values: ReadonlyMap<string, unknown>, mtls: boolean): InitialAccessTokenAttributes {
  return {
    name: checkName(values.get('name')),
    scopeCeiling: checkScopeCeiling(values.get('scopeCeiling')),
    grantTypes: checkGrantTypes(values.get('grantTypes')),
    authMethods: checkAuthMethods(values.get('authMethods'), mtls),
    accessTokenLifetime: checkLifetime(values.get('accessTokenLifetime')),
    maxUses: checkMaxUses(values.get('maxUses')),
    expiresAt: checkExpiresAt(values.get('expiresAt')),
  };
}

/** The changes of a replace, each checked by its rule. */
export function checkInitialAccessTokenChanges(values: ReadonlyMap<string, unknown>): InitialAccessTokenChanges {
  return {
    ...(values.has('name') ? { name: checkName(values.get('name')) } : {}),
    ...(values.has('maxUses') ? { maxUses: checkMaxUses(values.get('maxUses')) } : {}),
    ...(values.has('expiresAt') ? { expiresAt: checkExpiresAt(values.get('expiresAt')) } : {}),
  };
}

export function checkName(value: unknown): string {
  if (typeof value !== 'string') throw new InitialAccessTokenError('name', 'name must be a string', 'type');
  if (value.trim() === '' || value.length > 255 || CONTROL_CHARACTER.test(value)) {
    throw new InitialAccessTokenError('name', 'name must be 1 to 255 characters without control characters');
  }
  return value;
}

/** Stores a new token (only its hash) and answers its record id and the token, shown once; a taken id is an InitialAccessTokenError of kind `taken`. */
export async function insertInitialAccessToken(
  manager: EntityManager,
  attributes: InitialAccessTokenAttributes,
  requestedId?: number,
): Promise<{ id: number; token: string }> {
  const token = generateToken();
  const id = requestedId ?? (await allocateId(manager, 'initial_access_token'));
  await manager
    .query(
      `INSERT INTO initial_access_token (id, name, token_hash, scope_ceiling, grant_types, auth_methods, access_token_lifetime, max_uses, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        attributes.name,
        tokenHash(token),
        attributes.scopeCeiling,
        attributes.grantTypes,
        attributes.authMethods,
        attributes.accessTokenLifetime,
        attributes.maxUses,
        attributes.expiresAt,
      ],
    )
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new InitialAccessTokenError('id', `initial-access-token ${id} already exists`, 'taken');
      throw error;
    });
  return { id, token };
}

/** Applies a replace's changes; false when no such token exists. */
export async function replaceInitialAccessToken(manager: EntityManager, id: number, changes: InitialAccessTokenChanges): Promise<boolean> {
  const rows = await manager.query<unknown[]>(
    `UPDATE initial_access_token SET name = COALESCE($2, name), max_uses = COALESCE($3, max_uses), expires_at = COALESCE($4, expires_at),
        version = version + 1, last_updated = now()
      WHERE id = $1 RETURNING id`,
    [id, changes.name ?? null, changes.maxUses ?? null, changes.expiresAt ?? null],
  );
  return affected(rows) > 0;
}

/** Removes the token: it registers nothing more; its clients stay (their link becomes null). Answers its name, undefined when no such token exists. */
export async function removeInitialAccessToken(manager: EntityManager, id: number): Promise<{ name: string } | undefined> {
  const rows = await manager.query<{ name: string }[]>('DELETE FROM initial_access_token WHERE id = $1 RETURNING name', [id]);
  const removed = Array.isArray(rows[0]) ? (rows[0] as unknown as { name: string }[]) : rows;
  return removed[0];
}

/** Takes one use of a token in a registration's transaction: one statement, so two instances never exceed maxUses. False when it is used up, expired or gone. */
export async function takeInitialAccessTokenUse(manager: EntityManager, id: number): Promise<boolean> {
  const rows = await manager.query<unknown[]>(
    `UPDATE initial_access_token SET uses = uses + 1, last_used_at = now()
      WHERE id = $1 AND uses < max_uses AND expires_at > now() RETURNING id`,
    [id],
  );
  return affected(rows) > 0;
}

/** What the CLI asks for (docs/reference/cli.md#initial-access-tokens). */
export type NewInitialAccessToken = {
  name: string;
  scopes: string;
  grantTypes?: string;
  authMethods?: string;
  accessTokenLifetime?: number;
  maxUses?: number;
  expiresInSeconds?: number;
};

/** Initial access tokens for the operator's command line: created (the token shown once) and revoked, each in a transaction with its audit event. */
@Injectable()
export class InitialAccessTokens {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(input: NewInitialAccessToken, actor: string): Promise<{ id: number; token: string; expiresAt: Date }> {
    const expiresAt = input.expiresInSeconds === undefined ? undefined : new Date(Date.now() + input.expiresInSeconds * 1000).toISOString();
    const attributes = checkNewInitialAccessToken(
      new Map<string, unknown>([
        ['name', input.name],
        ['scopeCeiling', input.scopes],
        ['grantTypes', input.grantTypes],
        ['authMethods', input.authMethods],
        ['accessTokenLifetime', input.accessTokenLifetime],
        ['maxUses', input.maxUses],
        ['expiresAt', expiresAt],
      ]),
      mutualTlsEnabled(this.config),
    );
    return this.dataSource.transaction(async (manager) => {
      const { id, token } = await insertInitialAccessToken(manager, attributes);
      const after = { ...attributes, expiresAt: attributes.expiresAt.toISOString(), uses: 0, lastUsedAt: null };
      await recordAuditEvent(manager, { actor, operation: 'add', recordType: 'initial-access-token', recordId: id, before: null, after });
      return { id, token, expiresAt: attributes.expiresAt };
    });
  }

  /** Removes the token; false when no such token exists. */
  async revoke(id: number, actor: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const removed = await removeInitialAccessToken(manager, id);
      if (!removed) return false;
      await recordAuditEvent(manager, { actor, operation: 'remove', recordType: 'initial-access-token', recordId: id, before: removed, after: null });
      return true;
    });
  }
}

/** TypeORM answers `[rows, count]` for UPDATE and DELETE with RETURNING. */
function affected(result: unknown[]): number {
  return Array.isArray(result[0]) ? (result[0] as unknown[]).length : result.length;
}
