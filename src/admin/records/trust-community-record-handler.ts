import type { EntityManager } from 'typeorm';
import {
  attributesOf,
  CLIENT_COUNT,
  insertTrustCommunity,
  removeTrustCommunity,
  replaceTrustCommunity,
  TRUST_COMMUNITY_COLUMNS,
  type TrustCommunityRow,
} from '../../udap/trust-communities.js';
import type { KeyEncryption } from '../../keys/key-encryption.js';
import {
  checkNewTrustCommunity,
  checkTrustCommunityChanges,
  TRUST_COMMUNITY_ATTRIBUTES,
  TrustCommunityError,
  type TrustCommunityAttributes,
} from '../../udap/trust-community-rules.js';
import { conflict, malformed, notFound, ruleBroken } from '../json-api/admin-error.js';
import { escape, type ResourceInput, type ResourceObject } from '../json-api/resource-object.js';
import { idField, selectPage, type Collection, type Field } from './collection.js';
import type { ListQuery } from './collection.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';

// docs/reference/trust-communities.md: clientCount is the server's to compute, never written.
const READ_ONLY = new Set(['clientCount']);
const WRITABLE = new Set<string>(TRUST_COMMUNITY_ATTRIBUTES);
// Bounds a string before any rule reads it (a PEM chain of a few certificates fits).
const MAX_STRING_LENGTH = 65_536;

const field = (name: string, column: string, kind: Field['kind'], filter: boolean): Field => ({ name, expression: `t.${column}`, kind, filter, sort: true });

const COLLECTION: Collection = {
  from: 'FROM trust_community t',
  fields: [
    idField('id', 't.id'),
    field('name', 'name', 'text', true),
    field('communityUri', 'community_uri', 'text', true),
    field('enabled', 'enabled', 'boolean', true),
    field('revocationCheck', 'revocation_check', 'text', false),
    field('accessTokenLifetime', 'access_token_lifetime', 'integer', false),
  ],
  // The start of the name (the console's search box), served by its prefix index.
  search: ['t.name'],
};

const SELECT = `SELECT ${TRUST_COMMUNITY_COLUMNS}, ${CLIENT_COUNT}`;

type CountedRow = TrustCommunityRow & { client_count: number };

/**
 * `trust-community`: a UDAP trust community (docs/reference/trust-communities.md). Present
 * whatever UDAP says, so that communities can be prepared before UDAP is turned on. The udap/
 * module writes the rows; this handler reads the JSON:API input and maps its refusals.
 */
export class TrustCommunityRecordHandler implements RecordHandler {
  readonly type = 'trust-community';
  readonly relationships = {};
  readonly collection = COLLECTION;

  /** `issuer`: what a community's serverCertificate must name (ISSUER); `keyEncryption` seals its serverKey as signing keys are. */
  constructor(
    private readonly issuer: string,
    private readonly keyEncryption: KeyEncryption,
  ) {}

  async create(manager: EntityManager, input: ResourceInput): Promise<Written> {
    const values = this.read(input);
    try {
      return { id: await insertTrustCommunity(manager, this.sealed(checkNewTrustCommunity(values, { issuer: this.issuer })), input.id) };
    } catch (error) {
      throw asAdminError(error);
    }
  }

  async update(manager: EntityManager, id: number, input: ResourceInput): Promise<Written> {
    const values = this.read(input);
    let found: boolean;
    try {
      found = await replaceTrustCommunity(manager, id, this.sealed(checkTrustCommunityChanges(values, { issuer: this.issuer })));
    } catch (error) {
      throw asAdminError(error);
    }
    if (!found) throw notFound(`no trust-community with id ${id}`, '/path');
    return { id };
  }

  /** A community that still has clients is not removed: 409. */
  async remove(manager: EntityManager, id: number): Promise<void> {
    let removed: TrustCommunityRow | undefined;
    try {
      removed = await removeTrustCommunity(manager, id);
    } catch (error) {
      throw asAdminError(error);
    }
    if (!removed) throw notFound(`no trust-community with id ${id}`, '/path');
  }

  async find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]> {
    if (ids.length === 0) return [];
    const rows: CountedRow[] = await manager.query(`${SELECT} ${COLLECTION.from} WHERE t.id = ANY($1)`, [ids]);
    return rows.map(serialise);
  }

  async list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }> {
    const { rows, total } = await selectPage<CountedRow>(manager, COLLECTION, SELECT, query);
    return { records: rows.map(serialise), total };
  }

  async snapshot(manager: EntityManager, id: number): Promise<Snapshot | null> {
    const [record] = await this.find(manager, [id]);
    return record ? { ...record.attributes } : null;
  }

  /** The checked attributes with serverKey sealed (KEY_ENCRYPTION_SECRET), as it is stored. */
  private sealed<T extends Partial<TrustCommunityAttributes>>(attributes: T): T {
    return typeof attributes.serverKey === 'string' ? { ...attributes, serverKey: this.keyEncryption.seal(attributes.serverKey) } : attributes;
  }

  /** Attribute values by name: unknown or read-only ones are 400s, as are over-long strings or a NUL. */
  private read(input: ResourceInput): Map<string, unknown> {
    if (input.relationships.size > 0) {
      const [name] = input.relationships.keys();
      throw malformed(`trust-community has no relationship "${name}"`, `/value/relationships/${escape(name)}`);
    }
    for (const [name, value] of input.attributes) {
      const pointer = `/value/attributes/${escape(name)}`;
      if (READ_ONLY.has(name)) throw malformed(`attribute "${name}" is read-only`, pointer);
      if (!WRITABLE.has(name)) throw malformed(`unknown attribute "${name}"`, pointer);
      const strings = Array.isArray(value) ? (value as unknown[]) : [value];
      if (strings.some((item) => typeof item === 'string' && (item.length > MAX_STRING_LENGTH || item.includes('\0')))) {
        throw malformed(`attribute "${name}" is too long or contains a NUL character`, pointer);
      }
    }
    return input.attributes;
  }
}

/** The udap module's refusals as the admin interface answers them: 422 for a broken rule, 400 for a wrong JSON type, 409 for a taken id or communityUri. */
function asAdminError(error: unknown): unknown {
  if (!(error instanceof TrustCommunityError)) return error;
  if (error.kind === 'referenced') return conflict(error.message, '/path');
  const pointer = error.field === 'id' ? '/value/id' : `/value/attributes/${error.field}`;
  if (error.kind === 'taken') return conflict(error.message, pointer);
  return error.kind === 'type' ? malformed(error.message, pointer) : ruleBroken(error.message, pointer);
}

function serialise(row: CountedRow): ResourceObject {
  return {
    type: 'trust-community',
    id: String(row.id),
    attributes: { ...attributesOf(row), clientCount: row.client_count },
    meta: { version: row.version, dateCreated: row.date_created, lastUpdated: row.last_updated },
  };
}
