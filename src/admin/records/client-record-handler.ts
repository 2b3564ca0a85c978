import { withAdministratorWrite, type AdministratorCeilings } from '../../clients/administrator-ceilings.js';
import type { EntityManager } from 'typeorm';
import { isForeignKeyViolation, isUniqueViolation } from '../../common/database-errors.js';
import { hashClientSecret } from '../../clients/client-secrets.js';
import type { ClientAttributes } from '../../clients/client-attributes.js';
import {
  ClientTakenError,
  MAX_ACCESS_TOKEN_LIFETIME,
  RegistrationError,
  TLS_SUBJECT_FIELDS,
  type ClientRegistration,
} from '../../clients/client-registration.js';
import { holdsNoSecret } from '../../clients/client-metadata.entity.js';
import type { ClientsService } from '../../clients/clients.service.js';
import type { NewClient } from '../../clients/new-client.js';
import { insertRedirectUris } from '../../clients/client-writes.js';
import { dataSourceClientLacksProtection, firstUndefinedResourceScope } from '../../tickets/consent-rules.js';
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
];
// Shown and sortable, but not filters (no index serves them).
const UNFILTERED = new Set(['registrationManagement', 'softwareId', 'softwareVersion']);

// JSON:API attribute names → registration field names (clients module), and back.
const FIELD_OF_ATTRIBUTE: Record<string, string> = {
  clientAuthenticationType: 'authenticationType',
  dpopBoundAccessTokens: 'dpopBound',
  tlsClientCertificateBoundAccessTokens: 'certificateBound',
};
const FIELD_TO_ATTRIBUTE: Record<string, string> = Object.fromEntries(Object.entries(FIELD_OF_ATTRIBUTE).map(([attribute, field]) => [field, attribute]));

type Row = {
  id: number;
  version: number;
  date_created: Date;
  last_updated: Date;
  client_id: string;
  client_name: string;
  metadata_id: number;
  client_type: string;
  client_authentication_type: string;
  grant_types: string;
  allowed_scopes: string;
  issuer_uri: string | null;
  jwks_uri: string | null;
  jwks_raw: string | null;
  meta_data_raw: string | null;
  redirect_uris: string[];
  dpop_bound_access_tokens: boolean;
  access_token_lifetime: number | null;
  registered_via: string;
  registration_management: boolean;
  contacts: string | null;
  software_id: string | null;
  software_version: string | null;
  initial_access_token_id: number | null;
  tls_client_auth_subject_dn: string | null;
  tls_client_auth_san_dns: string | null;
  tls_client_auth_san_uri: string | null;
  tls_client_auth_san_ip: string | null;
  tls_client_auth_san_email: string | null;
  tls_client_auth_issuer_dn: string | null;
  tls_client_certificate_bound_access_tokens: boolean;
  administrator_ceilings: AdministratorCeilings | null;
};

// A dynamically registered client's own writes (RFC 7592) carry audit actors `dcr:iat:…` and `dcr:rat:…`; every other actor is an administrator.
const DCR_ACTOR_PREFIX = 'dcr:';

// Filters and sort (docs/reference/admin-filters.md): the client row's own columns, the rest on its metadata row.
const CLIENT_COLUMNS = new Set(['client_id', 'client_name', 'registered_via', 'registration_management', 'software_id', 'software_version', 'contacts']);
const COLLECTION: Collection = {
  from: 'FROM client c JOIN client_metadata m ON m.id = c.metadata_id',
  fields: [
    idField('id', 'c.id'),
    ...attributeFields([...ATTRIBUTES, ...READ_ONLY_ATTRIBUTES], (spec) => `${CLIENT_COLUMNS.has(spec.column) ? 'c' : 'm'}.${spec.column}`).map((field) =>
      UNFILTERED.has(field.name) ? { ...field, filter: false } : field,
    ),
    idField('initialAccessToken', 'c.initial_access_token_id'),
  ],
  search: ['c.client_id', 'c.client_name'],
};

const COLUMNS = `SELECT c.id, c.version, c.date_created, c.last_updated, c.client_id, c.client_name, c.metadata_id,
    m.client_type, m.client_authentication_type, m.grant_types, m.allowed_scopes, m.issuer_uri, m.jwks_uri, m.jwks_raw, m.meta_data_raw,
    m.dpop_bound_access_tokens, m.access_token_lifetime, m.tls_client_auth_subject_dn, m.tls_client_auth_san_dns, m.tls_client_auth_san_uri,
    m.tls_client_auth_san_ip, m.tls_client_auth_san_email, m.tls_client_auth_issuer_dn, m.tls_client_certificate_bound_access_tokens,
    c.registered_via, c.registration_management, c.contacts, c.software_id, c.software_version, c.initial_access_token_id, c.administrator_ceilings,
    COALESCE((SELECT array_agg(r.uri ORDER BY r.id) FROM redirect_uri r WHERE r.client_id = c.id), '{}') AS redirect_uris`;
