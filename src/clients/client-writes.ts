import type { EntityManager } from 'typeorm';
import { isForeignKeyViolation, isUniqueViolation } from '../common/database-errors.js';
import { allocateId } from '../database/record-ids.js';
import type { AdministratorCeilings } from './administrator-ceilings.js';
import type { ClientAttributes } from './client-attributes.js';
import { ClientErrorCode, ClientTakenError, RegistrationError, type ValidRegistration } from './client-registration.js';
import type { ClientOrigin } from './new-client.js';

/*
 * The one writer of the client's tables (`client`, `client_metadata`, `redirect_uri`), in the
 * caller's transaction; ClientsService decides what to write.
 */

/** A new client's rows: its attributes, the hash of its secret (null without one), and the record id the caller chose, if any. */
export type ClientRows = {
  requestedId?: number;
  attributes: ClientAttributes;
  clientSecretHash: string | null;
  origin?: ClientOrigin;
  /** docs/guides/dynamic-registration.md#what-an-administrator-keeps: false freezes its own management; absent: the default (true). */
  registrationManagement?: boolean;
};

/**
 * Writes the metadata row, the client row and its redirect URIs in the caller's transaction and
 * answers the record id; a taken id or clientId is a ClientTakenError and leaves no row behind.
 */
export async function insertClient(manager: EntityManager, rows: ClientRows): Promise<number> {
  const { attributes } = rows;
  const id = rows.requestedId ?? (await allocateId(manager, 'client'));
  const metadataId = await insertMetadata(manager, attributes, rows.clientSecretHash);
  // ON CONFLICT DO NOTHING waits for a concurrent writer of the same key and then inserts nothing,
  // without aborting the transaction: the stored rows then say which key was taken.
  const origin = rows.origin ?? { registeredVia: 'admin' };
  const inserted = await manager.query<{ id: number }[]>(
    `INSERT INTO client (id, client_id, client_name, metadata_id, registered_via, initial_access_token_id, contacts, software_id, software_version, registration_management)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, COALESCE($10, true)) ON CONFLICT DO NOTHING RETURNING id`,
    [
      id,
      attributes.clientId,
      attributes.clientName,
      metadataId,
      origin.registeredVia,
      origin.initialAccessTokenId ?? null,
      origin.contacts && origin.contacts.length > 0 ? JSON.stringify(origin.contacts) : null,
      origin.softwareId ?? null,
      origin.softwareVersion ?? null,
      rows.registrationManagement ?? null,
    ],
  );
  if (inserted.length === 0) {
    await manager.query('DELETE FROM client_metadata WHERE id = $1', [metadataId]);
    throw await takenKey(manager, id, attributes.clientId);
  }
  await insertRedirectUris(manager, id, attributes.redirectUris);
  return id;
}

/** A client's redirect URIs, in order (they are read back ordered by row id). */
async function insertRedirectUris(manager: EntityManager, clientRecordId: number, uris: string[]): Promise<void> {
  for (const uri of uris) await manager.query('INSERT INTO redirect_uri (client_id, uri) VALUES ($1, $2)', [clientRecordId, uri]);
}

/** What a replace writes beside the validated registration. */
export type ClientUpdate = {
  issuerUri: string | null;
  metaDataRaw: string | null;
  /** The new secret's hash; null keeps the current one (a key or certificate method drops it all the same). */
  clientSecretHash: string | null;
  dropSecret: boolean;
  registrationManagement?: boolean;
  /** The redirect URIs, when this replace names them. */
  redirectUris?: string[];
  /** What a dynamically registered client says of itself (RFC 7592 updates only). */
  selfDescription?: { contacts: string[]; softwareId: string | null; softwareVersion: string | null };
  /** The administrator's ceilings after this write, when it changed them. */
  ceilings?: AdministratorCeilings;
};

