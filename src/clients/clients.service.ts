import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../common/database-errors.js';
import { Client } from './client.entity.js';
import { ClientMetadata } from './client-metadata.entity.js';
import { RedirectUri } from './redirect-uri.entity.js';
import { generateClientSecret, hashClientSecret } from './client-secrets.js';
import { RegistrationError, validateRegistration, type ClientRegistration } from './client-registration.js';
import { recordAuditEvent } from '../tickets/audit-trail.js';

/** What registration hands out once: the secret, absent for a private_key_jwt client (it has none). */
export type IssuedCredentials = { clientId: string; clientSecret?: string };

@Injectable()
export class ClientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Registers a confidential client; the secret (given or generated) is returned once, stored
   * hashed. With an `actor` (the CLI), the registration is an audit event of the same transaction.
   */
  async create(input: ClientRegistration, actor?: string): Promise<IssuedCredentials> {
    const registration = validateRegistration(input, { allowPrivateJwksUri: this.config.jwksUriAllowHttp });
    const keyHolding = registration.authenticationType === 'private_key_jwt';
    const clientSecret = keyHolding ? undefined : (registration.clientSecret ?? generateClientSecret());
    const clientSecretHash = clientSecret === undefined ? null : await hashClientSecret(clientSecret);
    await this.dataSource
      .transaction(async (manager) => {
        if (await manager.existsBy(Client, { clientId: registration.clientId })) {
          throw new RegistrationError('clientId', `a client with id "${registration.clientId}" already exists`);
        }
        const metadata = manager.create(ClientMetadata, {
          clientAuthenticationType: registration.authenticationType,
          clientType: 'CONFIDENTIAL',
          grantTypes: registration.grantTypes,
          allowedScopes: registration.allowedScopes,
          clientSecretHash,
          issuerUri: null,
          jwksRaw: registration.jwksRaw,
          jwksUri: registration.jwksUri,
          dpopBoundAccessTokens: registration.dpopBound,
          accessTokenLifetime: registration.accessTokenLifetime,
          metaDataRaw: null,
        });
        const client = manager.create(Client, {
          clientId: registration.clientId,
          clientName: registration.clientName,
          metadata,
          redirectUris: registration.redirectUris.map((uri) => manager.create(RedirectUri, { uri })),
        });
        await manager.save(client);
        if (actor !== undefined) {
          const after = {
            clientId: registration.clientId,
            clientName: registration.clientName,
            clientType: 'CONFIDENTIAL',
            clientAuthenticationType: registration.authenticationType,
            grantTypes: registration.grantTypes,
            allowedScopes: registration.allowedScopes,
            redirectUris: registration.redirectUris,
            jwksUri: registration.jwksUri,
            jwksRaw: registration.jwksRaw,
            dpopBoundAccessTokens: registration.dpopBound,
            accessTokenLifetime: registration.accessTokenLifetime,
          };
          await recordAuditEvent(manager, { actor, operation: 'add', recordType: 'uma-client', recordId: client.id, before: null, after });
        }
      })
      .catch((error: unknown) => {
        // Two registrations racing for one id: the unique constraint decides.
        if (isUniqueViolation(error)) {
          throw new RegistrationError('clientId', `a client with id "${registration.clientId}" already exists`);
        }
        throw error;
      });
    return { clientId: registration.clientId, clientSecret };
  }

  /**
   * A new secret; the old one stops working on every instance within a second (change feed).
   * With an `actor`, the rotation is an audit event of the same transaction (never the secret).
   */
  async rotateSecret(clientId: string, actor?: string): Promise<IssuedCredentials> {
    const keyHolding: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM client c JOIN client_metadata m ON m.id = c.metadata_id
        WHERE c.client_id = $1 AND m.client_authentication_type = 'private_key_jwt'`,
      [clientId],
    );
    if (keyHolding.length > 0) {
      throw new RegistrationError('clientId', `client "${clientId}" authenticates with private_key_jwt and has no secret to rotate`);
    }
    const clientSecret = generateClientSecret();
    const clientSecretHash = await hashClientSecret(clientSecret);
    await this.dataSource.transaction(async (manager) => {
      const [rows]: [{ id: number }[], number] = await manager.query(
        `UPDATE client_metadata m
            SET client_secret_hash = $2, version = m.version + 1, last_updated = now()
           FROM client c
          WHERE c.metadata_id = m.id AND c.client_id = $1
         RETURNING c.id`,
        [clientId, clientSecretHash],
      );
      if (rows.length === 0) throw new RegistrationError('clientId', `no client with id "${clientId}"`);
      if (actor !== undefined) {
        await recordAuditEvent(manager, {
          actor,
          operation: 'rotate-secret',
          recordType: 'uma-client',
          recordId: rows[0].id,
          before: null,
          after: { clientId },
        });
      }
    });
    return { clientId, clientSecret };
  }
}
