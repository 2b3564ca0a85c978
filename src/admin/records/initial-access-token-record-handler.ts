import type { EntityManager } from 'typeorm';
import { InitialAccessTokenError } from '../../clients/initial-access-token-rules.js';
import {
  checkInitialAccessTokenChanges,
  checkNewInitialAccessToken,
  insertInitialAccessToken,
  removeInitialAccessToken,
  replaceInitialAccessToken,
} from '../../clients/initial-access-tokens.js';
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
    try {
      const { id, token } = await insertInitialAccessToken(manager, checkNewInitialAccessToken(values, this.mtls), input.id);
      return { id, meta: { token } };
    } catch (error) {
      throw asAdminError(error);
    }
  }

  async update(manager: EntityManager, id: number, input: ResourceInput): Promise<Written> {
    const values = this.read(input, false);
    for (const name of values.keys()) {
      if (!REPLACEABLE.has(name)) throw malformed(`attribute "${name}" cannot be replaced (only name, maxUses and expiresAt can)`, `/value/attributes/${name}`);
    }
    if (
      !(await replaceInitialAccessToken(
        manager,
        id,
        checked(() => checkInitialAccessTokenChanges(values)),
      ))
    ) {
      throw notFound(`no initial-access-token with id ${id}`, '/path');
    }
    return { id };
  }

  /** Its clients stay; their relationship to it becomes null (ON DELETE SET NULL). */
  async remove(manager: EntityManager, id: number): Promise<void> {
    if (!(await removeInitialAccessToken(manager, id))) throw notFound(`no initial-access-token with id ${id}`, '/path');
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

/** The clients module's refusals as the admin interface answers them: a broken rule is a 422 naming the attribute, a wrong JSON type a 400, a taken id a 409. */
function asAdminError(error: unknown): unknown {
  if (!(error instanceof InitialAccessTokenError)) return error;
  if (error.kind === 'taken') return conflict(error.message, '/value/id');
  const pointer = `/value/attributes/${error.field}`;
  return error.kind === 'type' ? malformed(error.message, pointer) : ruleBroken(error.message, pointer);
}

function checked<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asAdminError(error);
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
