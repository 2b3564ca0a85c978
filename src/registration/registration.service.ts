import { randomBytes, timingSafeEqual } from 'node:crypto';
import { loadSoftwareStatementKeys } from './software-statement-keys.js';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AuthThrottle } from '../auth/auth-throttle.js';
import { SlowHashGate } from '../auth/slow-hash-gate.js';
import { ClientErrorCode, RegistrationError } from '../clients/client-registration.js';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { DisclosureWithdrawals, type RecordChange } from '../disclosures/disclosure-withdrawals.js';
import { dataSourceClientLacksProtection, undefinedResourceScopeRefusal } from '../tickets/consent-rules.js';
import { verifyClientSecret } from '../clients/client-secrets.js';
import { ClientsService } from '../clients/clients.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeFeed } from '../database/change-feed.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { asMetadataError, isSecretMethod, readMetadata, toClientRegistration, type Ceilings } from './client-metadata-request.js';
import type { AdministratorCeilings } from '../clients/administrator-ceilings.js';
import { generateToken, tokenHash } from '../clients/initial-access-token-rules.js';
import { takeInitialAccessTokenUse } from '../clients/initial-access-tokens.js';
import { readClientRows } from '../clients/client-rows.js';
import { mutualTlsEnabled, TLS_CLIENT_AUTH_MEMBERS } from '../clients/mutual-tls.js';
import { metadataError, RegistrationAbandoned, tokenRefused, tokenRequired } from './registration-error.js';
import { applySoftwareStatement, type StatementRules } from './software-statement.js';

/** What a registration or an update answers (RFC 7591 §3.2.1), with where the client is managed. */
export type RegistrationResponse = { body: Record<string, unknown>; location: string };

/** A dynamically registered client, authenticated by its registration access token. */
export type ManagedClient = { id: number; clientId: string; registrationManagement: boolean; tokenHash: string; ceilings: Ceilings };

type IatRow = { id: number; scope_ceiling: string; grant_types: string; auth_methods: string; access_token_lifetime: number | null };

// RFC 7592 §2.2: members a client never sends back in an update.
const SERVER_MEMBERS = ['registration_access_token', 'registration_client_uri', 'client_id_issued_at', 'client_secret_expires_at'];

/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592), docs/guides/dynamic-registration.md:
 * always behind an initial access token; a registered client is created, replaced and removed
 * through the same code as an administrator's, so every rule of the admin interface applies.
 */
