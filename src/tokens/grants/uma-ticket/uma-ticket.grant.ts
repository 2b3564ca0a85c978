import { Injectable } from '@nestjs/common';
import { UMA_TICKET_GRANT } from '../../../oauth/grant-types.js';
import { OAuthError } from '../../../oauth/oauth-error.js';
import { parseScope } from '../../../oauth/scope.js';
import { resourcesOf } from '../../../oauth/token-request.js';
import { AccessDecisions } from '../../../tickets/access-decisions.js';
import type { Decision } from '../../../tickets/access-decision.js';
import { PermissionTickets, type RedeemedPermission } from '../../../uma/permission-tickets.js';
import { AccessTokenIssuer, type TokenResponse } from '../../access-token-issuer.js';
import type { GrantRequest, TokenGrant } from '../token-grant.js';

/** A ticket's permission once valid: its resource's type, the scopes asked for, and the data sources serving it. */
type Permission = { resourceId: string; type: string; scopes: string[]; registered: string[]; servedBy: string[] };

const CLAIMS_PUSHING = ['claim_token', 'claim_token_format', 'pct'];

/**
 * The UMA grant (urn:ietf:params:oauth:grant-type:uma-ticket, docs/guides/uma.md), after the
 * token endpoint has checked that the client is registered for it: the ticket is checked and
 * used up, claims pushing refused, `scope` added, and every permission decided as resource
 * scopes by the one access decision (the one `explain` shows). No partial RPT. The RPT is issued
 * like every other access token, and is a disclosure too (docs/guides/consent-withdrawal.md);
 * Grant §3.3.5: no scope and no refresh token in the response.
 */
@Injectable()
export class UmaTicketGrant implements TokenGrant {
  readonly type = UMA_TICKET_GRANT;

  constructor(
    private readonly tickets: PermissionTickets,
    private readonly decisions: AccessDecisions,
    private readonly issuer: AccessTokenIssuer,
  ) {}

  async handle({ client, parameters, cnf, requestId }: GrantRequest): Promise<Omit<TokenResponse, 'scope'>> {
    if (parameters.ticket === undefined) throw new OAuthError('invalid_request', 'the ticket parameter is required');
    const permissions = await this.tickets.redeem(parameters.ticket, validPermissions);
    if (permissions === undefined) throw new OAuthError('invalid_grant', 'the permission ticket is unknown, expired or already used');
    const pushed = CLAIMS_PUSHING.find((name) => parameters[name] !== undefined);
    if (pushed !== undefined) throw new OAuthError('invalid_request', `claims pushing is not supported (parameter "${pushed}")`);
    if (parameters.scope !== undefined) addRequestedScopes(permissions, parseScope(parameters.scope));
    const empty = permissions.find((permission) => permission.scopes.length === 0);
    if (empty) throw new OAuthError('request_denied', `no scope is requested for resource ${empty.resourceId}: a permission without scopes is refused`);
    const scopes = [...new Set(permissions.flatMap((permission) => permission.scopes.map((scope) => `${permission.type}:${scope}`)))];
    const resources = resourcesOf(parameters);
    const decision = await this.decisions.decide(client, { scopes, resources });
    if (decision.refusal) throw refusal(decision);
    const rpt = { aud: audienceOf(permissions, resources), permissions: (exp: number) => rptPermissions(permissions, exp) };
    const { access_token, token_type, expires_in } = await this.issuer.issue(client, { scopes, decision, resources, rpt }, cnf, requestId);
    return { access_token, token_type, expires_in };
  }
}

/** Step 2: every resource of the ticket still registered by its client, with the scopes and type it named, and served. */
function validPermissions(clientKey: number, permissions: RedeemedPermission[]): Permission[] {
  return permissions.map((permission) => {
    const resource = permission.resource;
    const valid =
      resource !== null &&
      resource.clientId === clientKey &&
      resource.type === permission.resource_type &&
      permission.resource_scopes.every((scope) => resource.scopes.includes(scope)) &&
      resource.servedBy.length > 0;
    if (!valid)
      throw new OAuthError(
        'invalid_grant',
        `the permission ticket is no longer valid: resource ${permission.resource_id} was deleted, changed, or is no longer served`,
      );
    return {
      resourceId: permission.resource_id,
      type: resource.type,
      scopes: [...permission.resource_scopes],
      registered: resource.scopes,
      servedBy: resource.servedBy,
    };
  });
}

/** Grant §3.3.4: RequestedScopes(resource) = TicketScopes(resource) ∪ the requested scopes it registered. */
function addRequestedScopes(permissions: Permission[], requested: string[]): void {
  for (const name of requested) {
    const registering = permissions.filter((permission) => permission.registered.includes(name));
    if (registering.length === 0) throw new OAuthError('invalid_scope', `scope "${name}" is not registered for a resource of this ticket`);
    for (const permission of registering) if (!permission.scopes.includes(name)) permission.scopes.push(name);
  }
}

/** A bad `resource` stays invalid_target; a scope refused by the consent tickets is request_denied in explain's words. */
function refusal(decision: Decision): OAuthError {
  if (decision.refusal!.kind === 'unknown_target') return new OAuthError('invalid_target', decision.refusal!.description);
  const first = decision.verdict.scopes.find((entry) => !entry.granted);
  return new OAuthError('request_denied', first?.missing ?? decision.refusal!.description);
}

/** The registering client's data sources serving a type of the ticket; `resource` narrows them. */
function audienceOf(permissions: Permission[], resources: string[]): string | string[] {
  const served = [...new Set(permissions.flatMap((permission) => permission.servedBy))];
  const foreign = resources.find((uri) => !served.includes(uri));
  if (foreign !== undefined) {
    throw new OAuthError('invalid_target', `resource "${foreign}" is not a data source of the client that registered the ticket's resources`);
  }
  const audience = resources.length > 0 ? [...new Set(resources)] : served;
  return audience.length === 1 ? audience[0] : audience;
}

function rptPermissions(permissions: Permission[], exp: number) {
  return permissions.map((permission) => ({ resource_id: permission.resourceId, resource_scopes: permission.scopes, exp }));
}
