import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { generateClientSecret, hashClientSecret } from './client-secrets.js';
import {
  ClientErrorCode,
  RegistrationError,
  TLS_SUBJECT_FIELDS,
  validateRegistration,
  type ClientRegistration,
  type ValidRegistration,
} from './client-registration.js';
import { deleteClient, insertClient, insertUdapMember, updateClient, updateSecretHash, updateUdapMember, type UdapMemberRows } from './client-writes.js';
import { holdsNoSecret } from './client-metadata.entity.js';
import { newClientAttributes, newSecretOf, type NewClient } from './new-client.js';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { withAdministratorWrite } from './administrator-ceilings.js';
import { readClientRows, registrationOfRow, shownClient, type ClientRow, type ClientShown } from './client-rows.js';

/**
 * A replace of a client: the members it names (absent ones keep their stored values). The admin
 * interface may name every attribute; an RFC 7592 update names what the client may change and
 * what it says of itself.
 */
export type ClientChanges = Partial<ClientRegistration> & {
  issuerUri?: string | null;
  metaDataRaw?: string | null;
  registrationManagement?: boolean;
  selfDescription?: { contacts: string[]; softwareId: string | null; softwareVersion: string | null };
};

// A dynamically registered client's own writes (RFC 7592) carry audit actors `dcr:iat:…` and `dcr:rat:…`; every other actor is an administrator.
const DCR_ACTOR_PREFIX = 'dcr:';

/** What registration hands out once: the secret, absent for a private_key_jwt client (it has none). */
export type IssuedCredentials = { clientId: string; clientSecret?: string };

/** A created client: its record id, and whether the secret handed out was generated (not the caller's). */
export type CreatedClient = IssuedCredentials & { id: number; secretGenerated: boolean };

/**
 * Who makes a change (the audit event's actor), and the transaction to make it in: the admin
 * interface passes its request's, so several operations commit together; without one, the change
 * has a transaction of its own.
 */
export type ChangeContext = {
  actor: string;
  manager?: EntityManager;
  /** Runs the new secret's slow hash under a bound (the token endpoint's SlowHashGate, for dynamic registration); without it, at once. */
  slowHashes?: { run<T>(work: () => Promise<T>): Promise<T> };
  /** More work for the creation's own transaction, once the client's rows are written (dynamic registration takes its initial access token's use there). */
  alsoInTransaction?: (manager: EntityManager, recordId: number) => Promise<void>;
};

