import { asResourceScope, type ResourceScope } from '../oauth/scope.js';
import { holdsLetters, isUnsupported, parseSmartScope, smartScopeName, type SmartScope } from '../oauth/smart-scope.js';
import type { CoveredResource } from './consent-coverage.js';

/** A combination of a requested resource with a capability ticket of the same client. */
export type HeldCombination = {
  id: number;
  ticket: { id: number; ticketId: string; ticketName: string };
  /** The capability ticket's purpose, with the purpose-of-use codes it covers for a UDAP request. */
  purpose: { id: number; name: string; purposesOfUse: readonly string[] };
  /** For a UDAP request: the asserted code its purpose matched (set by the decision, never by the facts). */
  matched?: string;
};

/** A requested resource of the client, with its scope bindings and its combinations (either may be empty). */
export type HeldResource = {
  id: number;
  requestedResourceId: string;
  definition: string;
  maxPermissionDuration: number;
  /** Scope name → ids of the requested-resource-scopes records binding it. */
  bindings: ReadonlyMap<string, readonly number[]>;
  /** In id order; the first one's ticket and purpose speak for the resource in the token. */
  combinations: readonly HeldCombination[];
};

/** A resource definition: its scopes, and the resourceUri of every data source serving it. */
export type DefinitionFacts = { name: string; scopes: ReadonlySet<string>; servedBy: readonly string[] };

/** An enrolled data source, by resourceUri: the names of the definitions it serves. */
export type DataSourceFacts = { resourceUri: string; serves: ReadonlySet<string> };

/** A scope record with SMART permissions, of a definition mapped to a FHIR type. */
export type MappedScope = { name: string; smartPermissions: string };

/** A resource definition with a FHIR type, and its scopes that have SMART permissions. */
export type MappedDefinition = { name: string; fhirResourceType: string; fhirQuery: string | null; scopes: readonly MappedScope[] };

/** Everything the decision reads, gathered (cached or fresh) by AccessDecisions. */
export type AccessFacts = {
  clientId: string;
  allowedScopes: ReadonlySet<string>;
  held: readonly HeldResource[];
  /** By name, for every definition a requested resource scope names; absent or null: no such definition. */
  definitions: ReadonlyMap<string, DefinitionFacts | null>;
  /** By resourceUri, for every requested resource; absent or null: no such data source. */
  dataSources: ReadonlyMap<string, DataSourceFacts | null>;
  /** Every definition with a FHIR type, by type then query (no query first); read only when a SMART scope is requested. */
  mapped?: readonly MappedDefinition[];
};

/**
 * `purposesOfUse`: the codes a UDAP request asserts in its `hl7-b2b` extension (src/oauth/hl7-b2b.ts);
 * when present, a chain covers a resource scope only when its purpose lists one of them.
 */
export type AccessRequest = { scopes: readonly string[]; resources: readonly string[]; purposesOfUse?: readonly string[] };

/** ACCESS_TOKEN_TTL, and the audience of a token that no data source claims (issuer or ACCESS_TOKEN_AUDIENCE). */
export type AccessPolicy = { maxLifetime: number; defaultAudience: string };

/** A covering requested resource as `explain` shows it (docs/concepts/explain.md); ids are strings, as in JSON:API. */
export type Covering = {
  requestedResource: { id: string; requestedResourceId: string; maxPermissionDuration: number };
  capabilityTicket: { id: string; ticketId: string; ticketName: string };
  purpose: { id: string; name: string };
  requestedResourceScopes: string[];
  requestedResourcesCapabilityTickets: string[];
  /** A UDAP request: the asserted purpose-of-use code the capability ticket's purpose matched. */
  purposeOfUse?: string;
};

export type ScopeVerdict = {
  scope: string;
  granted: boolean;
  allowed: boolean;
  /** A SMART scope: the `<definition>:<scope>` it stands for, or null when none. */
  denotes?: string | null;
  /** A SMART wildcard: the SMART scopes it is replaced by. */
  expandsTo?: string[];
  covering?: Covering[];
  missing?: string;
};

/** What the token endpoint would decide (the JSON of docs/concepts/explain.md). */
export type Verdict = {
  client: string;
  granted: boolean;
  scope: string;
  /** A UDAP request: the purpose-of-use codes it asserts, as given. */
  purposesOfUse?: string[];
  lifetime: number | null;
  aud: string | string[] | null;
  scopes: ScopeVerdict[];
  /** Only for a refused `resource` that no requested resource scope accounts for. */
  missing?: string;
};

