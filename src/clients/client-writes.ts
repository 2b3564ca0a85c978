import type { EntityManager } from 'typeorm';
import { allocateId } from '../database/record-ids.js';
import type { ClientAttributes } from './client-attributes.js';
import { ClientTakenError } from './client-registration.js';
import type { ClientOrigin } from './new-client.js';

/** A new client's rows: its attributes, the hash of its secret (null without one), and the record id the caller chose, if any. */
export type ClientRows = { requestedId?: number; attributes: ClientAttributes; clientSecretHash: string | null; origin?: ClientOrigin };

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
    `INSERT INTO client (id, client_id, client_name, metadata_id, registered_via, initial_access_token_id, contacts, software_id, software_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id`,
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
export async function insertRedirectUris(manager: EntityManager, clientRecordId: number, uris: string[]): Promise<void> {
  for (const uri of uris) await manager.query('INSERT INTO redirect_uri (client_id, uri) VALUES ($1, $2)', [clientRecordId, uri]);
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
