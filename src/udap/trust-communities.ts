import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { isUniqueViolation } from '../common/database-errors.js';
import { allocateId } from '../database/record-ids.js';
import { checkNewTrustCommunity, TrustCommunityError, type TrustCommunityAttributes } from './trust-community-rules.js';

/**
 * The one writer of `trust_community` (docs/reference/trust-communities.md): the admin
 * interface's record handler and the CLI write through these functions, in the caller's
 * transaction. Refusals are TrustCommunityErrors.
 */

/** A stored community, as the admin interface and the CLI show it. */
export type TrustCommunityRow = {
  id: number;
  version: number;
  date_created: Date;
  last_updated: Date;
  name: string;
  community_uri: string;
  anchors: string[];
  scope_ceiling: string;
  purposes_of_use: string[];
  revocation_check: 'require' | 'off';
  access_token_lifetime: number;
  enabled: boolean;
  server_certificate: string | null;
};

/** How many clients registered through community `t` (docs/reference/trust-communities.md: `clientCount`). */
export const CLIENT_COUNT = '(SELECT count(*)::int FROM client c WHERE c.trust_community_id = t.id) AS client_count';

/** Every column but server_key, which is never read back but to sign (tokens/udap-discovery.controller.ts). */
export const TRUST_COMMUNITY_COLUMNS =
  't.id, t.version, t.date_created, t.last_updated, t.name, t.community_uri, t.anchors, t.scope_ceiling, t.purposes_of_use, t.revocation_check, t.access_token_lifetime, t.enabled, t.server_certificate';

const COLUMN_OF: Record<keyof TrustCommunityAttributes, string> = {
  name: 'name',
  communityUri: 'community_uri',
  anchors: 'anchors',
  scopeCeiling: 'scope_ceiling',
  purposesOfUse: 'purposes_of_use',
  revocationCheck: 'revocation_check',
  accessTokenLifetime: 'access_token_lifetime',
  enabled: 'enabled',
  serverCertificate: 'server_certificate',
  serverKey: 'server_key',
};

const JSON_COLUMNS = new Set(['anchors', 'purposes_of_use']);

/**
 * Stores a new community and answers its id; a taken id or communityUri is a TrustCommunityError
 * of kind `taken`. `serverKey` (here and in replaceTrustCommunity) is stored as given: the caller
 * seals it first with KEY_ENCRYPTION_SECRET (keys/key-encryption.ts), as signing keys are.
 */
export async function insertTrustCommunity(manager: EntityManager, attributes: TrustCommunityAttributes, requestedId?: number): Promise<number> {
  const id = requestedId ?? (await allocateId(manager, 'trust_community'));
  await manager
    .query(
      `INSERT INTO trust_community (id, name, community_uri, anchors, scope_ceiling, purposes_of_use, revocation_check, access_token_lifetime, enabled, server_certificate, server_key)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7, $8, $9, $10, $11)`,
      [
        id,
        attributes.name,
        attributes.communityUri,
        JSON.stringify(attributes.anchors),
        attributes.scopeCeiling,
        JSON.stringify(attributes.purposesOfUse),
        attributes.revocationCheck,
        attributes.accessTokenLifetime,
        attributes.enabled,
        attributes.serverCertificate,
        attributes.serverKey,
      ],
    )
    .catch((error: unknown) => {
      throw uniqueRefusal(error, id);
    });
  return id;
}

/** Applies a replace's checked changes; false when no such community exists. */
export async function replaceTrustCommunity(manager: EntityManager, id: number, changes: Partial<TrustCommunityAttributes>): Promise<boolean> {
  const names = (Object.keys(changes) as (keyof TrustCommunityAttributes)[]).filter((name) => changes[name] !== undefined);
  const assignments = names.map((name, index) => `${COLUMN_OF[name]} = $${index + 2}${JSON_COLUMNS.has(COLUMN_OF[name]) ? '::jsonb' : ''}`);
  const values = names.map((name) => (JSON_COLUMNS.has(COLUMN_OF[name]) ? JSON.stringify(changes[name]) : changes[name]));
  const rows = await manager
    .query<unknown[]>(`UPDATE trust_community SET ${[...assignments, 'version = version + 1', 'last_updated = now()'].join(', ')} WHERE id = $1 RETURNING id`, [
      id,
      ...values,
    ])
    .catch((error: unknown) => {
      throw uniqueRefusal(error, id);
    });
  return affected(rows) > 0;
}

/**
 * Removes the community; answers what it was (for the audit trail), undefined when no such
 * community exists. A community that still has clients stays: a TrustCommunityError of kind
 * `referenced`. The row's lock orders this against a registration, which holds the community's
 * row shared while it adds a member (lockMemberCommunity).
 */
export async function removeTrustCommunity(manager: EntityManager, id: number): Promise<TrustCommunityRow | undefined> {
  const [held] = await manager.query<{ clients: number }[]>(
    `SELECT ${CLIENT_COUNT.replace(' AS client_count', ' AS clients')} FROM trust_community t WHERE t.id = $1 FOR UPDATE`,
    [id],
  );
  if (held === undefined) return undefined;
  if (held.clients > 0) {
    const members = held.clients === 1 ? 'a client' : `${held.clients} clients`;
    throw new TrustCommunityError('id', `trust-community ${id} still has ${members}: remove them first`, 'referenced');
  }
  const rows = await manager.query<TrustCommunityRow[]>(`DELETE FROM trust_community t WHERE t.id = $1 RETURNING ${TRUST_COMMUNITY_COLUMNS}`, [id]);
  const removed = Array.isArray(rows[0]) ? (rows[0] as unknown as TrustCommunityRow[]) : rows;
  return removed[0];
}

