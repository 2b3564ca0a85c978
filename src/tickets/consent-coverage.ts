/** One requested resource a client holds a consent ticket for, with the scopes bound to it. */
export type CoveredResource = {
  requestedResourceId: string;
  definition: string;
  maxPermissionDuration: number;
  scopes: ReadonlySet<string>;
  ticketId: string;
  purpose: string;
  /** A UDAP request: the asserted purpose-of-use code the ticket's purpose matched. */
  purposeOfUse?: string;
};

/** A granted resource scope's justification, as the UMA RPT `permissions` claim shows it. */
export type Permission = {
  resource_id: string;
  resource_type: string;
  resource_scopes: string[];
  ticket_id: string;
  purpose: string;
  /** A UDAP request only: the asserted purpose-of-use code the ticket's purpose matched (docs/concepts/consent-tickets.md#purpose-of-use). */
  purpose_of_use?: string;
  exp: number;
};

export type ResourceScopeRequest = { name: string; definition: string; scope: string };

/** The permissions claim: one entry per covering requested resource, with the scopes granted on it. */
export function permissionsOf(requested: ResourceScopeRequest[], covering: CoveredResource[], exp: number): Permission[] {
  return covering.map((resource) => ({
    resource_id: resource.requestedResourceId,
    resource_type: resource.definition,
    resource_scopes: requested.filter((wanted) => wanted.definition === resource.definition && resource.scopes.has(wanted.scope)).map((wanted) => wanted.scope),
    ticket_id: resource.ticketId,
    purpose: resource.purpose,
    ...(resource.purposeOfUse !== undefined ? { purpose_of_use: resource.purposeOfUse } : {}),
    exp,
  }));
}