const SELECT = `${COLUMNS} ${COLLECTION.from}`;

/** `uma-client`: maps onto the clients module's registration; secrets go in, never out. */
export class ClientRecordHandler implements RecordHandler {
  readonly type = 'uma-client';
  readonly relationships = { initialAccessToken: 'initial-access-token' };
  readonly collection = COLLECTION;

  constructor(private readonly clients: ClientsService) {}

  /** The clients module registers the client, in this request's transaction. */
  async create(manager: EntityManager, input: ResourceInput): Promise<Written> {
    const values = this.read(input, true);
    try {
      const { registrationManagement, ...registration } = values;
      const created = await this.clients.register({ ...(registration as NewClient), id: input.id }, manager);
      if (registrationManagement !== undefined) {
        await manager.query('UPDATE client SET registration_management = $2 WHERE id = $1', [created.id, registrationManagement]);
      }
      const allowedScopes = String(registration.allowedScopes);
      return {
        id: created.id,
        meta: created.secretGenerated ? { clientSecret: created.clientSecret } : undefined,
        atEnd: (atEnd) => refuseUndefinedResourceScopes(atEnd, allowedScopes),
      };
    } catch (error) {
      throw asAdminError(error);
    }
  }

  async update(manager: EntityManager, id: number, input: ResourceInput, actor: string): Promise<Written> {
    const values = this.read(input, false);
    const [current] = await this.rows(manager, 'WHERE c.id = $1 FOR UPDATE OF c', [id]);
    if (!current) throw notFound(`no uma-client with id ${id}`, '/path');
    const merged = { ...this.registrationOf(current), ...values } as ClientRegistration & Record<string, unknown>;
    // A new subject value, or a method other than tls_client_auth, replaces the registered value.
    const namesSubject = TLS_SUBJECT_FIELDS.some(([field]) => values[field] !== undefined);
    if (namesSubject || (values.authenticationType !== undefined && values.authenticationType !== 'tls_client_auth')) {
      for (const [field] of TLS_SUBJECT_FIELDS) if (values[field] === undefined) merged[field] = null;
    }
    const registration = this.validate(merged);
    await manager
      .query(
        `UPDATE client SET client_id = $2, client_name = $3, registration_management = COALESCE($4, registration_management),
            version = version + 1, last_updated = now() WHERE id = $1`,
        [id, registration.clientId, registration.clientName, values.registrationManagement ?? null],
      )
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) throw conflict(`another uma-client already has clientId "${registration.clientId}"`, '/value/attributes/clientId');
        throw error;
      });
    const secretHash = registration.clientSecret === undefined ? null : await hashClientSecret(registration.clientSecret);
    // A client moved to a key or certificate method loses its secret: it must not authenticate with it any more.
    const keyHolding = holdsNoSecret(registration.authenticationType);
    await manager.query(
      `UPDATE client_metadata SET client_authentication_type = $2, grant_types = $3, allowed_scopes = $4,
          issuer_uri = $5, jwks_uri = $6, jwks_raw = $7, meta_data_raw = $8,
          client_secret_hash = CASE WHEN $10 THEN NULL ELSE COALESCE($9, client_secret_hash) END,
          dpop_bound_access_tokens = $11, access_token_lifetime = $12, tls_client_auth_subject_dn = $13, tls_client_auth_san_dns = $14,
          tls_client_auth_san_uri = $15, tls_client_auth_san_ip = $16, tls_client_auth_san_email = $17,
          tls_client_certificate_bound_access_tokens = $18, tls_client_auth_issuer_dn = $19, version = version + 1, last_updated = now()
        WHERE id = $1`,
      [
        current.metadata_id,
        registration.authenticationType,
        registration.grantTypes,
        registration.allowedScopes,
        merged.issuerUri ?? null,
        registration.jwksUri,
        registration.jwksRaw,
        merged.metaDataRaw ?? null,
        secretHash,
        keyHolding,
        registration.dpopBound,
        registration.accessTokenLifetime,
        registration.tlsClientAuthSubjectDn,
        registration.tlsClientAuthSanDns,
        registration.tlsClientAuthSanUri,
        registration.tlsClientAuthSanIp,
        registration.tlsClientAuthSanEmail,
        registration.certificateBound,
        registration.tlsClientAuthIssuerDn,
      ],
    );
    // An administrator's change of a dynamically registered client is a ceiling of its own RFC 7592
    // updates (docs/reference/registration-endpoint.md#an-administrators-changes-are-ceilings).
    if (current.registered_via === 'dcr' && !actor.startsWith(DCR_ACTOR_PREFIX)) {
      // Only a value this write changes: the console's form sends every attribute, and a save that
      // changed the name must not freeze the rest.
      const changed = <T>(value: T, before: T): T | undefined => (value !== before ? value : undefined);
      const ceilings = withAdministratorWrite(current.administrator_ceilings, {
        scope: changed(registration.allowedScopes, current.allowed_scopes),
        grantTypes: changed(registration.grantTypes, current.grant_types),
        accessTokenLifetime: changed(registration.accessTokenLifetime, current.access_token_lifetime),
        dpopBound: changed(registration.dpopBound, current.dpop_bound_access_tokens),
        certificateBound: changed(registration.certificateBound, current.tls_client_certificate_bound_access_tokens),
      });
      if (ceilings) await manager.query('UPDATE client SET administrator_ceilings = $2 WHERE id = $1', [id, JSON.stringify(ceilings)]);
    }
    if (values.redirectUris !== undefined) {
      await manager.query('DELETE FROM redirect_uri WHERE client_id = $1', [id]);
      await insertRedirectUris(manager, id, registration.redirectUris);
    }
    // docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: the introspection client of a data source keeps uma_protection.
    if (await dataSourceClientLacksProtection(manager, 'client', id)) {
      throw ruleBroken('this uma-client introspects for a data-source: its allowedScopes must keep uma_protection', '/value/attributes/allowedScopes');
    }
    // Only a write of allowedScopes is checked: a scope removed since does not block other changes.
    if (values.allowedScopes === undefined) return { id };
    return { id, atEnd: (atEnd) => refuseUndefinedResourceScopes(atEnd, registration.allowedScopes) };
  }

  async remove(manager: EntityManager, id: number): Promise<void> {
    const [current] = await this.rows(manager, 'WHERE c.id = $1', [id]);
    if (!current) throw notFound(`no uma-client with id ${id}`, '/path');
    await manager.query('DELETE FROM redirect_uri WHERE client_id = $1', [id]);
    await manager.query('DELETE FROM client WHERE id = $1', [id]).catch((error: unknown) => {
      if (isForeignKeyViolation(error))
        throw conflict(`uma-client ${id} is still referenced by tickets, requested resources, data sources or registered UMA resources`, '/path');
      throw error;
    });
    await manager.query('DELETE FROM client_metadata WHERE id = $1', [current.metadata_id]);
  }

  async find(manager: EntityManager, ids: number[]): Promise<ResourceObject[]> {
    if (ids.length === 0) return [];
    return (await this.rows(manager, 'WHERE c.id = ANY($1)', [ids])).map((row) => this.serialise(row));
  }

  async list(manager: EntityManager, query: ListQuery): Promise<{ records: ResourceObject[]; total: number }> {
    const { rows, total } = await selectPage<Row>(manager, COLLECTION, COLUMNS, query);
    return { records: rows.map((row) => this.serialise(row)), total };
  }

  async snapshot(manager: EntityManager, id: number): Promise<Snapshot | null> {
    const [record] = await this.find(manager, [id]);
    return record ? { ...record.attributes } : null;
  }

  private rows(manager: EntityManager, tail: string, parameters: unknown[]): Promise<Row[]> {
    return manager.query(`${SELECT} ${tail}`, parameters);
  }

  private serialise(row: Row): ResourceObject {
    const attributes: ClientAttributes & Record<string, unknown> = {
      clientId: row.client_id,
      clientName: row.client_name,
      clientType: row.client_type,
      clientAuthenticationType: row.client_authentication_type,
      grantTypes: row.grant_types,
      allowedScopes: row.allowed_scopes,
      redirectUris: row.redirect_uris,
      issuerUri: row.issuer_uri,
      jwksUri: row.jwks_uri,
      jwksRaw: row.jwks_raw,
      metaDataRaw: row.meta_data_raw,
      dpopBoundAccessTokens: row.dpop_bound_access_tokens,
      accessTokenLifetime: row.access_token_lifetime,
      registrationManagement: row.registration_management,
      registeredVia: row.registered_via,
      softwareId: row.software_id,
      softwareVersion: row.software_version,
      contacts: row.contacts === null ? [] : (JSON.parse(row.contacts) as string[]),
      tlsClientAuthSubjectDn: row.tls_client_auth_subject_dn,
      tlsClientAuthSanDns: row.tls_client_auth_san_dns,
      tlsClientAuthSanUri: row.tls_client_auth_san_uri,
      tlsClientAuthSanIp: row.tls_client_auth_san_ip,
      tlsClientAuthSanEmail: row.tls_client_auth_san_email,
      tlsClientAuthIssuerDn: row.tls_client_auth_issuer_dn,
      tlsClientCertificateBoundAccessTokens: row.tls_client_certificate_bound_access_tokens,
    };
    const relationships = {
      initialAccessToken: { data: row.initial_access_token_id === null ? null : { type: 'initial-access-token', id: String(row.initial_access_token_id) } },
    };
    return {
      type: this.type,
      id: String(row.id),
      attributes,
      relationships,
      meta: { version: row.version, dateCreated: row.date_created, lastUpdated: row.last_updated },
    };
  }

  private registrationOf(row: Row): ClientRegistration & Record<string, unknown> {
    return {
      clientId: row.client_id,
      clientName: row.client_name,
      authenticationType: row.client_authentication_type,
      grantTypes: row.grant_types,
      allowedScopes: row.allowed_scopes,
      redirectUris: row.redirect_uris,
      issuerUri: row.issuer_uri,
      jwksUri: row.jwks_uri,
      jwksRaw: row.jwks_raw,
      metaDataRaw: row.meta_data_raw,
      dpopBound: row.dpop_bound_access_tokens,
      accessTokenLifetime: row.access_token_lifetime,
      tlsClientAuthSubjectDn: row.tls_client_auth_subject_dn,
      tlsClientAuthSanDns: row.tls_client_auth_san_dns,
      tlsClientAuthSanUri: row.tls_client_auth_san_uri,
      tlsClientAuthSanIp: row.tls_client_auth_san_ip,
      tlsClientAuthSanEmail: row.tls_client_auth_san_email,
      tlsClientAuthIssuerDn: row.tls_client_auth_issuer_dn,
      certificateBound: row.tls_client_certificate_bound_access_tokens,
    };
  }

  /** Input attributes by JSON:API name, with clientAuthenticationType under the registration's name. */
  private read(input: ResourceInput, creating: boolean): Record<string, unknown> {
    if (input.relationships.size > 0) {
      const [name] = input.relationships.keys();
      if (name === 'initialAccessToken') throw malformed('relationship "initialAccessToken" is read-only', `/value/relationships/${escape(name)}`);
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

  private validate(registration: ClientRegistration) {
    try {
      return this.clients.validate(registration);
    } catch (error) {
      throw asAdminError(error);
    }
  }
}

/**
 * docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: every resource scope
 * (`<definition>:<scope>`) of allowedScopes names a scope record, so that a misspelling
 * (`blood-glucose-level:raed`) is a 422 naming it, not a client that silently never gets a token.
 */
async function refuseUndefinedResourceScopes(manager: EntityManager, allowedScopes: string): Promise<void> {
  const missing = await firstUndefinedResourceScope(manager, allowedScopes.split(/\s+/).filter(Boolean));
  if (!missing) return;
  const [definition] = missing.name.split(':');
  const instead =
    missing.defined === null
      ? `no resource-definition is named "${definition}"`
      : missing.defined.length === 0
        ? `resource-definition "${definition}" has no scopes yet`
        : `resource-definition "${definition}" has ${missing.defined.map((name) => `"${name}"`).join(', ')}`;
  throw ruleBroken(`allowedScopes: "${missing.name}" names no defined scope (${instead}); define the scope first`, '/value/attributes/allowedScopes');
}

/** The clients module's refusals as the admin interface answers them; anything else passes unchanged. */
function asAdminError(error: unknown): unknown {
  if (error instanceof ClientTakenError) {
    return error.field === 'id'
      ? conflict(`uma-client ${error.value} already exists`, '/value/id')
      : conflict(`another uma-client already has clientId "${error.value}"`, '/value/attributes/clientId');
  }
  if (error instanceof RegistrationError) return ruleBroken(error.message, `/value/attributes/${FIELD_TO_ATTRIBUTE[error.field] ?? error.field}`);
  return error;
}
