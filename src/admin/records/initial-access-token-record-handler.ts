import type { EntityManager } from 'typeorm';
import { isUniqueViolation } from '../../common/database-errors.js';
import { CONTROL_CHARACTER } from '../../common/control-characters.js';
import { allocateId } from '../../database/record-ids.js';
import {
  InitialAccessTokenError,
  checkAuthMethods,
  checkExpiresAt,
  checkGrantTypes,
  checkLifetime,
  checkMaxUses,
  checkScopeCeiling,
  generateToken,
  tokenHash,
} from '../../clients/initial-access-token-rules.js';
import { conflict, malformed, notFound, ruleBroken } from '../json-api/admin-error.js';
import { escape, type ResourceInput, type ResourceObject } from '../json-api/resource-object.js';
import { idField, selectPage, type Collection, type Field, type ListQuery } from './collection.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';

// docs/guides/dynamic-registration.md#initial-access-tokens: what an administrator gives, what a replace may change, what only the server writes.
const WRITABLE = ['name', 'scopeCeiling', 'grantTypes', 'authMethods', 'accessTokenLifetime', 'maxUses', 'expiresAt'];
const REPLACEABLE = new Set(['name', 'maxUses', 'expiresAt']);
const READ_ONLY = new Set(['uses', 'lastUsedAt']);

type Row = {
  id: number;
  version: number;
  date_created: Date;
  last_updated: Date;
  name: string;
  scope_ceiling: string;
  grant_types: string;
  auth_methods: string;
  access_token_lifetime: number | null;
  max_uses: number;
  uses: number;
  expires_at: Date;
  last_used_at: Date | null;
};

const sortOnly = (name: string, column: string, kind: Field['kind']): Field => ({ name, expression: `t.${column}`, kind, filter: false, sort: true });

const COLLECTION: Collection = {
  from: 'FROM initial_access_token t',
  fields: [
    idField('id', 't.id'),
    { name: 'name', expression: 't.name', kind: 'text', filter: true, sort: true },
    sortOnly('maxUses', 'max_uses', 'integer'),
    sortOnly('uses', 'uses', 'integer'),
    sortOnly('expiresAt', 'expires_at', 'timestamp'),
    sortOnly('lastUsedAt', 'last_used_at', 'timestamp'),
  ],
  // The start of the name (the console's search box), served by its prefix index.
  search: ['t.name'],
};

const COLUMNS =
  'SELECT t.id, t.version, t.date_created, t.last_updated, t.name, t.scope_ceiling, t.grant_types, t.auth_methods, t.access_token_lifetime, t.max_uses, t.uses, t.expires_at, t.last_used_at';

/**
 * `initial-access-token`: the credential a client registers itself with. The token is generated
 * here, answered once in the create response's `meta.token` and stored only as its hash.
 */
export class InitialAccessTokenRecordHandler implements RecordHandler {
  readonly type = 'initial-access-token';
  readonly relationships = {};
  readonly collection = COLLECTION;

  /** `mtls`: whether mutual TLS methods may be among a token's authMethods (registration/mutual-tls.ts). */
  constructor(private readonly mtls: boolean) {}

