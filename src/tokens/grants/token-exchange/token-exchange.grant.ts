import { Injectable } from '@nestjs/common';
import { ClientDirectory } from '../../../clients/client-directory.js';
import type { ClientRecord } from '../../../clients/client-record.js';
import { AccessTokenVerifier, type AccessTokenClaims } from '../../../keys/access-token-verifier.js';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../../oauth/grant-types.js';
import { OAuthError } from '../../../oauth/oauth-error.js';
import { asResourceScope, parseScope } from '../../../oauth/scope.js';
import { resourcesOf, type TokenParameters } from '../../../oauth/token-request.js';
import { RevocationState } from '../../../revocation/revocation-state.js';
import { AccessDecisions } from '../../../tickets/access-decisions.js';
import { DataSourceDirectory, type DelegationFacts } from '../../../tickets/data-source-directory.js';
import type { DataSourceFacts } from '../../../tickets/access-decision.js';
import { AccessTokenIssuer, type ActClaim, type TokenResponse } from '../../access-token-issuer.js';
import { oauthErrorOf } from '../../refusal-error.js';
import type { GrantRequest, TokenGrant } from '../token-grant.js';
import type { Hl7B2b } from '../../../oauth/hl7-b2b.js';

/** RFC 8693 §4.1: `act` nested at most this deep (docs/guides/token-exchange.md#the-exchanged-token). */
export const MAX_ACTORS = 3;

/** One answer for every subject token that cannot be exchanged, so that none hints which rule it broke. */
const UNUSABLE_SUBJECT = 'the subject_token is not an active access token of this server meant for a data source of this client';

export type ExchangeResponse = Omit<TokenResponse, 'refresh_token'> & { issued_token_type: typeof ACCESS_TOKEN_TYPE };

/**
 * Token exchange (RFC 8693, docs/guides/token-exchange.md): the data source A that a client's
 * token was meant for (its introspection client, the actor) trades it for a token meant for data
 * source B, which A is delegated to ask. The client stays the subject; consent is decided again
 * for B by the one access decision, as if the client had asked B itself, and the new token names
 * its actors in `act`, lives no longer than the subject token, and is a disclosure of its own
 * (with its actors and the subject token's jti). No refresh token.
 */
@Injectable()
export class TokenExchangeGrant implements TokenGrant {
  readonly type = TOKEN_EXCHANGE_GRANT;

  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly revocations: RevocationState,
    private readonly clients: ClientDirectory,
    private readonly dataSources: DataSourceDirectory,
    private readonly decisions: AccessDecisions,
    private readonly issuer: AccessTokenIssuer,
  ) {}

  async handle({ client: actor, parameters, cnf, requestId }: GrantRequest): Promise<ExchangeResponse> {
    const { subjectToken, target } = checkParameters(parameters);
    const { claims, subject } = await this.activeSubject(subjectToken);
    const from = await this.actorDataSource(actor, claims);
    const actors = actorsOf(claims);
    if (actors.length >= MAX_ACTORS) throw new OAuthError('invalid_grant', `the subject_token has already been exchanged ${MAX_ACTORS} times: no further hop`);
    const to = await this.dataSources.byResourceUri(target);
    if (to === null) throw new OAuthError('invalid_target', `"${target}" is not the resourceUri of a data source`);
    const delegation = (await this.delegationFrom(from, target)) ?? undefined;
    if (delegation === undefined) throw new OAuthError('invalid_target', `data source ${from.join(', ')} is not delegated to ask data source ${target}`);
    const scopes = exchangedScopes(parameters.scope, parseScope(claims.scope), to, delegation.facts);
    // docs/guides/token-exchange.md#consent-decided-again: a UDAP subject token keeps its purpose of use, and must be covered for it.
    const hl7B2b = (claims.extensions as { 'hl7-b2b'?: Hl7B2b } | undefined)?.['hl7-b2b'];
    const purposes = Array.isArray(hl7B2b?.purpose_of_use) ? { purposesOfUse: hl7B2b.purpose_of_use } : {};
    const decision = await this.decisions.decide(subject, { scopes, resources: [target], ...purposes });
    if (decision.refusal) throw oauthErrorOf(decision.refusal);
    const act: ActClaim = { sub: actor.clientId, ...(claims.act !== undefined ? { act: claims.act as ActClaim } : {}) };
    // docs/guides/token-exchange.md#the-exchanged-token: bound only to a DPoP key the actor proved.
    const bound = cnf !== undefined && 'jkt' in cnf ? cnf : undefined;
    const issued = await this.issuer.issue(
      subject,
      {
        scopes: decision.scopes,
        decision,
        resources: [target],
        ...(hl7B2b !== undefined ? { hl7B2b } : {}),
        exchange: { act, actors: [actor.clientId, ...actors], parentJti: claims.jti, notAfter: claims.exp },
      },
      bound,
      requestId,
    );
    const { access_token, token_type, expires_in, scope } = issued;
    return { access_token, issued_token_type: ACCESS_TOKEN_TYPE, token_type, expires_in, scope };
  }

  /** The subject token's claims and its client, when it is ours, unexpired, not revoked or withdrawn, and its client still there. */
  private async activeSubject(token: string): Promise<{ claims: AccessTokenClaims; subject: ClientRecord }> {
    const claims = await this.verifier.verify(token);
    if (claims === undefined || (await this.revocations.isRevoked(claims.jti))) throw new OAuthError('invalid_grant', UNUSABLE_SUBJECT);
    const subject = await this.clients.find(claims.client_id);
    if (subject === null || (subject.createdAt !== undefined && subject.createdAt > claims.iat * 1000 + 999)) {
      throw new OAuthError('invalid_grant', UNUSABLE_SUBJECT);
    }
    // One second left is not enough for a token meant to be used.
    if (claims.exp <= Math.floor(Date.now() / 1000)) throw new OAuthError('invalid_grant', UNUSABLE_SUBJECT);
    return { claims, subject };
  }

  /** The data sources the subject token was meant for that the actor introspects for (at least one). */
  private async actorDataSource(actor: ClientRecord, claims: AccessTokenClaims): Promise<string[]> {
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const served = await this.dataSources.introspectedBy(actor.id);
    const from = audience.filter((uri) => served.includes(uri));
    if (from.length === 0) throw new OAuthError('invalid_grant', UNUSABLE_SUBJECT);
    return from;
  }

  private async delegationFrom(from: string[], target: string): Promise<{ uri: string; facts: DelegationFacts } | null> {
    for (const uri of from) {
      const facts = await this.dataSources.delegation(uri, target);
      if (facts !== null) return { uri, facts };
    }
    return null;
  }
}

