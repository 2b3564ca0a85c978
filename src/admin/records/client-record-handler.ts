import type { EntityManager } from 'typeorm';
import { ClientErrorCode, MAX_ACCESS_TOKEN_LIFETIME, RegistrationError } from '../../clients/client-registration.js';
import type { ClientChanges, ClientsService } from '../../clients/clients.service.js';
import { CLIENT_COLUMNS, CLIENT_FROM, readClientRows, shownClient, type ClientRow } from '../../clients/client-rows.js';
import type { NewClient } from '../../clients/new-client.js';
import { dataSourceClientLacksProtection, undefinedResourceScopeRefusal } from '../../tickets/consent-rules.js';
import { communityScopeCeilingOfClient } from '../../udap/trust-communities.js';
import { conflict, malformed, notFound, ruleBroken } from '../json-api/admin-error.js';
import { escape, type ResourceInput, type ResourceObject } from '../json-api/resource-object.js';
import { readAttributes, type AttributeSpec } from './attribute-rules.js';
import { attributeFields, idField, selectPage, type Collection, type ListQuery } from './collection.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';

// docs/concepts/consent-tickets.md#the-records: the client registration, its metadata row and its redirect URIs, as one type.
const ATTRIBUTES: AttributeSpec[] = [
  { name: 'clientId', column: 'client_id', kind: 'string', required: true },
  { name: 'clientName', column: 'client_name', kind: 'string', required: true },
  { name: 'clientType', column: 'client_type', kind: 'string', required: false },
  { name: 'clientAuthenticationType', column: 'client_authentication_type', kind: 'string', required: false },
  { name: 'grantTypes', column: 'grant_types', kind: 'string', required: false },
  { name: 'allowedScopes', column: 'allowed_scopes', kind: 'string', required: true, maxLength: 4096 },
  { name: 'redirectUris', column: 'redirect_uris', kind: 'string-array', required: false, maxLength: 2048 },
  { name: 'issuerUri', column: 'issuer_uri', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'jwksUri', column: 'jwks_uri', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'jwksRaw', column: 'jwks_raw', kind: 'text', required: false, nullable: true, maxLength: 65536 },
  { name: 'metaDataRaw', column: 'meta_data_raw', kind: 'text', required: false, nullable: true, maxLength: 65536 },
  { name: 'dpopBoundAccessTokens', column: 'dpop_bound_access_tokens', kind: 'boolean', required: false },
  { name: 'accessTokenLifetime', column: 'access_token_lifetime', kind: 'positive-integer', required: false, nullable: true, max: MAX_ACCESS_TOKEN_LIFETIME },
  // docs/guides/mtls.md#registering-a-client: a tls_client_auth client's one subject value, and certificate-bound tokens.
  { name: 'tlsClientAuthSubjectDn', column: 'tls_client_auth_subject_dn', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'tlsClientAuthSanDns', column: 'tls_client_auth_san_dns', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'tlsClientAuthSanUri', column: 'tls_client_auth_san_uri', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'tlsClientAuthSanIp', column: 'tls_client_auth_san_ip', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'tlsClientAuthSanEmail', column: 'tls_client_auth_san_email', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  // docs/guides/mtls.md#the-ca-file: the issuer binding; null lets any CA of TLS_CLIENT_CA_FILE vouch for the client.
  { name: 'tlsClientAuthIssuerDn', column: 'tls_client_auth_issuer_dn', kind: 'string', required: false, nullable: true, maxLength: 2048 },
  { name: 'tlsClientCertificateBoundAccessTokens', column: 'tls_client_certificate_bound_access_tokens', kind: 'boolean', required: false },
  // Write-only: hashed at once, never read back.
  { name: 'clientSecret', column: 'client_secret', kind: 'string', required: false, writeOnly: true },
  // docs/guides/dynamic-registration.md#what-an-administrator-keeps: false freezes a dynamically registered client's own management.
  { name: 'registrationManagement', column: 'registration_management', kind: 'boolean', required: false },
];

// docs/guides/dynamic-registration.md#what-an-administrator-keeps: how the client came to be and what it said of itself; never written here.
const READ_ONLY_ATTRIBUTES: AttributeSpec[] = [
  { name: 'registeredVia', column: 'registered_via', kind: 'string', required: false },
  { name: 'softwareId', column: 'software_id', kind: 'string', required: false, nullable: true },
  { name: 'softwareVersion', column: 'software_version', kind: 'string', required: false, nullable: true },
  { name: 'contacts', column: 'contacts', kind: 'string-array', required: false },
  // docs/reference/trust-communities.md#registered-clients: a UDAP client's identity in its community and its organization.
  { name: 'udapIssuer', column: 'udap_issuer', kind: 'string', required: false, nullable: true },
  { name: 'organization', column: 'organization', kind: 'string', required: false, nullable: true },
];
// Shown and sortable, but not filters (no index serves them).
const UNFILTERED = new Set(['registrationManagement', 'softwareId', 'softwareVersion', 'udapIssuer', 'organization']);

// JSON:API attribute names → registration field names (clients module), and back.
const FIELD_OF_ATTRIBUTE: Record<string, string> = {
  clientAuthenticationType: 'authenticationType',
  dpopBoundAccessTokens: 'dpopBound',
  tlsClientCertificateBoundAccessTokens: 'certificateBound',
};
const FIELD_TO_ATTRIBUTE: Record<string, string> = Object.fromEntries(Object.entries(FIELD_OF_ATTRIBUTE).map(([attribute, field]) => [field, attribute]));

// Filters and sort (docs/reference/admin-filters.md): the client row's own columns, the rest on its metadata row.
const CLIENT_COLUMNS_OF_CLIENT_ROW = new Set([
  'client_id',
  'client_name',
  'registered_via',
  'registration_management',
  'software_id',
  'software_version',
  'contacts',
  'udap_issuer',
  'organization',
]);
const COLLECTION: Collection = {
  from: CLIENT_FROM,
  fields: [
    idField('id', 'c.id'),
    ...attributeFields([...ATTRIBUTES, ...READ_ONLY_ATTRIBUTES], (spec) => `${CLIENT_COLUMNS_OF_CLIENT_ROW.has(spec.column) ? 'c' : 'm'}.${spec.column}`).map(
      (field) => (UNFILTERED.has(field.name) ? { ...field, filter: false } : field),
    ),
    idField('initialAccessToken', 'c.initial_access_token_id'),
    idField('trustCommunity', 'c.trust_community_id'),
  ],
  search: ['c.client_id', 'c.client_name'],
};

/** `uma-client`: maps onto the clients module's registration; secrets go in, never out. */
export class ClientRecordHandler implements RecordHandler {
  readonly type = 'uma-client';
  readonly relationships = { initialAccessToken: 'initial-access-token', trustCommunity: 'trust-community' };
  readonly collection = COLLECTION;

  constructor(private readonly clients: ClientsService) {}

  /** The clients module registers the client, in this request's transaction. */
  async create(manager: EntityManager, input: ResourceInput): Promise<Written> {
    const values = this.read(input, true);
    try {
      const created = await this.clients.register({ ...(values as NewClient & { registrationManagement?: boolean }), id: input.id }, manager);
      const allowedScopes = String(values.allowedScopes);
      return {
        id: created.id,
        meta: created.secretGenerated ? { clientSecret: created.clientSecret } : undefined,
        atEnd: (atEnd) => refuseUndefinedResourceScopes(atEnd, allowedScopes),
      };
    } catch (error) {
      throw asAdminError(error);
    }
  }

  /** The clients module replaces the client; this interface adds the consent records' rules. */
  async update(manager: EntityManager, id: number, input: ResourceInput, actor: string): Promise<Written> {
    const values = this.read(input, false) as ClientChanges;
    if (values.allowedScopes !== undefined) await refuseScopesPastCommunityCeiling(manager, id, String(values.allowedScopes));
    try {
      await this.clients.replace(manager, id, values, actor);
    } catch (error) {
      throw asAdminError(error, id);
    }
    // docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: the introspection client of a data source keeps uma_protection.
    if (await dataSourceClientLacksProtection(manager, 'client', id)) {
      throw ruleBroken('this uma-client introspects for a data-source: its allowedScopes must keep uma_protection', '/value/attributes/allowedScopes');
    }
    // Only a write of allowedScopes is checked: a scope removed since does not block other changes.
    if (values.allowedScopes === undefined) return { id };
    const allowedScopes = values.allowedScopes;
    return { id, atEnd: (atEnd) => refuseUndefinedResourceScopes(atEnd, allowedScopes) };
  }

  async remove(manager: EntityManager, id: number): Promise<void> {
    try {
      await this.clients.remove(manager, id);
    } catch (error) {
      throw asAdminError(error, id);
    }
  }

  async find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]> {
    if (ids.length === 0) return [];
    return (await this.rows(manager, 'WHERE c.id = ANY($1)', [ids])).map((row) => this.serialise(row));
  }

  async list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }> {
    const { rows, total } = await selectPage<ClientRow>(manager, COLLECTION, CLIENT_COLUMNS, query);
    return { records: rows.map((row) => this.serialise(row)), total };
  }

  async snapshot(manager: EntityManager, id: number): Promise<Snapshot | null> {
    const [record] = await this.find(manager, [id]);
    return record ? { ...record.attributes } : null;
  }

  private rows(manager: EntityManager, tail: string, parameters: unknown[]): Promise<ClientRow[]> {
    return readClientRows(manager, tail, parameters);
  }

  private serialise(row: ClientRow): ResourceObject {
    const attributes = shownClient(row);
    const relationships = {
      initialAccessToken: { data: row.initial_access_token_id === null ? null : { type: 'initial-access-token', id: String(row.initial_access_token_id) } },
      trustCommunity: { data: row.trust_community_id === null ? null : { type: 'trust-community', id: String(row.trust_community_id) } },
    };
    return {
      type: this.type,
      id: String(row.id),
      attributes,
      relationships,
      meta: { version: row.version, dateCreated: row.date_created, lastUpdated: row.last_updated },
    };
  }

  /** Input attributes by JSON:API name, with clientAuthenticationType under the registration's name. */
  private read(input: ResourceInput, creating: boolean): Record<string, unknown> {
    if (input.relationships.size > 0) {
      const [name] = input.relationships.keys();
      if (name === 'initialAccessToken' || name === 'trustCommunity')
        throw malformed(`relationship "${name}" is read-only`, `/value/relationships/${escape(name)}`);
      throw malformed(`uma-client has no relationship "${name}"`, `/value/relationships/${escape(name)}`);
    }
    for (const name of input.attributes.keys()) {
      if (READ_ONLY_ATTRIBUTES.some((spec) => spec.name === name)) throw malformed(`attribute "${name}" is read-only`, `/value/attributes/${escape(name)}`);
    }
    const values: Record<string, unknown> = {};
    for (const [spec, value] of readAttributes(ATTRIBUTES, input.attributes, creating)) {
      values[FIELD_OF_ATTRIBUTE[spec.name] ?? spec.name] = value;
    }
    if (values.clientType !== undefined && values.clientType !== 'CONFIDENTIAL') {
      throw ruleBroken('only CONFIDENTIAL clients are supported', '/value/attributes/clientType');
    }
    delete values.clientType;
    return values;
  }
}