/** Writes a replace of client `id` (its metadata row is `metadataId`); a clientId taken by another client is a ClientTakenError. */
export async function updateClient(
  manager: EntityManager,
  id: number,
  metadataId: number,
  registration: ValidRegistration,
  update: ClientUpdate,
): Promise<void> {
  const self = update.selfDescription;
  await manager
    .query(
      `UPDATE client SET client_id = $2, client_name = $3, registration_management = COALESCE($4, registration_management),
          contacts = CASE WHEN $5 THEN $6 ELSE contacts END, software_id = CASE WHEN $5 THEN $7 ELSE software_id END,
          software_version = CASE WHEN $5 THEN $8 ELSE software_version END, administrator_ceilings = COALESCE($9, administrator_ceilings),
          version = version + 1, last_updated = now() WHERE id = $1`,
      [
        id,
        registration.clientId,
        registration.clientName,
        update.registrationManagement ?? null,
        self !== undefined,
        self && self.contacts.length > 0 ? JSON.stringify(self.contacts) : null,
        self?.softwareId ?? null,
        self?.softwareVersion ?? null,
        update.ceilings === undefined ? null : JSON.stringify(update.ceilings),
      ],
    )
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new ClientTakenError('clientId', registration.clientId);
      throw error;
    });
  await manager.query(
    `UPDATE client_metadata SET client_authentication_type = $2, grant_types = $3, allowed_scopes = $4,
        issuer_uri = $5, jwks_uri = $6, jwks_raw = $7, meta_data_raw = $8,
        client_secret_hash = CASE WHEN $10 THEN NULL ELSE COALESCE($9, client_secret_hash) END,
        dpop_bound_access_tokens = $11, access_token_lifetime = $12, tls_client_auth_subject_dn = $13, tls_client_auth_san_dns = $14,
        tls_client_auth_san_uri = $15, tls_client_auth_san_ip = $16, tls_client_auth_san_email = $17,
        tls_client_certificate_bound_access_tokens = $18, tls_client_auth_issuer_dn = $19, version = version + 1, last_updated = now()
      WHERE id = $1`,
    [
      metadataId,
      registration.authenticationType,
      registration.grantTypes,
      registration.allowedScopes,
      update.issuerUri,
      registration.jwksUri,
      registration.jwksRaw,
      update.metaDataRaw,
      update.clientSecretHash,
      update.dropSecret,
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
  if (update.redirectUris !== undefined) {
    await manager.query('DELETE FROM redirect_uri WHERE client_id = $1', [id]);
    await insertRedirectUris(manager, id, update.redirectUris);
  }
}

/** A new secret's hash for client `id`. */
export async function updateSecretHash(manager: EntityManager, id: number, clientSecretHash: string): Promise<void> {
  await manager.query(
    `UPDATE client_metadata m SET client_secret_hash = $2, version = m.version + 1, last_updated = now()
       FROM client c WHERE c.metadata_id = m.id AND c.id = $1`,
    [id, clientSecretHash],
  );
}

/** Removes client `id` and its rows (its registration goes by ON DELETE CASCADE); records that still refer to it are a StillReferenced refusal. */
export async function deleteClient(manager: EntityManager, id: number, metadataId: number): Promise<void> {
  await manager.query('DELETE FROM redirect_uri WHERE client_id = $1', [id]);
  await manager.query('DELETE FROM client WHERE id = $1', [id]).catch((error: unknown) => {
    if (isForeignKeyViolation(error)) {
      throw new RegistrationError(
        'id',
        `client ${id} is still referenced by tickets, requested resources, data sources or registered UMA resources`,
        ClientErrorCode.StillReferenced,
      );
    }
    throw error;
  });
  await manager.query('DELETE FROM client_metadata WHERE id = $1', [metadataId]);
}

async function insertMetadata(manager: EntityManager, attributes: ClientAttributes, clientSecretHash: string | null): Promise<number> {
  const [{ id }] = await manager.query<{ id: number }[]>(
    `INSERT INTO client_metadata (client_type, client_authentication_type, grant_types, allowed_scopes, client_secret_hash, issuer_uri, jwks_uri, jwks_raw, meta_data_raw, dpop_bound_access_tokens, access_token_lifetime,
       tls_client_auth_subject_dn, tls_client_auth_san_dns, tls_client_auth_san_uri, tls_client_auth_san_ip, tls_client_auth_san_email,
       tls_client_certificate_bound_access_tokens, tls_client_auth_issuer_dn)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id`,
    [
      attributes.clientType,
      attributes.clientAuthenticationType,
      attributes.grantTypes,
      attributes.allowedScopes,
      clientSecretHash,
      attributes.issuerUri,
      attributes.jwksUri,
      attributes.jwksRaw,
      attributes.metaDataRaw,
      attributes.dpopBoundAccessTokens,
      attributes.accessTokenLifetime,
      attributes.tlsClientAuthSubjectDn,
      attributes.tlsClientAuthSanDns,
      attributes.tlsClientAuthSanUri,
      attributes.tlsClientAuthSanIp,
      attributes.tlsClientAuthSanEmail,
      attributes.tlsClientCertificateBoundAccessTokens,
      attributes.tlsClientAuthIssuerDn,
    ],
  );
  return id;
}

/** Which key a refused client row collided with: the record id first, as it was asked for first. */
async function takenKey(manager: EntityManager, id: number, clientId: string): Promise<ClientTakenError> {
  const holders = await manager.query<{ id: number }[]>('SELECT id FROM client WHERE id = $1 OR client_id = $2', [id, clientId]);
  return holders.some((holder) => holder.id === id) ? new ClientTakenError('id', id) : new ClientTakenError('clientId', clientId);
}

/**
 * A UDAP member's client (docs/reference/trust-communities.md#registration): registered by its
 * community's certificate, authenticating with private_key_jwt and the key its certificate
 * carries at each request (no JWKS), identified by (trust community, SAN URI). An empty
 * `grantTypes` is a cancelled registration kept because consent records still name it.
 */
export type UdapMemberRows = {
  clientId: string;
  clientName: string;
  grantTypes: string;
  allowedScopes: string;
  contacts: string[];
  trustCommunityId: number;
  udapIssuer: string;
  organization: string;
};

/**
 * Writes a UDAP member's metadata and client rows in the caller's transaction and answers the
 * record id, or undefined when the community already has a client for this SAN URI (a
 * concurrent registration won; nothing is left behind).
 */
export async function insertUdapMember(manager: EntityManager, member: UdapMemberRows): Promise<number | undefined> {
  const id = await allocateId(manager, 'client');
  const [{ id: metadataId }] = await manager.query<{ id: number }[]>(
    `INSERT INTO client_metadata (client_type, client_authentication_type, grant_types, allowed_scopes)
     VALUES ('CONFIDENTIAL', 'private_key_jwt', $1, $2) RETURNING id`,
    [member.grantTypes, member.allowedScopes],
  );
  const inserted = await manager.query<{ id: number }[]>(
    `INSERT INTO client (id, client_id, client_name, metadata_id, registered_via, contacts, trust_community_id, udap_issuer, organization)
     VALUES ($1, $2, $3, $4, 'udap', $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id`,
    [id, member.clientId, member.clientName, metadataId, JSON.stringify(member.contacts), member.trustCommunityId, member.udapIssuer, member.organization],
  );
  if (inserted.length === 0) {
    await manager.query('DELETE FROM client_metadata WHERE id = $1', [metadataId]);
    return undefined;
  }
  return id;
}

/** A UDAP member's registration again (replaced, cancelled with `grantTypes` empty, or revived), in the caller's transaction. */
export async function updateUdapMember(
  manager: EntityManager,
  id: number,
  member: Omit<UdapMemberRows, 'clientId' | 'trustCommunityId' | 'udapIssuer'>,
): Promise<void> {
  await manager.query(`UPDATE client SET client_name = $2, contacts = $3, organization = $4, version = version + 1, last_updated = now() WHERE id = $1`, [
    id,
    member.clientName,
    JSON.stringify(member.contacts),
    member.organization,
  ]);
  await manager.query(
    `UPDATE client_metadata m SET grant_types = $2, allowed_scopes = $3, version = m.version + 1, last_updated = now()
       FROM client c WHERE c.metadata_id = m.id AND c.id = $1`,
    [id, member.grantTypes, member.allowedScopes],
  );
}