  async create(manager: EntityManager, input: ResourceInput): Promise<Written> {
    const values = this.read(input, true);
    const attributes = checked(() => ({
      name: checkName(values.get('name')),
      scopeCeiling: checkScopeCeiling(values.get('scopeCeiling')),
      grantTypes: checkGrantTypes(values.get('grantTypes')),
      authMethods: checkAuthMethods(values.get('authMethods'), this.mtls),
      accessTokenLifetime: checkLifetime(values.get('accessTokenLifetime')),
      maxUses: checkMaxUses(values.get('maxUses')),
      expiresAt: checkExpiresAt(values.get('expiresAt')),
    }));
    const token = generateToken();
    const id = input.id ?? (await allocateId(manager, 'initial_access_token'));
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
        if (isUniqueViolation(error)) throw conflict(`initial-access-token ${id} already exists`, '/value/id');
        throw error;
      });
    return { id, meta: { token } };
  }

  async update(manager: EntityManager, id: number, input: ResourceInput): Promise<Written> {
    const values = this.read(input, false);
    for (const name of values.keys()) {
      if (!REPLACEABLE.has(name)) throw malformed(`attribute "${name}" cannot be replaced (only name, maxUses and expiresAt can)`, `/value/attributes/${name}`);
    }
    const name = values.has('name') ? checked(() => checkName(values.get('name'))) : null;
    const maxUses = values.has('maxUses') ? checked(() => checkMaxUses(values.get('maxUses'))) : null;
    const expiresAt = values.has('expiresAt') ? checked(() => checkExpiresAt(values.get('expiresAt'))) : null;
    const rows = await manager.query<unknown[]>(
      `UPDATE initial_access_token SET name = COALESCE($2, name), max_uses = COALESCE($3, max_uses), expires_at = COALESCE($4, expires_at),
          version = version + 1, last_updated = now()
        WHERE id = $1 RETURNING id`,
      [id, name, maxUses, expiresAt],
    );
    if (affected(rows) === 0) throw notFound(`no initial-access-token with id ${id}`, '/path');
    return { id };
  }

  /** Its clients stay; their relationship to it becomes null (ON DELETE SET NULL). */
  async remove(manager: EntityManager, id: number): Promise<void> {
    const rows = await manager.query<unknown[]>('DELETE FROM initial_access_token WHERE id = $1 RETURNING id', [id]);
    if (affected(rows) === 0) throw notFound(`no initial-access-token with id ${id}`, '/path');
  }

  async find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]> {
    if (ids.length === 0) return [];
    const rows: Row[] = await manager.query(`${COLUMNS} ${COLLECTION.from} WHERE t.id = ANY($1)`, [ids]);
    return rows.map((row) => serialise(row));
  }

  async list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }> {
    const { rows, total } = await selectPage<Row>(manager, COLLECTION, COLUMNS, query);
    return { records: rows.map((row) => serialise(row)), total };
  }

  async snapshot(manager: EntityManager, id: number): Promise<Snapshot | null> {
    const [record] = await this.find(manager, [id]);
    return record ? { ...record.attributes } : null;
  }

  /** Attribute values by name: unknown or read-only ones are 400s, as are wrong JSON types the rules do not take. */
  private read(input: ResourceInput, creating: boolean): Map<string, unknown> {
    if (input.relationships.size > 0) {
      const [name] = input.relationships.keys();
      throw malformed(`initial-access-token has no relationship "${name}"`, `/value/relationships/${escape(name)}`);
    }
    for (const name of input.attributes.keys()) {
      if (READ_ONLY.has(name)) throw malformed(`attribute "${name}" is read-only`, `/value/attributes/${escape(name)}`);
      if (!WRITABLE.includes(name)) throw malformed(`unknown attribute "${name}"`, `/value/attributes/${escape(name)}`);
      const value = input.attributes.get(name);
      if (typeof value === 'string' && (value.length > 4096 || /\0/.test(value))) {
        throw malformed(`attribute "${name}" is too long or contains a NUL character`, `/value/attributes/${escape(name)}`);
      }
    }
    if (creating) {
      // A broken rule of an initial access token is a 422 naming the attribute (docs/reference/admin-interface.md).
      for (const name of ['name', 'scopeCeiling']) if (!input.attributes.has(name)) throw ruleBroken(`${name} is required`, `/value/attributes/${name}`);
    }
    return input.attributes;
  }
}

function checkName(value: unknown): string {
  if (typeof value !== 'string') throw new InitialAccessTokenError('name', 'name must be a string', 'type');
  if (value.trim() === '' || value.length > 255 || CONTROL_CHARACTER.test(value)) {
    throw new InitialAccessTokenError('name', 'name must be 1 to 255 characters without control characters');
  }
  return value;
}

/** A broken rule is a 422 naming the attribute; a wrong JSON type a 400. */
function checked<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof InitialAccessTokenError) {
      const pointer = `/value/attributes/${error.field}`;
      throw error.kind === 'type' ? malformed(error.message, pointer) : ruleBroken(error.message, pointer);
    }
    throw error;
  }
}

function serialise(row: Row): ResourceObject {
  return {
    type: 'initial-access-token',
    id: String(row.id),
    attributes: {
      name: row.name,
      scopeCeiling: row.scope_ceiling,
      grantTypes: row.grant_types,
      authMethods: row.auth_methods,
      accessTokenLifetime: row.access_token_lifetime,
      maxUses: row.max_uses,
      uses: row.uses,
      expiresAt: new Date(row.expires_at).toISOString(),
      lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
    },
    meta: { version: row.version, dateCreated: row.date_created, lastUpdated: row.last_updated },
  };
}

function affected(result: unknown[]): number {
  return Array.isArray(result[0]) ? (result[0] as unknown[]).length : result.length;
}