/**
 * docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: every resource scope
 * (`<definition>:<scope>`) of allowedScopes names a scope record, so that a misspelling
 * (`blood-glucose-level:raed`) is a 422 naming it, not a client that silently never gets a token.
 */
async function refuseUndefinedResourceScopes(manager: EntityManager, allowedScopes: string): Promise<void> {
  const refusal = await undefinedResourceScopeRefusal(manager, allowedScopes);
  if (refusal) throw ruleBroken(`allowedScopes: ${refusal}`, '/value/attributes/allowedScopes');
}

/**
 * docs/reference/trust-communities.md#registered-clients: an administrator may narrow a UDAP
 * client's allowedScopes, never widen them past its community's scopeCeiling.
 */
async function refuseScopesPastCommunityCeiling(manager: EntityManager, id: number, allowedScopes: string): Promise<void> {
  const ceiling = await communityScopeCeilingOfClient(manager, id);
  if (ceiling === undefined) return;
  const within = new Set(ceiling.split(' '));
  const outside = allowedScopes.split(' ').find((scope) => scope !== '' && !within.has(scope));
  if (outside !== undefined) {
    throw ruleBroken(`allowedScopes: ${outside} is outside the scopeCeiling of the client's trust community (${ceiling})`, '/value/attributes/allowedScopes');
  }
}

/** The clients module's refusals as the admin interface answers them; anything else passes unchanged. */
function asAdminError(error: unknown, id?: number): unknown {
  if (!(error instanceof RegistrationError)) return error;
  switch (error.code) {
    case ClientErrorCode.Taken:
      return error.field === 'id'
        ? conflict(`uma-client ${(error as RegistrationError & { value: number }).value} already exists`, '/value/id')
        : conflict(`another uma-client already has clientId "${(error as RegistrationError & { value: string }).value}"`, '/value/attributes/clientId');
    case ClientErrorCode.NotFound:
      return notFound(`no uma-client with id ${id}`, '/path');
    case ClientErrorCode.StillReferenced:
      return conflict(`uma-client ${id} is still referenced by tickets, requested resources, data sources or registered UMA resources`, '/path');
    default:
      return ruleBroken(error.message, `/value/attributes/${FIELD_TO_ATTRIBUTE[error.field] ?? error.field}`);
  }
}