/**
 * Holds community `id`'s row shared until the caller's transaction ends, so that it is not removed
 * while a member is added; answers whether it exists.
 */
export async function lockMemberCommunity(manager: EntityManager, id: number): Promise<boolean> {
  const rows = await manager.query<unknown[]>('SELECT 1 FROM trust_community WHERE id = $1 FOR SHARE', [id]);
  return rows.length > 0;
}

/** The scopeCeiling of client `clientKey`'s trust community; undefined for a client of none. */
export async function communityScopeCeilingOfClient(manager: Pick<EntityManager, 'query'>, clientKey: number): Promise<string | undefined> {
  const [row] = await manager.query<{ scope_ceiling: string }[]>(
    'SELECT t.scope_ceiling FROM client c JOIN trust_community t ON t.id = c.trust_community_id WHERE c.id = $1',
    [clientKey],
  );
  return row?.scope_ceiling;
}

/** The attributes of a stored row, as the audit trail and the admin interface name them: serverKey is write-only, never shown. */
export function attributesOf(row: TrustCommunityRow): Omit<TrustCommunityAttributes, 'serverKey'> {
  return {
    name: row.name,
    communityUri: row.community_uri,
    anchors: row.anchors,
    scopeCeiling: row.scope_ceiling,
    purposesOfUse: row.purposes_of_use,
    revocationCheck: row.revocation_check,
    accessTokenLifetime: row.access_token_lifetime,
    enabled: row.enabled,
    serverCertificate: row.server_certificate,
  };
}

/** What the CLI asks for (docs/reference/cli.md#trust-communities). */
export type NewTrustCommunity = {
  name: string;
  communityUri: string;
  anchors: string[];
  scopes?: string;
  purposesOfUse?: string[];
  revocationCheck?: string;
  accessTokenLifetime?: number;
  /** The community's own server certificate for discovery (PEM chain) and its leaf's key (PEM, in clear). */
  serverCertificate?: string;
  serverKey?: string;
};

/** What a community's server certificate is checked and stored with: the issuer its leaf must name, and the sealing of its key (keys/key-encryption.ts). */
export type ServerCertificateContext = { issuer: string; seal: (pem: string) => string };

/** Trust communities for the operator's command line: created, listed and removed, each change in a transaction with its audit event. */
@Injectable()
export class TrustCommunities {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(input: NewTrustCommunity, actor: string, serverCertificate?: ServerCertificateContext): Promise<number> {
    const checked = checkNewTrustCommunity(
      new Map<string, unknown>([
        ['name', input.name],
        ['communityUri', input.communityUri],
        ['anchors', input.anchors],
        ['scopeCeiling', input.scopes],
        ['purposesOfUse', input.purposesOfUse],
        ['revocationCheck', input.revocationCheck],
        ['accessTokenLifetime', input.accessTokenLifetime],
        ['serverCertificate', input.serverCertificate],
        ['serverKey', input.serverKey],
      ]),
      { issuer: serverCertificate?.issuer },
    );
    if (checked.serverKey !== null && !serverCertificate) throw new Error('a serverKey is stored sealed: pass the server certificate context');
    const attributes = checked.serverKey === null ? checked : { ...checked, serverKey: serverCertificate!.seal(checked.serverKey) };
    return this.dataSource.transaction(async (manager) => {
      const id = await insertTrustCommunity(manager, attributes);
      // serverKey is write-only: never in the audit trail.
      const shown: Partial<TrustCommunityAttributes> = { ...attributes };
      delete shown.serverKey;
      await recordAuditEvent(manager, { actor, operation: 'add', recordType: 'trust-community', recordId: id, before: null, after: shown });
      return id;
    });
  }

  async list(): Promise<(TrustCommunityRow & { client_count: number })[]> {
    return this.dataSource.query(`SELECT ${TRUST_COMMUNITY_COLUMNS}, ${CLIENT_COUNT} FROM trust_community t ORDER BY t.id`);
  }

  /** Removes the community; false when no such community exists. */
  async remove(id: number, actor: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const removed = await removeTrustCommunity(manager, id);
      if (!removed) return false;
      await recordAuditEvent(manager, { actor, operation: 'remove', recordType: 'trust-community', recordId: id, before: attributesOf(removed), after: null });
      return true;
    });
  }
}

/** A unique violation: the primary key (a caller's id) or the communityUri's index. */
function uniqueRefusal(error: unknown, id: number): unknown {
  if (!isUniqueViolation(error)) return error;
  const constraint =
    (error as { constraint?: string; driverError?: { constraint?: string } }).driverError?.constraint ?? (error as { constraint?: string }).constraint;
  if (constraint === 'IDX_trust_community_community_uri') {
    return new TrustCommunityError('communityUri', 'another trust community has this communityUri', 'taken');
  }
  return new TrustCommunityError('id', `trust-community ${id} already exists`, 'taken');
}

/** TypeORM answers `[rows, count]` for UPDATE and DELETE with RETURNING. */
function affected(result: unknown[]): number {
  return Array.isArray(result[0]) ? (result[0] as unknown[]).length : result.length;
}
