import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ClientRecord } from '../clients/client-record.js';
import type { Decision } from '../tickets/access-decision.js';
import { permissionsOf } from '../tickets/consent-coverage.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { signAccessToken } from '../keys/token-signer.js';
import type { RptClaims } from '../uma/rpt.js';
import { HL7_B2B, type Hl7B2b } from '../oauth/hl7-b2b.js';
import { DisclosuresService } from '../disclosures/disclosures.service.js';
import { StatusIndexAllocator, type StatusEntry } from '../status-lists/status-index-allocator.js';

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
};

/**
 * What a grant decided to give: its scopes, lifetime, audience and the consent tickets behind its
 * resource scopes; the `resource` parameters asked for (kept in the disclosure); for the UMA grant
 * also the RPT's audience and permissions (docs/guides/uma.md).
 */
/**
 * What an access token is bound to, if anything (its `cnf` claim): the thumbprint of a DPoP proof's
 * key (docs/reference/token-endpoint.md#dpop-proofs) or of the connection's client certificate
 * (docs/guides/mtls.md#certificate-bound-tokens); never both.
 */
export type Confirmation = { jkt: string } | { 'x5t#S256': string };

/**
 * docs/guides/token-exchange.md#the-exchanged-token: what an exchanged token adds: its `act`
 * claim, its actors (outermost first) and the token it was exchanged from (kept in its
 * disclosure), and the subject token's `exp`, which it never outlives.
 */
export type Exchange = { act: ActClaim; actors: string[]; parentJti: string; notAfter: number };
export type ActClaim = { sub: string; act?: ActClaim };

/** `hl7B2b`: a UDAP request's extension (docs/reference/trust-communities.md#the-token), carried as the token's `extensions` and kept in its disclosure. */
export type GrantedAccess = { scopes: string[]; decision: Decision; resources: string[]; rpt?: RptClaims; hl7B2b?: Hl7B2b; exchange?: Exchange };

/**
 * Signs the access token every grant ends with (docs/reference/token-endpoint.md#access-tokens),
 * recording its disclosure first when it carries resource scopes.
 */
@Injectable()
export class AccessTokenIssuer {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly disclosures: DisclosuresService,
    private readonly statusIndices: StatusIndexAllocator,
  ) {}

  async issue(
    client: ClientRecord,
    { scopes, decision, resources, rpt, hl7B2b, exchange }: GrantedAccess,
    cnf?: Confirmation,
    requestId?: string,
  ): Promise<TokenResponse> {
    const jkt = cnf !== undefined && 'jkt' in cnf ? cnf.jkt : undefined;
    // docs/concepts/consent-tickets.md#when-a-resource-scope-is-granted and docs/concepts/audience.md: the lifetime and audience the decision gave (an RPT's audience: its ticket's data sources).
    const issuedAt = Math.floor(Date.now() / 1000);
    const decided = (decision.verdict as { lifetime: number }).lifetime;
    const lifetime = exchange === undefined ? decided : Math.min(decided, exchange.notAfter - issuedAt);
    const aud = rpt?.aud ?? (decision.verdict.aud as string | string[]);
    const { resourceScopes, covered: covering } = decision;
    // docs/reference/status-lists.md: every access token names its status list entry (drawn only for a granted request).
    let status: StatusEntry | undefined;
    if (this.statusIndices.enabled) {
      const taken = this.statusIndices.take();
      status = taken instanceof Promise ? await taken : taken;
    }
    const scope = scopes.join(' ');
    const claims = {
      iss: this.config.issuer,
      sub: client.clientId,
      aud,
      exp: issuedAt + lifetime,
      iat: issuedAt,
      jti: randomUUID(),
      client_id: client.clientId,
      scope,
      ...(rpt
        ? { permissions: rpt.permissions(issuedAt + lifetime) }
        : covering.length > 0
          ? { permissions: permissionsOf(resourceScopes, covering, issuedAt + lifetime) }
          : {}),
      ...(exchange !== undefined ? { act: exchange.act } : {}),
      ...(cnf !== undefined ? { cnf } : {}),
      ...(hl7B2b !== undefined ? { extensions: { [HL7_B2B]: hl7B2b } } : {}),
      ...(status !== undefined ? { status: { status_list: { idx: status.idx, uri: status.uri } } } : {}),
    };
    const tokenType = jkt !== undefined ? 'DPoP' : 'Bearer';
    // docs/guides/consent-withdrawal.md: no token with a resource scope leaves before its disclosure
    // is committed. The row is known before the signature, so it is sent first and the token is
    // signed while it commits (on this thread for ES256 and EdDSA: the commit takes longer, and
    // the pool's hand-offs cost more CPU than the signature); it is answered when both are done.
    const disclosed =
      decision.chains.length > 0
        ? this.disclosures.record({
            jti: claims.jti,
            clientKey: client.id,
            clientId: client.clientId,
            scope,
            aud,
            resources,
            issuedAt,
            expiresAt: claims.exp,
            tokenType,
            jkt,
            requestId,
            chains: decision.chains,
            statusListId: status?.listId,
            statusIdx: status?.idx,
            defaultAudience: this.config.audience,
            ...(hl7B2b !== undefined ? { hl7B2b } : {}),
            ...(exchange !== undefined ? { actor: exchange.actors, parentJti: exchange.parentJti } : {}),
          })
        : undefined;
    const signed = this.keys.signingKey().then((key) => signAccessToken(claims, key, { inline: disclosed !== undefined }));
    const [token] = await Promise.all([signed, disclosed]);
    return { access_token: token, token_type: tokenType, expires_in: lifetime, scope };
  }
}
