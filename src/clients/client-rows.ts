import type { EntityManager } from 'typeorm';
import type { AdministratorCeilings } from './administrator-ceilings.js';
import type { ClientAttributes } from './client-attributes.js';
import type { ClientRegistration } from './client-registration.js';

/**
 * A client as stored: the client row, its metadata row and its redirect URIs, read in one
 * statement. Typed once here for everyone who reads clients (the admin interface, dynamic
 * registration, the clients module's own writes); never the secret's hash.
 */
export type ClientRow = {
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
  trust_community_id: number | null;
  udap_issuer: string | null;
  organization: string | null;
};

/** The tables a client's record spans (`c`: client, `m`: its metadata row). */
export const CLIENT_FROM = 'FROM client c JOIN client_metadata m ON m.id = c.metadata_id';

/** The columns of a ClientRow, for a `SELECT … ${CLIENT_FROM}`. */
export const CLIENT_COLUMNS = `SELECT c.id, c.version, c.date_created, c.last_updated, c.client_id, c.client_name, c.metadata_id,
    m.client_type, m.client_authentication_type, m.grant_types, m.allowed_scopes, m.issuer_uri, m.jwks_uri, m.jwks_raw, m.meta_data_raw,
    m.dpop_bound_access_tokens, m.access_token_lifetime, m.tls_client_auth_subject_dn, m.tls_client_auth_san_dns, m.tls_client_auth_san_uri,
    m.tls_client_auth_san_ip, m.tls_client_auth_san_email, m.tls_client_auth_issuer_dn, m.tls_client_certificate_bound_access_tokens,
    c.registered_via, c.registration_management, c.contacts, c.software_id, c.software_version, c.initial_access_token_id, c.administrator_ceilings,
    c.trust_community_id, c.udap_issuer, c.organization,
    COALESCE((SELECT array_agg(r.uri ORDER BY r.id) FROM redirect_uri r WHERE r.client_id = c.id), '{}') AS redirect_uris`;

/** Clients by a `WHERE …` tail over CLIENT_FROM (e.g. `WHERE c.id = $1 FOR UPDATE OF c`). */
export function readClientRows(manager: Pick<EntityManager, 'query'>, tail: string, parameters: unknown[]): Promise<ClientRow[]> {
  return manager.query(`${CLIENT_COLUMNS} ${CLIENT_FROM} ${tail}`, parameters);
}

/** What a client shows of itself beyond its registration: its origin and what it said of itself (docs/guides/dynamic-registration.md#what-an-administrator-keeps). */
export type ClientShown = ClientAttributes & {
  registrationManagement: boolean;
  registeredVia: string;
  softwareId: string | null;
  softwareVersion: string | null;
  contacts: string[];
  /** A UDAP client's identity in its community and its organization (docs/reference/trust-communities.md); null otherwise. */
  udapIssuer: string | null;
  organization: string | null;
};

/** A client as the admin interface shows it and the audit trail records it (never the secret). */
export function shownClient(row: ClientRow): ClientShown {
  return {
    ...namedAlikeOf(row),
    clientType: row.client_type,
    clientAuthenticationType: row.client_authentication_type,
    dpopBoundAccessTokens: row.dpop_bound_access_tokens,
    registrationManagement: row.registration_management,
    registeredVia: row.registered_via,
    softwareId: row.software_id,
    softwareVersion: row.software_version,
    contacts: row.contacts === null ? [] : (JSON.parse(row.contacts) as string[]),
    udapIssuer: row.udap_issuer,
    organization: row.organization,
    tlsClientCertificateBoundAccessTokens: row.tls_client_certificate_bound_access_tokens,
  };
}

/** The stored client as a registration, the starting point of a replace. */
export function registrationOfRow(row: ClientRow): ClientRegistration & { issuerUri: string | null; metaDataRaw: string | null } {
  return {
    ...namedAlikeOf(row),
    authenticationType: row.client_authentication_type,
    dpopBound: row.dpop_bound_access_tokens,
    certificateBound: row.tls_client_certificate_bound_access_tokens,
  };
}

/** The members a registration and the admin interface name alike, the registered tls_client_auth values (docs/guides/mtls.md#registering-a-client) among them. */
function namedAlikeOf(row: ClientRow) {
  return {
    clientId: row.client_id,
    clientName: row.client_name,
    grantTypes: row.grant_types,
    allowedScopes: row.allowed_scopes,
    redirectUris: row.redirect_uris,
    issuerUri: row.issuer_uri,
    jwksUri: row.jwks_uri,
    jwksRaw: row.jwks_raw,
    metaDataRaw: row.meta_data_raw,
    accessTokenLifetime: row.access_token_lifetime,
    tlsClientAuthSubjectDn: row.tls_client_auth_subject_dn,
    tlsClientAuthSanDns: row.tls_client_auth_san_dns,
    tlsClientAuthSanUri: row.tls_client_auth_san_uri,
    tlsClientAuthSanIp: row.tls_client_auth_san_ip,
    tlsClientAuthSanEmail: row.tls_client_auth_san_email,
    tlsClientAuthIssuerDn: row.tls_client_auth_issuer_dn,
  };
}