@Injectable()
export class RegistrationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientsService,
    private readonly withdrawals: DisclosureWithdrawals,
    private readonly throttle: AuthThrottle,
    private readonly slowHashes: SlowHashGate,
    private readonly changeFeed: ChangeFeed,
  ) {
    this.softwareStatementKeys = loadSoftwareStatementKeys(config.softwareStatementJwksFile);
  }

  /** The trusted publishers' keys, read once at start: a bad file stops the start naming the variable. */
  private readonly softwareStatementKeys: { keys: Record<string, unknown>[] } | undefined;

  /**
   * 503 before any database work when the body asks for a secret method (or for none:
   * client_secret_basic, RFC 7591 §2) and the bound of slow hashes has no room: a flood of
   * registrations is refused for the price of reading its body. A software statement may name
   * another method, so such a body is judged once it is applied.
   */
  refuseIfHashesBusy(body: Record<string, unknown>): void {
    if ('software_statement' in body) return;
    const method = body.token_endpoint_auth_method ?? 'client_secret_basic';
    if (typeof method === 'string' && isSecretMethod(method)) this.slowHashes.refuseIfFull();
  }

  /** The initial access token's row, when the request's bearer token is one that may still register. */
  async authenticateIat(authorization: string | undefined, address: string): Promise<IatRow> {
    await this.passThrottle(address);
    const token = bearerToken(authorization, 'an initial access token');
    const [row] = await this.dataSource.query<IatRow[]>(
      `SELECT id, scope_ceiling, grant_types, auth_methods, access_token_lifetime FROM initial_access_token
        WHERE token_hash = $1 AND expires_at > now() AND uses < max_uses`,
      [tokenHash(token)],
    );
    if (!row) {
      await this.throttle.countRefusal(address);
      throw tokenRefused('the initial access token is unknown, expired, removed or used up');
    }
    return row;
  }

  /**
   * POST /oauth2/register: the client, its secret (secret methods) and its registration access
   * token, shown once. `gone`: whether the client has hung up; asked after the slow hash, before
   * anything is written.
   */
  async register(iat: IatRow, requestBody: Record<string, unknown>, address: string, gone: () => boolean = () => false): Promise<RegistrationResponse> {
    // The token was looked up before this registration waited its turn: one used up or removed
    // meanwhile is refused now, before the slow hash (its use is taken again in the write's transaction).
    const [usable] = await this.dataSource.query<unknown[]>('SELECT 1 FROM initial_access_token WHERE id = $1 AND expires_at > now() AND uses < max_uses', [
      iat.id,
    ]);
    if (!usable) {
      await this.throttle.countRefusal(address);
      throw tokenRefused('the initial access token is unknown, expired, removed or used up');
    }
    const ceilings: Ceilings = {
      scopeCeiling: iat.scope_ceiling,
      grantTypes: iat.grant_types,
      authMethods: iat.auth_methods,
      accessTokenLifetime: iat.access_token_lifetime,
    };
    const body = await applySoftwareStatement(requestBody, this.softwareStatementKeys, this.statementRules());
    const metadata = readMetadata(body, ceilings, mutualTlsEnabled(this.config));
    // A flood of registrations meets the bound of the token endpoint's slow hashes before any write.
    if (isSecretMethod(metadata.authMethod)) this.slowHashes.refuseIfFull();
    const clientId = `dcr-${randomBytes(16).toString('base64url')}`;
    const registrationToken = generateToken();
    let created;
    try {
      created = await this.clients.create(
        {
          ...toClientRegistration(metadata, clientId, ceilings),
          origin: {
            registeredVia: 'dcr',
            initialAccessTokenId: iat.id,
            contacts: metadata.contacts,
            softwareId: metadata.softwareId,
            softwareVersion: metadata.softwareVersion,
          },
        },
        {
          actor: `dcr:iat:${iat.id}@${address}`,
          slowHashes: {
            run: async (work) => {
              const result = await this.slowHashes.run(work);
              // A registration may wait in the bound's queue for a while: one whose client gave up writes nothing.
              if (gone()) throw new RegistrationAbandoned();
              return result;
            },
          },
          alsoInTransaction: async (manager, recordId) => {
            await takeUse(manager, iat.id);
            await manager.query(
              `INSERT INTO client_registration (client_id, token_hash, scope_ceiling, grant_types, auth_methods, access_token_lifetime) VALUES ($1, $2, $3, $4, $5, $6)`,
              [recordId, tokenHash(registrationToken), ceilings.scopeCeiling, ceilings.grantTypes, ceilings.authMethods, ceilings.accessTokenLifetime],
            );
          },
        },
      );
    } catch (error) {
      if (error instanceof RegistrationError) throw asMetadataError(error);
      throw error;
    }
    this.changeFeed.committedHere();
    const response = await this.describe(clientId);
    const secret = created.clientSecret === undefined ? {} : { client_secret: created.clientSecret };
    return { ...response, body: { ...withSecretFields(response.body, secret), registration_access_token: registrationToken } };
  }

  /** RFC 7592: the client named by the path, when the bearer token is its current registration access token. */
  async authenticateClient(authorization: string | undefined, clientId: string, address: string): Promise<ManagedClient> {
    await this.passThrottle(address);
    const token = bearerToken(authorization, "the client's registration access token");
    const [row] = await this.dataSource.query<
      {
        id: number;
        client_id: string;
        registration_management: boolean;
        token_hash: string;
        scope_ceiling: string;
        grant_types: string;
        auth_methods: string;
        access_token_lifetime: number | null;
        administrator_ceilings: AdministratorCeilings | null;
      }[]
    >(
      `SELECT c.id, c.client_id, c.registration_management, r.token_hash, r.scope_ceiling, r.grant_types, r.auth_methods, r.access_token_lifetime,
              c.administrator_ceilings
         FROM client c JOIN client_registration r ON r.client_id = c.id WHERE c.client_id = $1`,
      [clientId.slice(0, 255)],
    );
    const presented = Buffer.from(tokenHash(token));
    const matches = row !== undefined && row.token_hash.length === presented.length && timingSafeEqual(Buffer.from(row.token_hash), presented);
    if (!row || !matches) {
      await this.throttle.countRefusal(address);
      throw tokenRefused('the registration access token is not valid for this client');
    }
    return {
      id: row.id,
      clientId: row.client_id,
      registrationManagement: row.registration_management,
      tokenHash: row.token_hash,
      ceilings: {
        scopeCeiling: row.scope_ceiling,
        grantTypes: row.grant_types,
        authMethods: row.auth_methods,
        accessTokenLifetime: row.access_token_lifetime,
        ...(row.administrator_ceilings ? { administrator: row.administrator_ceilings } : {}),
      },
    };
  }

  /** RFC 7592 §2.1: the registration as it stands, without the secret. */
  async read(client: ManagedClient): Promise<Record<string, unknown>> {
    return (await this.describe(client.clientId)).body;
  }

  /** RFC 7592 §2.2: the full metadata again, under the recorded ceilings; a new registration access token. */
  async update(client: ManagedClient, requestBody: Record<string, unknown>, address: string): Promise<Record<string, unknown>> {
    if (!client.registrationManagement) throw frozen();
    if (requestBody.client_id !== client.clientId) throw metadataError('invalid_client_metadata', 'client_id: required, and equal to the client of this URL');
    const server = SERVER_MEMBERS.find((member) => requestBody[member] !== undefined);
    if (server !== undefined) throw metadataError('invalid_client_metadata', `${server}: set by the server, never sent in an update`);
    const body = await applySoftwareStatement(requestBody, this.softwareStatementKeys, this.statementRules());
    const metadata = readMetadata(body, client.ceilings, mutualTlsEnabled(this.config));
    const [current] = await this.dataSource.query<{ client_authentication_type: string; client_secret_hash: string | null }[]>(
      'SELECT m.client_authentication_type, m.client_secret_hash FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.id = $1',
      [client.id],
    );
    if (!current) throw tokenRefused('the registration access token is not valid for this client');
    if (metadata.authMethod !== current.client_authentication_type) {
      throw metadataError(
        'invalid_client_metadata',
        `token_endpoint_auth_method: cannot change from ${current.client_authentication_type} (register a new client instead)`,
      );
    }
    await this.checkSecretUnchanged(body.client_secret, current.client_secret_hash);
    const registration = toClientRegistration(metadata, client.clientId, client.ceilings);
    const registrationToken = generateToken();
    await this.change(client, address, 'replace', async (manager) => {
      await this.clients.replace(
        manager,
        client.id,
        {
          ...registration,
          selfDescription: { contacts: metadata.contacts, softwareId: metadata.softwareId, softwareVersion: metadata.softwareVersion },
        },
        actorOf(client, address),
      );
      await refuseBrokenConsentRules(manager, client.id, registration.allowedScopes);
      // Replaced only if it is still the token this request presented: of two concurrent updates, one wins.
      const replaced = await manager.query<unknown[]>(
        'UPDATE client_registration SET token_hash = $3 WHERE client_id = $1 AND token_hash = $2 RETURNING client_id',
        [client.id, client.tokenHash, tokenHash(registrationToken)],
      );
      if (affected(replaced) === 0) throw tokenRefused('the registration access token is not valid for this client');
    });
    return { ...(await this.describe(client.clientId)).body, registration_access_token: registrationToken };
  }

  /** RFC 7592 §2.3: exactly an administrator's remove of the client, its disclosures withdrawn. */
  async remove(client: ManagedClient, address: string): Promise<void> {
    if (!client.registrationManagement) throw frozen();
    await this.change(client, address, 'remove', async (manager) => {
      // The token that authorised this removal must still be the current one.
      const rows = await manager.query<unknown[]>('SELECT 1 FROM client_registration WHERE client_id = $1 AND token_hash = $2 FOR UPDATE', [
        client.id,
        client.tokenHash,
      ]);
      if (rows.length === 0) throw tokenRefused('the registration access token is not valid for this client');
      await this.clients.remove(manager, client.id);
    });
  }

  /**
   * A client's own change of itself, as an administrator's is made: in one transaction with its
   * audit event (the client before and after) and its pending withdrawal note; once committed,
   * the disclosures it ended are withdrawn. The clients module's refusals are answered as RFC 7591 errors.
   */
  private async change(client: ManagedClient, address: string, operation: 'replace' | 'remove', work: (manager: EntityManager) => Promise<void>) {
    let change: RecordChange | undefined;
    try {
      await this.dataSource.transaction(async (manager) => {
        const before = await this.clients.shown(manager, client.id);
        if (!before) throw tokenRefused('the registration access token is not valid for this client');
        await work(manager);
        const after = operation === 'remove' ? null : await this.clients.shown(manager, client.id);
        const auditEventId = await recordAuditEvent(manager, {
          actor: actorOf(client, address),
          operation,
          recordType: 'uma-client',
          recordId: client.id,
          before,
          after,
        });
        await this.withdrawals.pending(manager, auditEventId);
        change = { auditEventId, operation, recordType: 'uma-client', recordId: client.id, before };
      });
    } catch (error) {
      throw asOAuthError(error);
    }
    await this.withdrawals.afterCommit(change ? [change] : []);
  }

  /** docs/guides/dynamic-registration.md#software-statements: how old a statement may be, and the endpoint its aud must name. */
  private statementRules(): StatementRules {
    return { maxAgeSeconds: this.config.softwareStatementMaxAge, registrationEndpoint: `${this.config.issuer}/oauth2/register` };
  }

  /** The per-address limit of failed client authentications (docs/operations/security.md) covers these tokens too: 429 before any lookup. */
  private async passThrottle(address: string): Promise<void> {
    const wait = await this.throttle.addressBlockedFor(address);
    if (wait !== undefined) throw OAuthError.tooManyRequests(wait);
  }

  /** RFC 7592 §2.2: a client_secret in an update must be the current one (secrets rotate only through the CLI or the admin interface). */
  private async checkSecretUnchanged(secret: unknown, currentHash: string | null): Promise<void> {
    if (secret === undefined) return;
    const same = typeof secret === 'string' && currentHash !== null && (await this.slowHashes.run(() => verifyClientSecret(secret, currentHash)));
    if (!same)
      throw metadataError('invalid_client_metadata', 'client_secret: differs from the current one (secrets are rotated by an administrator, not by an update)');
  }

  private async describe(clientId: string): Promise<RegistrationResponse> {
    const [row] = await readClientRows(this.dataSource.manager, 'WHERE c.client_id = $1', [clientId]);
    if (!row) throw tokenRefused('the registration access token is not valid for this client');
    const location = `${this.config.issuer}/oauth2/register/${encodeURIComponent(row.client_id)}`;
    const body: Record<string, unknown> = {
      client_id: row.client_id,
      client_id_issued_at: Math.floor(new Date(row.date_created).getTime() / 1000),
      ...(isSecretMethod(row.client_authentication_type) ? { client_secret_expires_at: 0 } : {}),
      registration_client_uri: location,
      client_name: row.client_name,
      token_endpoint_auth_method: row.client_authentication_type,
      grant_types: row.grant_types.split(' '),
      response_types: [],
      redirect_uris: row.redirect_uris,
      scope: row.allowed_scopes,
      contacts: row.contacts === null ? [] : (JSON.parse(row.contacts) as string[]),
      software_id: row.software_id,
      software_version: row.software_version,
      dpop_bound_access_tokens: row.dpop_bound_access_tokens,
      tls_client_certificate_bound_access_tokens: row.tls_client_certificate_bound_access_tokens,
      ...Object.fromEntries(TLS_CLIENT_AUTH_MEMBERS.filter((member) => row[member] !== null).map((member) => [member, row[member]])),
      ...(row.tls_client_auth_issuer_dn !== null ? { tls_client_auth_issuer_dn: row.tls_client_auth_issuer_dn } : {}),
      ...(row.jwks_raw !== null ? { jwks: JSON.parse(row.jwks_raw) as unknown } : {}),
      ...(row.jwks_uri !== null ? { jwks_uri: row.jwks_uri } : {}),
    };
    return { body, location };
  }
}