/** RFC 8693 §2.1 as docs/guides/token-exchange.md#the-request narrows it; the target is B's resourceUri. */
function checkParameters(parameters: TokenParameters): { subjectToken: string; target: string } {
  if (parameters.actor_token !== undefined || parameters.actor_token_type !== undefined) {
    throw new OAuthError('invalid_request', 'actor_token is not accepted: the authenticated client is the actor');
  }
  const subjectToken = parameters.subject_token;
  if (subjectToken === undefined) throw new OAuthError('invalid_request', 'the subject_token parameter is required');
  if (parameters.subject_token_type === undefined) throw new OAuthError('invalid_request', 'the subject_token_type parameter is required');
  if (parameters.subject_token_type !== ACCESS_TOKEN_TYPE) throw new OAuthError('invalid_request', `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  if (parameters.requested_token_type !== undefined && parameters.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw new OAuthError('invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  const resources = resourcesOf(parameters);
  if (resources.length > 1) throw new OAuthError('invalid_request', 'exactly one resource parameter: the resourceUri of the data source to ask');
  const resource = resources[0];
  const audience = parameters.audience;
  if (resource === undefined && audience === undefined) {
    throw new OAuthError('invalid_request', 'the resource (or audience) parameter is required: the resourceUri of the data source to ask');
  }
  if (resource !== undefined && audience !== undefined && resource !== audience) {
    throw new OAuthError('invalid_request', 'resource and audience name different data sources: give one of them');
  }
  return { subjectToken, target: resource ?? audience };
}

/** The actors of the subject token, outermost first (its `act`, and the `act` inside it). */
function actorsOf(claims: AccessTokenClaims): string[] {
  const actors: string[] = [];
  let act: unknown = claims.act;
  while (typeof act === 'object' && act !== null && typeof (act as ActClaim).sub === 'string') {
    actors.push((act as ActClaim).sub);
    act = (act as ActClaim).act;
  }
  return actors;
}

/**
 * docs/guides/token-exchange.md#consent-decided-again: each scope in the subject token, a resource
 * scope, served by B and allowed by the delegation; with no `scope`, every such scope of the
 * subject token. Whether consent still covers them is the access decision's part.
 */
function exchangedScopes(requested: string | undefined, held: string[], to: DataSourceFacts, delegation: DelegationFacts): string[] {
  const check = (name: string): string | undefined => {
    if (!held.includes(name)) return `scope "${name}" is not in the subject_token`;
    const wanted = asResourceScope(name);
    if (wanted === undefined) return `scope "${name}" is not a resource scope: only resource scopes are exchanged`;
    if (!to.serves.has(wanted.definition)) return `scope "${name}" is not served by data source ${to.resourceUri}`;
    if (delegation.scopes.length > 0 && !delegation.scopes.includes(name))
      return `scope "${name}" is not allowed by the delegation to data source ${to.resourceUri}`;
    return undefined;
  };
  if (requested !== undefined) {
    const scopes = parseScope(requested);
    for (const name of scopes) {
      const problem = check(name);
      if (problem !== undefined) throw new OAuthError('invalid_scope', problem);
    }
    return scopes;
  }
  const scopes = held.filter((name) => check(name) === undefined);
  if (scopes.length === 0) {
    throw new OAuthError('invalid_scope', `no resource scope of the subject_token is served by data source ${to.resourceUri} and allowed by the delegation`);
  }
  return scopes;
}