/**
 * One record chain that covers a granted resource scope: one per resource scope × covering
 * combination × binding record (what a disclosure keeps, docs/guides/consent-withdrawal.md).
 */
export type CoveringChain = {
  scope: string;
  capabilityTicket: { id: string; ticketId: string };
  requestedResource: { id: string; requestedResourceId: string };
  requestedResourceScopes: { id: string };
  requestedResourcesCapabilityTickets: { id: string };
  purpose: { id: string; name: string };
  /** A UDAP request: the asserted purpose-of-use code the purpose matched. */
  purposeOfUse?: string;
};

/**
 * Why the decision refuses, in the domain's words: a scope outside the client's allowed scopes,
 * a scope no consent-ticket chain covers (or that names nothing), or a `resource` that is no
 * enrolled data source or does not serve the definition. Transports map the kind to their own
 * error codes (the token endpoint: src/tokens/refusal-error.ts).
 */
export type RefusalKind = 'not_allowed' | 'not_covered' | 'unknown_target';

export type Refusal = { kind: RefusalKind; description: string };

/** The verdict, and for the token endpoint the refusal or what the token carries. */
export type Decision = {
  verdict: Verdict;
  refusal?: Refusal;
  /** The requested resource scopes, and each covering requested resource once (the permissions claim). */
  resourceScopes: ResourceScope[];
  covered: CoveredResource[];
  /** The token's scope names: as requested, SMART wildcards replaced by their expansions, repeats dropped. */
  scopes: string[];
  /** Every chain behind the granted resource scopes (none when refused). */
  chains: CoveringChain[];
};

type Link = 'not-allowed' | 'scope' | 'target';
/** One entry of the verdict; `granted` holds the names it adds to the token's scope, `wanted` the resource scopes it stands for. */
type Checked = { verdict: ScopeVerdict; link?: Link; covered: HeldResource[]; granted: string[]; wanted: ResourceScope[] };

/**
 * A UDAP request's asserted purpose-of-use codes, and each requested resource narrowed to the
 * combinations whose purpose lists one of them (made once per resource, so that a resource stays
 * one object across the scopes it covers).
 */
type PurposeFilter = { codes: readonly string[]; narrowed: Map<HeldResource, HeldResource> };

/**
 * The one decision of docs/concepts/consent-tickets.md#when-a-resource-scope-is-granted and
 * docs/concepts/audience.md, shared by the token endpoint and `explain`: for every
 * requested scope, the first missing link in the order of docs/concepts/explain.md (allowed scopes; the
 * definition; its scope; a requested resource of the client; a requested-resource-scopes binding;
 * a combination with a capability ticket of the client; the `resource` data sources), or the
 * records that cover it. When granted: the lifetime and the audience the token gets.
 */
export function decideAccess(request: AccessRequest, facts: AccessFacts, policy: AccessPolicy): Decision {
  const resources = [...new Set(request.resources)];
  // Only a UDAP request asserts purposes of use; any other pays nothing more than this test.
  const purposes: PurposeFilter | undefined = request.purposesOfUse ? { codes: request.purposesOfUse, narrowed: new Map() } : undefined;
  const checked = request.scopes.flatMap((name) => checkRequested(name, resources, facts, purposes));
  const resourceScopes = uniqueByName(checked.flatMap((entry) => entry.wanted));
  const unknownTarget = resourceScopes.length === 0 ? resources.find((uri) => !facts.dataSources.get(uri)) : undefined;
  const refusal = refusalOf(checked, unknownTarget);
  const covered = [...new Set(checked.flatMap((entry) => entry.covered))];
  const verdict: Verdict = {
    client: facts.clientId,
    granted: refusal === undefined,
    scope: request.scopes.join(' '),
    ...(purposes ? { purposesOfUse: [...purposes.codes] } : {}),
    lifetime: refusal ? null : Math.min(policy.maxLifetime, ...covered.map((resource) => resource.maxPermissionDuration)),
    aud: refusal ? null : audienceOf(resources, resourceScopes, facts, policy),
    scopes: checked.map((entry) => entry.verdict),
    ...(unknownTarget !== undefined ? { missing: noDataSource(unknownTarget) } : {}),
  };
  const scopes = [...new Set(checked.flatMap((entry) => entry.granted))];
  const chains = refusal
    ? []
    : checked.flatMap((entry) => entry.covered.flatMap((resource) => chainsOf(entry.verdict.denotes ?? entry.verdict.scope, resource)));
  return { verdict, refusal, resourceScopes, covered: refusal ? [] : covered.map(coveredResource), scopes, chains };
}

