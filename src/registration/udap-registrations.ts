import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { ReplayStore } from '../auth/replay-store.js';
import { UdapCertificates, type UdapCommunity } from '../auth/udap-certificates.js';
import { UdapCertificateError, UdapCertificateErrorCode, type VerifiedUdapJws } from '../certificates/udap-chain.js';
import { ClientErrorCode, RegistrationError } from '../clients/client-registration.js';
import type { ClientShown } from '../clients/client-rows.js';
import { ClientsService } from '../clients/clients.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeFeed } from '../database/change-feed.js';
import { DisclosureWithdrawals, type RecordChange } from '../disclosures/disclosure-withdrawals.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { lockMemberCommunity } from '../udap/trust-communities.js';
import { checkUdapStatement, invalidStatement, unapproved, type UdapStatement } from './udap-software-statement.js';

/** A UDAP registration's answer: 201 for a new client, 200 for one registered again (replaced or cancelled). */
export type UdapRegistrationResponse = { status: 200 | 201; body: Record<string, unknown> };

// Refusals of the JWS itself (not a JWS, its alg, its signature): the statement is malformed; any other certificate refusal: not approved.
const MALFORMED: ReadonlySet<UdapCertificateErrorCode> = new Set([
  UdapCertificateErrorCode.NotJws,
  UdapCertificateErrorCode.BadAlg,
  UdapCertificateErrorCode.BadSignature,
  UdapCertificateErrorCode.KeyMismatch,
]);
const GRANT = 'client_credentials';
const AUTH_METHOD = 'private_key_jwt';

/**
 * UDAP registration at POST /oauth2/register (docs/reference/trust-communities.md#registration,
 * HL7 FAST Security IG STU 2 §3): the software statement's certificate is the credential. A new
 * SAN URI in a community makes a client (201); the same again replaces it (200), and
 * `grant_types: []` cancels it: removed as an administrator removes a client when no consent
 * record names it, else kept with no grant type; its tokens end either way (§16's withdrawal).
 * Every refusal comes before any write, and before the statement's jti is used up.
 */
@Injectable()
export class UdapRegistrations {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly certificates: UdapCertificates,
    private readonly clients: ClientsService,
    private readonly replays: ReplayStore,
    private readonly withdrawals: DisclosureWithdrawals,
    private readonly changeFeed: ChangeFeed,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  get enabled(): boolean {
    return this.config.udap;
  }

  async register(body: Record<string, unknown>, authorization: string | undefined, address: string): Promise<UdapRegistrationResponse> {
    try {
      const response = await this.registerChecked(body, authorization, address);
      return response;
    } catch (error) {
      if (error instanceof OAuthError) this.metrics?.udapRegistration('refused');
      throw error;
    }
  }

