/** One requested resource a client holds a consent ticket for, with the scopes bound to it. */
export type CoveredResource = {
  requestedResourceId: string;
  definition: string;
  maxPermissionDuration: number;
  scopes: ReadonlySet<string>;
  ticketId: string;
  purpose: string;
};

/** A granted resource scope's justification, as the UMA RPT `permissions` claim shows it. */
export type Permission = {
  resource_id: string;
  resource_type: string;
  resource_scopes: string[];
  ticket_id: string;
  purpose: string;
  exp: number;
};

export type ResourceScopeRequest = { name: string; definition: string; scope: string };

export type CoverageDecision =
  | { granted: true; covering: CoveredResource[] }
  | { granted: false; missing: string };

/**
 * API.md §4 rule 2: every requested resource scope must be bound, by a requested-resource-scopes
 * row, to a requested resource of its definition that a consent ticket of the client covers.
 * Returns the covering resources (each once), or what is missing for the first uncovered scope.
 */
export function decideCoverage(requested: ResourceScopeRequest[], held: CoveredResource[]): CoverageDecision {
  const covering = new Set<CoveredResource>();
  for (const wanted of requested) {
    const ofType = held.filter((resource) => resource.definition === wanted.definition);
    if (ofType.length === 0) {
      return { granted: false, missing: `no consent ticket of this client covers resource type "${wanted.definition}"` };
    }
    const binding = ofType.filter((resource) => resource.scopes.has(wanted.scope));
    if (binding.length === 0) {
      return { granted: false, missing: `scope "${wanted.scope}" is not bound to resource type "${wanted.definition}" by any consent ticket of this client` };
    }
    for (const resource of binding) covering.add(resource);
  }
  return { granted: true, covering: [...covering] };
}

/** The permissions claim: one entry per covering requested resource, with the scopes granted on it. */
export function permissionsOf(requested: ResourceScopeRequest[], covering: CoveredResource[], exp: number): Permission[] {
  return covering.map((resource) => ({
    resource_id: resource.requestedResourceId,
    resource_type: resource.definition,
    resource_scopes: requested
      .filter((wanted) => wanted.definition === resource.definition && resource.scopes.has(wanted.scope))
      .map((wanted) => wanted.scope),
    ticket_id: resource.ticketId,
    purpose: resource.purpose,
    exp,
  }));
}