/** A requested name's entries: one, or for a SMART wildcard its own entry followed by one per expansion. */
function checkRequested(name: string, resources: string[], facts: AccessFacts, purposes: PurposeFilter | undefined): Checked[] {
  const smart = parseSmartScope(name);
  if (smart === undefined) return [checkNamed(name, resources, facts, purposes)];
  if (isUnsupported(smart)) return [smartRefused(name, null, smart.unsupported)];
  if (smart.type === '*') return expandWildcard(smart, resources, facts, purposes);
  return [checkSmart(smart, resources, facts, purposes)];
}

/** A plain scope or `<definition>:<scope>`: in the client's allowed scopes and, for a resource scope, covered by a consent ticket. */
function checkNamed(name: string, resources: string[], facts: AccessFacts, purposes: PurposeFilter | undefined): Checked {
  const wanted = asResourceScope(name);
  if (!facts.allowedScopes.has(name)) {
    const missing = `scope "${name}" is not in the allowed scopes of client ${facts.clientId}`;
    return {
      verdict: { scope: name, granted: false, allowed: false, ...(wanted ? { covering: [] } : {}), missing },
      link: 'not-allowed',
      covered: [],
      granted: [],
      wanted: wanted ? [wanted] : [],
    };
  }
  if (!wanted) return { verdict: { scope: name, granted: true, allowed: true }, covered: [], granted: [name], wanted: [] };
  return checkResourceScope(wanted, resources, facts, purposes);
}

/**
 * A SMART scope stands for one scope record: of the definition mapped to its type and query,
 * the scopes whose permissions hold every requested letter, fewest letters first, then by name;
 * the first that is granted, else the first, refused as that resource scope is.
 */