/** Takes one use of the initial access token in the registration's transaction (two instances never exceed maxUses). */
async function takeUse(manager: EntityManager, iatId: number): Promise<void> {
  if (!(await takeInitialAccessTokenUse(manager, iatId))) throw tokenRefused('the initial access token is unknown, expired, removed or used up');
}

/** `client_secret` sits right after client_id_issued_at, as RFC 7591's example has it. */
function withSecretFields(body: Record<string, unknown>, secret: Record<string, unknown>): Record<string, unknown> {
  const { client_id, client_id_issued_at, ...rest } = body;
  return { client_id, client_id_issued_at, ...secret, ...rest };
}

function bearerToken(authorization: string | undefined, what: string): string {
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  if (match) return match[1];
  if (/^bearer /i.test(authorization ?? '')) throw tokenRefused(`${what} is malformed`);
  throw tokenRequired(what);
}

function frozen(): OAuthError {
  return new OAuthError('access_denied', "an administrator has frozen this client's registration: it can be read, not changed or deleted here");
}

/** The clients module's and the consent rules' refusals, as this endpoint answers them. */
function asOAuthError(error: unknown): unknown {
  if (error instanceof ConsentRuleError) return metadataError('invalid_client_metadata', `scope: ${error.message}`);
  if (!(error instanceof RegistrationError)) return error;
  switch (error.code) {
    case ClientErrorCode.StillReferenced:
      return new OAuthError('invalid_request', `${error.message}: remove those first`).withStatus(409);
    case ClientErrorCode.NotFound:
      return tokenRefused('the registration access token is not valid for this client');
    default:
      return asMetadataError(error);
  }
}

/** docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent, as the admin interface keeps them for every client. */
async function refuseBrokenConsentRules(manager: EntityManager, clientRecordId: number, allowedScopes: string): Promise<void> {
  if (await dataSourceClientLacksProtection(manager, 'client', clientRecordId)) {
    throw new ConsentRuleError('this client introspects for a data source: its scope must keep uma_protection');
  }
  const refusal = await undefinedResourceScopeRefusal(manager, allowedScopes);
  if (refusal) throw new ConsentRuleError(refusal);
}

class ConsentRuleError extends Error {}

function actorOf(client: ManagedClient, address: string): string {
  return `dcr:rat:${client.clientId}@${address}`;
}

function affected(result: unknown[]): number {
  return Array.isArray(result[0]) ? (result[0] as unknown[]).length : result.length;
}