/** The one place clients are created (CLI, admin interface, console, test factories) and their secrets rotated. */
@Injectable()
export class ClientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The registration rules under this deployment's policy (JWKS_URI_ALLOW_HTTP); a refusal is a RegistrationError. */
  validate(input: ClientRegistration, member: { udap?: boolean } = {}): ValidRegistration {
    return validateRegistration(input, {
      keysFromCertificate: member.udap === true,
      allowPrivateJwksUri: this.config.jwksUriAllowHttp,
      mtls: this.config.mtls !== undefined,
      // The command line cannot see the server's CA file: it registers what the server will judge.
      tlsClientAuth: this.config.mtls?.clientCa !== undefined || this.config.mtls?.registrationOnly === true,
    });
  }

  /**
   * Registers a confidential client; the secret (given or generated) is returned once, stored
   * hashed. The rows and their audit event are written in one transaction. Refusals are
   * RegistrationError (ClientTakenError for a taken id or clientId).
   */
  async create(input: NewClient, context: ChangeContext): Promise<CreatedClient> {
    const prepared = await this.prepare(input, context.slowHashes);
    return this.inTransaction(context.manager, async (manager) => {
      const created = await this.insert(manager, input, prepared);
      await context.alsoInTransaction?.(manager, created.id);
      const after = input.origin ? { ...prepared.attributes, registeredVia: input.origin.registeredVia } : prepared.attributes;
      await recordAuditEvent(manager, { actor: context.actor, operation: 'add', recordType: 'uma-client', recordId: created.id, before: null, after });
      return created;
    });
  }

  /**
   * Registers a client inside the caller's transaction without an audit event: for the admin
   * interface, whose AdminRecordsService records every change of its requests itself.
   */
  async register(input: NewClient & { registrationManagement?: boolean }, manager: EntityManager): Promise<CreatedClient> {
    return this.insert(manager, input, await this.prepare(input));
  }

  /**
   * Replaces client `id` in the caller's transaction (the caller records the audit event): the
   * changes merged onto the stored client, checked by every rule. A replace by an administrator
   * of a dynamically registered client sets ceilings of its own later updates
   * (docs/reference/registration-endpoint.md#an-administrators-changes-are-ceilings). Refusals are
   * RegistrationErrors (NotFound, Taken, InvalidRegistration). Answers the stored client as it was.
   */
  async replace(manager: EntityManager, id: number, changes: ClientChanges, actor: string): Promise<ClientRow> {
    const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as ClientChanges;
    const { registrationManagement, selfDescription, ...fields } = given;
    const [current] = await readClientRows(manager, 'WHERE c.id = $1 FOR UPDATE OF c', [id]);
    if (!current) throw new RegistrationError('id', `no client with id ${id}`, ClientErrorCode.NotFound);
    const merged: ClientRegistration & Record<string, unknown> = { ...registrationOfRow(current), ...fields };
    // A new subject value, or a method other than tls_client_auth, replaces the registered value.
    const namesSubject = TLS_SUBJECT_FIELDS.some(([field]) => fields[field] !== undefined);
    if (namesSubject || (fields.authenticationType !== undefined && fields.authenticationType !== 'tls_client_auth')) {
      for (const [field] of TLS_SUBJECT_FIELDS) if (fields[field] === undefined) merged[field] = null;
    }
    // A UDAP member keeps no keys (docs/reference/trust-communities.md#registration): an administrator may still change it, its scopes say.
    const registration = this.validate(merged, { udap: current.registered_via === 'udap' });
    const secretHash = registration.clientSecret === undefined ? null : await hashClientSecret(registration.clientSecret);
    await updateClient(manager, id, current.metadata_id, registration, {
      issuerUri: (merged.issuerUri as string | null | undefined) ?? null,
      metaDataRaw: (merged.metaDataRaw as string | null | undefined) ?? null,
      clientSecretHash: secretHash,
      // A client moved to a key or certificate method loses its secret: it must not authenticate with it any more.
      dropSecret: holdsNoSecret(registration.authenticationType),
      registrationManagement,
      redirectUris: fields.redirectUris === undefined ? undefined : registration.redirectUris,
      selfDescription,
      ceilings: current.registered_via === 'dcr' && !actor.startsWith(DCR_ACTOR_PREFIX) ? ceilingsAfter(current, registration) : undefined,
    });
    return current;
  }

  /** Removes client `id` in the caller's transaction (the caller records the audit event); answers the client as it was. NotFound, StillReferenced. */
  async remove(manager: EntityManager, id: number): Promise<ClientShown> {
    const [current] = await readClientRows(manager, 'WHERE c.id = $1', [id]);
    if (!current) throw new RegistrationError('id', `no client with id ${id}`, ClientErrorCode.NotFound);
    await deleteClient(manager, id, current.metadata_id);
    return shownClient(current);
  }

  /**
   * docs/reference/trust-communities.md#registration: the client a trust community has for this
   * SAN URI (locked for the caller's transaction), or undefined.
   */
  async udapMember(
    manager: EntityManager,
    trustCommunityId: number,
    udapIssuer: string,
  ): Promise<{ id: number; clientId: string; createdAt: Date } | undefined> {
    const [row] = await manager.query<{ id: number; client_id: string; date_created: Date }[]>(
      'SELECT id, client_id, date_created FROM client WHERE trust_community_id = $1 AND udap_issuer = $2 FOR UPDATE',
      [trustCommunityId, udapIssuer],
    );
    return row ? { id: row.id, clientId: row.client_id, createdAt: row.date_created } : undefined;
  }

  /** A new UDAP member's client in the caller's transaction (the caller records the audit event); undefined when a concurrent registration took its place. */
  createUdapMember(manager: EntityManager, member: UdapMemberRows): Promise<number | undefined> {
    return insertUdapMember(manager, member);
  }

  /** A UDAP member registering again: replaced, cancelled (grantTypes empty) or revived, in the caller's transaction. */
  replaceUdapMember(manager: EntityManager, id: number, member: Omit<UdapMemberRows, 'clientId' | 'trustCommunityId' | 'udapIssuer'>): Promise<void> {
    return updateUdapMember(manager, id, member);
  }

  /** The client as the admin interface shows it and the audit trail records it; null when there is none. */
  async shown(manager: EntityManager, id: number): Promise<ClientShown | null> {
    const [row] = await readClientRows(manager, 'WHERE c.id = $1', [id]);
    return row ? shownClient(row) : null;
  }

  // The slow hash runs before the transaction, so it holds no row or connection meanwhile.
  private async prepare(input: NewClient, slowHashes?: ChangeContext['slowHashes']) {
    const registration = this.validate(input);
    const secret = newSecretOf(registration);
    const hash = (value: string) => (slowHashes ? slowHashes.run(() => hashClientSecret(value)) : hashClientSecret(value));
    const clientSecretHash = secret.value === undefined ? null : await hash(secret.value);
    return { registration, secret, clientSecretHash, attributes: newClientAttributes(registration, input) };
  }

  private async insert(
    manager: EntityManager,
    input: NewClient & { registrationManagement?: boolean },
    prepared: Awaited<ReturnType<ClientsService['prepare']>>,
  ): Promise<CreatedClient> {
    const { registration, secret, clientSecretHash, attributes } = prepared;
    const id = await insertClient(manager, {
      requestedId: input.id,
      attributes,
      clientSecretHash,
      origin: input.origin,
      registrationManagement: input.registrationManagement,
    });
    return { id, clientId: registration.clientId, clientSecret: secret.value, secretGenerated: secret.generated };
  }

  /**
   * A new secret; the old one stops working on every instance within a second (change feed).
   * The rotation is an audit event of the same transaction (never the secret).
   */
  async rotateSecret(clientId: string, context: ChangeContext): Promise<IssuedCredentials> {
    const clientSecret = generateClientSecret();
    const clientSecretHash = await hashClientSecret(clientSecret);
    await this.inTransaction(context.manager, async (manager) => {
      const [client] = await manager.query<{ id: number; client_authentication_type: string }[]>(
        `SELECT c.id, m.client_authentication_type FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1 FOR UPDATE OF m`,
        [clientId],
      );
      if (!client) throw new RegistrationError('clientId', `no client with id "${clientId}"`, ClientErrorCode.NotFound);
      if (holdsNoSecret(client.client_authentication_type)) {
        throw new RegistrationError(
          'clientId',
          `client "${clientId}" authenticates with ${client.client_authentication_type} and has no secret to rotate`,
          ClientErrorCode.NoSecret,
        );
      }
      await updateSecretHash(manager, client.id, clientSecretHash);
      await recordAuditEvent(manager, {
        actor: context.actor,
        operation: 'rotate-secret',
        recordType: 'uma-client',
        recordId: client.id,
        before: null,
        after: { clientId },
      });
    });
    return { clientId, clientSecret };
  }

  /** The caller's transaction when it has one open; otherwise a new one. */
  private inTransaction<T>(manager: EntityManager | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (manager?.queryRunner?.isTransactionActive) return work(manager);
    return (manager ?? this.dataSource.manager).transaction(work);
  }
}

/**
 * The ceilings after an administrator's replace: only a value this write changes (the console's
 * form sends every attribute, and a save that changed the name must not freeze the rest).
 */
function ceilingsAfter(current: ClientRow, registration: ValidRegistration) {
  const changed = <T>(value: T, before: T): T | undefined => (value !== before ? value : undefined);
  return withAdministratorWrite(current.administrator_ceilings, {
    scope: changed(registration.allowedScopes, current.allowed_scopes),
    grantTypes: changed(registration.grantTypes, current.grant_types),
    accessTokenLifetime: changed(registration.accessTokenLifetime, current.access_token_lifetime),
    dpopBound: changed(registration.dpopBound, current.dpop_bound_access_tokens),
    certificateBound: changed(registration.certificateBound, current.tls_client_certificate_bound_access_tokens),
  });
}