function checkSmart(smart: SmartScope, resources: string[], facts: AccessFacts, purposes: PurposeFilter | undefined): Checked {
  const definition = (facts.mapped ?? []).find((candidate) => candidate.fhirResourceType === smart.type && candidate.fhirQuery === smart.query);
  if (!definition) {
    const query = smart.query === null ? 'without a query' : `with query "${smart.query}"`;
    return smartRefused(smart.name, null, `no resource definition has fhirResourceType "${smart.type}" ${query}`);
  }
  const candidates = definition.scopes
    .filter((scope) => holdsLetters(scope.smartPermissions, smart.letters))
    .sort((a, b) => a.smartPermissions.length - b.smartPermissions.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (candidates.length === 0) {
    return smartRefused(smart.name, null, `no scope of resource definition "${definition.name}" has smartPermissions holding "${smart.letters}"`);
  }
  let first: Checked | undefined;
  for (const candidate of candidates) {
    const entry = checkNamed(`${definition.name}:${candidate.name}`, resources, facts, purposes);
    if (entry.verdict.granted) return asSmart(smart.name, entry);
    first ??= entry;
  }
  return asSmart(smart.name, first!);
}

/** The entry of the resource scope a SMART scope denotes, under the SMART scope's name. */
function asSmart(name: string, entry: Checked): Checked {
  const verdict: ScopeVerdict = { ...entry.verdict, scope: name, denotes: entry.verdict.scope };
  // Not being allowed the denoted scope is this SMART scope's missing link, told by its own name.
  const link = entry.link === 'not-allowed' ? 'scope' : entry.link;
  return { ...entry, verdict, link, granted: entry.verdict.granted ? [name] : [] };
}

function smartRefused(name: string, denotes: string | null, missing: string): Checked {
  return { verdict: { scope: name, granted: false, allowed: true, denotes, covering: [], missing }, link: 'scope', covered: [], granted: [], wanted: [] };
}

/**
 * `system/*.<letters>`: replaced by the SMART scope of every mapped definition through which the
 * letters are granted, by type then query; v1 form where there is no query.
 */
function expandWildcard(smart: SmartScope, resources: string[], facts: AccessFacts, purposes: PurposeFilter | undefined): Checked[] {
  const expansions: Checked[] = [];
  for (const definition of facts.mapped ?? []) {
    const letters = smart.v1 && definition.fhirQuery === null ? smart.name.slice('system/*.'.length) : smart.letters;
    const name = smartScopeName(definition.fhirResourceType, letters, definition.fhirQuery);
    const entry = checkSmart(
      { name, type: definition.fhirResourceType, letters: smart.letters, query: definition.fhirQuery, v1: smart.v1 },
      resources,
      facts,
      purposes,
    );
    if (entry.verdict.granted) expansions.push(entry);
  }
  const expandsTo = expansions.map((entry) => entry.verdict.scope);
  if (expansions.length === 0) {
    const missing = `no resource definition with a fhirResourceType grants "${smart.letters}" to client ${facts.clientId}`;
    return [{ verdict: { scope: smart.name, granted: false, allowed: true, expandsTo, missing }, link: 'scope', covered: [], granted: [], wanted: [] }];
  }
  return [{ verdict: { scope: smart.name, granted: true, allowed: true, expandsTo }, covered: [], granted: [], wanted: [] }, ...expansions];
}

function uniqueByName(scopes: ResourceScope[]): ResourceScope[] {
  const seen = new Map<string, ResourceScope>();
  for (const scope of scopes) if (!seen.has(scope.name)) seen.set(scope.name, scope);
  return [...seen.values()];
}

function checkResourceScope(wanted: ResourceScope, resources: string[], facts: AccessFacts, purposes: PurposeFilter | undefined): Checked {
  const refused = (missing: string, link: Link = 'scope'): Checked => ({
    verdict: { scope: wanted.name, granted: false, allowed: true, covering: [], missing },
    link,
    covered: [],
    granted: [],
    wanted: [wanted],
  });
  const definition = facts.definitions.get(wanted.definition);
  if (!definition) return refused(`no resource definition named "${wanted.definition}"`);
  if (!definition.scopes.has(wanted.scope)) return refused(`no scope named "${wanted.scope}" in resource definition "${wanted.definition}"`);
  const ofDefinition = facts.held.filter((resource) => resource.definition === wanted.definition);
  if (ofDefinition.length === 0) {
    return refused(
      `no requested resource of ${facts.clientId} for resource definition "${wanted.definition}": no consent ticket of this client covers resource type "${wanted.definition}"`,
    );
  }
  const binding = ofDefinition.filter((resource) => resource.bindings.has(wanted.scope));
  if (binding.length === 0) {
    return refused(
      `no requested-resource-scopes record binds scope "${wanted.scope}" to requested resource ${idList(ofDefinition)} of ${facts.clientId}: scope "${wanted.scope}" is not bound to resource type "${wanted.definition}" by any consent ticket of this client`,
    );
  }
  let combined = binding.filter((resource) => resource.combinations.length > 0);
  if (combined.length === 0) {
    return refused(
      `no requested-resources-capability-tickets record combines a capability ticket of ${facts.clientId} with requested resource ${idList(binding)}`,
    );
  }
  if (purposes) {
    const matching = combined.map((resource) => narrowed(resource, purposes)).filter((resource) => resource.combinations.length > 0);
    if (matching.length === 0) {
      return refused(
        `no capability ticket of ${facts.clientId} combined with requested resource ${idList(combined)} has a purpose whose purposesOfUse holds ${codeList(purposes.codes)}: no consent ticket covers purpose of use ${codeList(purposes.codes)}`,
      );
    }
    combined = matching;
  }
  for (const uri of resources) {
    const dataSource = facts.dataSources.get(uri);
    if (!dataSource) return refused(noDataSource(uri), 'target');
    if (!dataSource.serves.has(wanted.definition)) {
      return refused(
        `resource "${uri}" does not serve resource definition "${wanted.definition}": no data-source-resource-definitions record pairs them`,
        'target',
      );
    }
  }
  return {
    verdict: { scope: wanted.name, granted: true, allowed: true, covering: combined.map((resource) => coveringOf(resource, wanted.scope)) },
    covered: combined,
    granted: [wanted.name],
    wanted: [wanted],
  };
}

/**
 * Not allowed first (all such names, as before), then the first refused scope, named, with its
 * missing link (`blood-glucose-level:read: no requested-resources-capability-tickets record …`),
 * then a stray resource.
 */
function refusalOf(checked: Checked[], unknownTarget: string | undefined): Refusal | undefined {
  const notAllowed = checked.filter((entry) => entry.link === 'not-allowed').map((entry) => entry.verdict.scope);
  if (notAllowed.length > 0) return { kind: 'not_allowed', description: `scope not allowed for this client: ${notAllowed.join(' ')}` };
  const first = checked.find((entry) => entry.link !== undefined);
  if (first?.link === 'target') return { kind: 'unknown_target', description: first.verdict.missing! };
  if (first) return { kind: 'not_covered', description: `${first.verdict.scope}: ${first.verdict.missing!}` };
  if (unknownTarget !== undefined) return { kind: 'unknown_target', description: noDataSource(unknownTarget) };
  return undefined;
}

/** docs/concepts/audience.md: the resources asked for, else every data source serving a requested definition, else the default. */
function audienceOf(resources: string[], resourceScopes: ResourceScope[], facts: AccessFacts, policy: AccessPolicy): string | string[] {
  const audience =
    resources.length > 0 ? resources : [...new Set(resourceScopes.flatMap((wanted) => facts.definitions.get(wanted.definition)?.servedBy ?? []))];
  if (audience.length === 0) return policy.defaultAudience;
  return audience.length === 1 ? audience[0] : audience;
}

function noDataSource(uri: string): string {
  return `resource "${uri}" is no enrolled data source: no data-source has that resourceUri`;
}

/**
 * The resource with only the combinations whose purpose lists an asserted code, each marked with
 * the first asserted code (in the request's order) its purpose lists.
 */
function narrowed(resource: HeldResource, purposes: PurposeFilter): HeldResource {
  let result = purposes.narrowed.get(resource);
  if (result === undefined) {
    const combinations: HeldCombination[] = [];
    for (const combination of resource.combinations) {
      const matched = purposes.codes.find((code) => combination.purpose.purposesOfUse.includes(code));
      if (matched !== undefined) combinations.push({ ...combination, matched });
    }
    result = { ...resource, combinations };
    purposes.narrowed.set(resource, result);
  }
  return result;
}

/** The asserted codes, quoted: `"urn:…#TREAT"` or `"urn:…#TREAT" or "urn:…#ETREAT"`. */
function codeList(codes: readonly string[]): string {
  const quoted = codes.slice(0, 5).map((code) => `"${code.slice(0, 255)}"`);
  return codes.length > 5 ? `${quoted.join(', ')} or another` : quoted.join(' or ');
}

function idList(resources: HeldResource[]): string {
  const ids = resources
    .slice(0, 5)
    .map((resource) => resource.id)
    .join(', ');
  return resources.length > 5 ? `${ids}, …` : ids;
}

function coveringOf(resource: HeldResource, scope: string): Covering {
  const [first] = resource.combinations;
  return {
    requestedResource: { id: String(resource.id), requestedResourceId: resource.requestedResourceId, maxPermissionDuration: resource.maxPermissionDuration },
    capabilityTicket: { id: String(first.ticket.id), ticketId: first.ticket.ticketId, ticketName: first.ticket.ticketName },
    purpose: { id: String(first.purpose.id), name: first.purpose.name },
    requestedResourceScopes: (resource.bindings.get(scope) ?? []).map(String),
    requestedResourcesCapabilityTickets: resource.combinations.map((combination) => String(combination.id)),
    ...(first.matched !== undefined ? { purposeOfUse: first.matched } : {}),
  };
}

function chainsOf(name: string, resource: HeldResource): CoveringChain[] {
  const bindings = resource.bindings.get(asResourceScope(name)!.scope) ?? [];
  return resource.combinations.flatMap((combination) =>
    bindings.map((binding) => ({
      scope: name,
      capabilityTicket: { id: String(combination.ticket.id), ticketId: combination.ticket.ticketId },
      requestedResource: { id: String(resource.id), requestedResourceId: resource.requestedResourceId },
      requestedResourceScopes: { id: String(binding) },
      requestedResourcesCapabilityTickets: { id: String(combination.id) },
      purpose: { id: String(combination.purpose.id), name: combination.purpose.name },
      ...(combination.matched !== undefined ? { purposeOfUse: combination.matched } : {}),
    })),
  );
}

function coveredResource(resource: HeldResource): CoveredResource {
  const [first] = resource.combinations;
  return {
    requestedResourceId: resource.requestedResourceId,
    definition: resource.definition,
    maxPermissionDuration: resource.maxPermissionDuration,
    scopes: new Set(resource.bindings.keys()),
    ticketId: first.ticket.ticketId,
    purpose: first.purpose.name,
    ...(first.matched !== undefined ? { purposeOfUse: first.matched } : {}),
  };
}