  private async registerChecked(body: Record<string, unknown>, authorization: string | undefined, address: string): Promise<UdapRegistrationResponse> {
    if (authorization !== undefined) {
      throw new OAuthError('invalid_request', "a UDAP registration carries no Authorization header: the software statement's certificate is the credential");
    }
    if (body.udap !== '1') throw new OAuthError('invalid_request', 'udap must be "1"');
    const statement = body.software_statement;
    if (typeof statement !== 'string' || statement === '') throw invalidStatement('required: the signed software statement (a compact JWS)');
    const { community, verified } = await this.verify(statement);
    const checked = checkUdapStatement(verified.payload, {
      sanUris: verified.leaf.sanUris,
      registrationEndpoint: `${this.config.issuer}/oauth2/register`,
      scopeCeiling: community.scopeCeiling,
      now: Math.floor(Date.now() / 1000),
    });
    const [existing] = await this.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE trust_community_id = $1 AND udap_issuer = $2', [
      community.id,
      checked.iss,
    ]);
    if (checked.cancel && !existing) {
      throw new OAuthError('invalid_client_metadata', 'grant_types: [] cancels a registration, and this trust community has no client for this "iss"');
    }
    // The last refusal: a replayed statement. Its jti is kept durably until its exp, per iss.
    if (!(await this.replays.firstUse('udap-software-statement', checked.iss, checked.jti, checked.exp))) {
      throw invalidStatement('"jti" has already been used by this "iss"');
    }
    const organization = verified.leaf.subject;
    let outcome: Outcome | undefined;
    // A concurrent first registration of the same iss may take the place between the read and the insert: the second try replaces it.
    for (let attempt = 0; attempt < 2 && outcome === undefined; attempt += 1) {
      outcome = await this.write(community, checked, organization, address);
    }
    if (!outcome) throw new OAuthError('invalid_request', 'a concurrent registration of this "iss" is being written: try again').withStatus(409);
    this.changeFeed.committedHere();
    await this.withdrawals.afterCommit(outcome.change ? [outcome.change] : []);
    this.metrics?.udapRegistration(outcome.result);
    return { status: outcome.result === 'created' ? 201 : 200, body: responseBody(outcome, statement) };
  }

  /** The statement's certificates against each enabled community (the first that accepts it): refusals as RFC 7591 errors. */
  private async verify(statement: string): Promise<{ community: UdapCommunity; verified: VerifiedUdapJws }> {
    try {
      return await this.certificates.checkInEnabled(statement);
    } catch (error) {
      if (!(error instanceof UdapCertificateError)) throw error;
      throw MALFORMED.has(error.code) ? invalidStatement(error.message) : unapproved(error.message);
    }
  }

  /** One transaction: the client created, replaced, kept cancelled or removed, with its audit event and pending withdrawal. */
  private async write(community: UdapCommunity, checked: UdapStatement, organization: string, address: string): Promise<Outcome | undefined> {
    return this.dataSource.transaction(async (manager) => {
      // The community's row is held until the commit: it cannot be removed while a member is added.
      if (!(await lockMemberCommunity(manager, community.id))) throw unapproved('the trust community that vouches for this certificate was removed');
      const member = await this.clients.udapMember(manager, community.id, checked.iss);
      if (!member) {
        if (checked.cancel)
          throw new OAuthError('invalid_client_metadata', 'grant_types: [] cancels a registration, and this trust community has no client for this "iss"');
        const clientId = `udap-${randomBytes(16).toString('base64url')}`;
        const id = await this.clients.createUdapMember(manager, {
          clientId,
          clientName: checked.clientName,
          grantTypes: GRANT,
          allowedScopes: checked.scope,
          contacts: checked.contacts,
          trustCommunityId: community.id,
          udapIssuer: checked.iss,
          organization,
        });
        if (id === undefined) return undefined;
        const shown = (await this.clients.shown(manager, id))!;
        await recordAuditEvent(manager, {
          actor: actorOf(clientId, address),
          operation: 'add',
          recordType: 'uma-client',
          recordId: id,
          before: null,
          after: shown,
        });
        return { result: 'created', shown, issuedAt: new Date() } satisfies Outcome;
      }
      const before = (await this.clients.shown(manager, member.id))!;
      const actor = actorOf(member.clientId, address);
      if (checked.cancel && (await this.removed(manager, member.id))) {
        const auditEventId = await recordAuditEvent(manager, {
          actor,
          operation: 'remove',
          recordType: 'uma-client',
          recordId: member.id,
          before,
          after: null,
        });
        await this.withdrawals.pending(manager, auditEventId);
        return {
          result: 'cancelled',
          shown: before,
          issuedAt: member.createdAt,
          change: { auditEventId, operation: 'remove', recordType: 'uma-client', recordId: member.id, before },
        } satisfies Outcome;
      }
      await this.clients.replaceUdapMember(manager, member.id, {
        clientName: checked.cancel ? before.clientName : checked.clientName,
        grantTypes: checked.cancel ? '' : GRANT,
        allowedScopes: checked.cancel ? before.allowedScopes : checked.scope,
        contacts: checked.cancel ? before.contacts : checked.contacts,
        organization,
      });
      const after = (await this.clients.shown(manager, member.id))!;
      const auditEventId = await recordAuditEvent(manager, { actor, operation: 'replace', recordType: 'uma-client', recordId: member.id, before, after });
      await this.withdrawals.pending(manager, auditEventId);
      return {
        result: checked.cancel ? 'cancelled' : 'replaced',
        shown: after,
        issuedAt: member.createdAt,
        change: { auditEventId, operation: 'replace', recordType: 'uma-client', recordId: member.id, before },
      } satisfies Outcome;
    });
  }

  /** A cancelled client goes when no consent record names it (as an administrator's remove); otherwise it stays, and false. */
  private async removed(manager: EntityManager, id: number): Promise<boolean> {
    await manager.query('SAVEPOINT udap_cancel');
    try {
      await this.clients.remove(manager, id);
      await manager.query('RELEASE SAVEPOINT udap_cancel');
      return true;
    } catch (error) {
      if (!(error instanceof RegistrationError) || error.code !== ClientErrorCode.StillReferenced) throw error;
      await manager.query('ROLLBACK TO SAVEPOINT udap_cancel');
      return false;
    }
  }
}

type Outcome = { result: 'created' | 'replaced' | 'cancelled'; shown: ClientShown; issuedAt: Date; change?: RecordChange };

/** RFC 7591 §3.2.1's body for a UDAP client (no secret, no registration access token: UDAP modifies by registering again). */
function responseBody({ shown, result, issuedAt }: Outcome, statement: string): Record<string, unknown> {
  const cancelled = result === 'cancelled';
  return {
    client_id: shown.clientId,
    software_statement: statement,
    client_name: shown.clientName,
    grant_types: cancelled ? [] : [GRANT],
    token_endpoint_auth_method: AUTH_METHOD,
    scope: shown.allowedScopes,
    contacts: shown.contacts,
    client_id_issued_at: Math.floor(issuedAt.getTime() / 1000),
  };
}

function actorOf(clientId: string, address: string): string {
  return `udap:${clientId}@${address}`.slice(0, 255);
}
