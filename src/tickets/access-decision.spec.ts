import fc from 'fast-check';
import { decideAccess, type AccessFacts, type HeldResource } from './access-decision.js';

const policy = { maxLifetime: 3600, defaultAudience: 'https://as.example' };
const combination = (id: number, purposesOfUse: readonly string[] = []) => ({
  id,
  ticket: { id: 70 + id, ticketId: `T-${id}`, ticketName: 'Glucose' },
  purpose: { id: 50, name: 'Follow-up', purposesOfUse },
});

const glucose: HeldResource = {
  id: 30,
  requestedResourceId: 'patient-1',
  definition: 'glucose',
  maxPermissionDuration: 900,
  bindings: new Map([['read', [40]]]),
  combinations: [combination(60)],
};

function facts(overrides: Partial<AccessFacts> = {}): AccessFacts {
  return {
    clientId: 'glucose-app',
    allowedScopes: new Set(['uma_protection', 'glucose:read', 'glucose:write', 'weight:read']),
    held: [glucose],
    definitions: new Map([
      ['glucose', { name: 'glucose', scopes: new Set(['read', 'write']), servedBy: ['https://rs1.example'] }],
      ['weight', { name: 'weight', scopes: new Set(['read']), servedBy: [] }],
    ]),
    dataSources: new Map([
      ['https://rs1.example', { resourceUri: 'https://rs1.example', serves: new Set(['glucose']) }],
      ['https://idp.example', { resourceUri: 'https://idp.example', serves: new Set<string>() }],
    ]),
    ...overrides,
  };
}

const decide = (scopes: string[], resources: string[] = [], given = facts()) => decideAccess({ scopes, resources }, given, policy);

describe('decideAccess', () => {
  it('lists one chain per resource scope, covering combination and binding record, and none when refused', () => {
    const twice: HeldResource = { ...glucose, bindings: new Map([['read', [40, 41]]]), combinations: [combination(60), combination(61)] };
    const { chains } = decide(['uma_protection', 'glucose:read'], [], facts({ held: [twice] }));
    expect(
      chains.map((chain) => [chain.scope, chain.capabilityTicket.ticketId, chain.requestedResourceScopes.id, chain.requestedResourcesCapabilityTickets.id]),
    ).toEqual([
      ['glucose:read', 'T-60', '40', '60'],
      ['glucose:read', 'T-60', '41', '60'],
      ['glucose:read', 'T-61', '40', '61'],
      ['glucose:read', 'T-61', '41', '61'],
    ]);
    expect(chains[0]).toEqual({
      scope: 'glucose:read',
      capabilityTicket: { id: '130', ticketId: 'T-60' },
      requestedResource: { id: '30', requestedResourceId: 'patient-1' },
      requestedResourceScopes: { id: '40' },
      requestedResourcesCapabilityTickets: { id: '60' },
      purpose: { id: '50', name: 'Follow-up' },
    });
    expect(decide(['glucose:read', 'weight:read']).chains).toEqual([]);
    expect(decide(['uma_protection']).chains).toEqual([]);
  });

  it('grants a covered resource scope with its evidence, lifetime and aud', () => {
    const { verdict, refusal, covered } = decide(['uma_protection', 'glucose:read']);
    expect(refusal).toBeUndefined();
    expect(verdict).toEqual({
      client: 'glucose-app',
      granted: true,
      scope: 'uma_protection glucose:read',
      lifetime: 900,
      aud: 'https://rs1.example',
      scopes: [
        { scope: 'uma_protection', granted: true, allowed: true },
        {
          scope: 'glucose:read',
          granted: true,
          allowed: true,
          covering: [
            {
              requestedResource: { id: '30', requestedResourceId: 'patient-1', maxPermissionDuration: 900 },
              capabilityTicket: { id: '130', ticketId: 'T-60', ticketName: 'Glucose' },
              purpose: { id: '50', name: 'Follow-up' },
              requestedResourceScopes: ['40'],
              requestedResourcesCapabilityTickets: ['60'],
            },
          ],
        },
      ],
    });
    expect(covered).toEqual([expect.objectContaining({ requestedResourceId: 'patient-1', ticketId: 'T-60', purpose: 'Follow-up' })]);
  });

  it('names every scope not allowed, before anything else', () => {
    const { verdict, refusal } = decide(['admin', 'nope:read', 'glucose:read']);
    expect(refusal).toEqual({ kind: 'not_allowed', description: 'scope not allowed for this client: admin nope:read' });
    expect(verdict.scopes[1]).toEqual({
      scope: 'nope:read',
      granted: false,
      allowed: false,
      covering: [],
      missing: 'scope "nope:read" is not in the allowed scopes of client glucose-app',
    });
    expect(verdict).toMatchObject({ granted: false, lifetime: null, aud: null });
  });

  it.each([
    ['an unknown definition', facts({ allowedScopes: new Set(['bone:read']) }), ['bone:read'], [], 'not_covered', 'no resource definition named "bone"'],
    [
      'a scope the definition lacks',
      facts({ allowedScopes: new Set(['glucose:delete']) }),
      ['glucose:delete'],
      [],
      'not_covered',
      'no scope named "delete" in resource definition "glucose"',
    ],
    ['no requested resource', facts(), ['weight:read'], [], 'not_covered', 'no requested resource of glucose-app for resource definition "weight"'],
    [
      'no binding',
      facts(),
      ['glucose:write'],
      [],
      'not_covered',
      'no requested-resource-scopes record binds scope "write" to requested resource 30 of glucose-app',
    ],
    [
      'no combination',
      facts({ held: [{ ...glucose, combinations: [] }] }),
      ['glucose:read'],
      [],
      'not_covered',
      'combines a capability ticket of glucose-app with requested resource 30',
    ],
    ['an unknown resource', facts(), ['glucose:read'], ['https://x.example'], 'unknown_target', 'resource "https://x.example" is no enrolled data source'],
    [
      'a resource not serving the definition',
      facts(),
      ['glucose:read'],
      ['https://idp.example'],
      'unknown_target',
      'does not serve resource definition "glucose"',
    ],
  ])('refuses %s, naming it', (_, given, scopes, resources, kind, text) => {
    const { verdict, refusal } = decide(scopes, resources, given);
    expect(refusal?.kind).toBe(kind);
    expect(refusal?.description).toContain(text);
    // A refused scope is named before its missing link; explain keeps the link alone.
    const prefix = kind === 'not_covered' ? `${scopes[0]}: ` : '';
    expect(refusal?.description).toBe(`${prefix}${verdict.scopes[0].missing}`);
  });

  it('names the first refused scope when one of two resource scopes is covered', () => {
    const { refusal } = decide(['glucose:read', 'glucose:write']);
    expect(refusal?.description).toMatch(/^glucose:write: no requested-resource-scopes record binds scope "write"/);
  });

  it('refuses an unknown resource asked for with plain scopes only, at the top of the verdict', () => {
    const { verdict, refusal } = decide(['uma_protection'], ['https://x.example']);
    expect(refusal?.kind).toBe('unknown_target');
    expect(verdict.missing).toBe(refusal?.description);
    expect(verdict.granted).toBe(false);
  });

  it('gives the default audience for plain scopes, and exactly the resources asked for otherwise', () => {
    expect(decide(['uma_protection']).verdict.aud).toBe('https://as.example');
    expect(decide(['uma_protection'], ['https://idp.example', 'https://rs1.example']).verdict.aud).toEqual(['https://idp.example', 'https://rs1.example']);
  });

  it('caps the lifetime at the shortest covering requested resource', () => {
    const short: HeldResource = { ...glucose, id: 31, maxPermissionDuration: 120 };
    expect(decide(['glucose:read'], [], facts({ held: [glucose, short] })).verdict.lifetime).toBe(120);
  });
});

// A random world: two definitions with scopes, held resources with random bindings and combinations, data sources.
const world = fc.record({
  allowed: fc.subarray(['a:r', 'a:w', 'b:r', 'b:w', 'plain']),
  scopesOfA: fc.subarray(['r', 'w']),
  held: fc.array(
    fc.record({ definition: fc.constantFrom('a', 'b'), bound: fc.subarray(['r', 'w']), combined: fc.boolean(), duration: fc.integer({ min: 1, max: 7200 }) }),
    { maxLength: 4 },
  ),
  servers: fc.array(fc.subarray(['a', 'b']), { maxLength: 3 }),
  request: fc.uniqueArray(fc.constantFrom('a:r', 'a:w', 'b:r', 'b:w', 'plain', 'c:r'), { minLength: 1, maxLength: 4 }),
  resources: fc.subarray([0, 1, 2, 9]),
});

describe('decideAccess, properties', () => {
  it('grants exactly when every scope is allowed and covered and every resource serves every requested definition', () => {
    fc.assert(
      fc.property(world, (w) => {
        const held: HeldResource[] = w.held.map((resource, index) => ({
          id: index + 1,
          requestedResourceId: `r${index}`,
          definition: resource.definition,
          maxPermissionDuration: resource.duration,
          bindings: new Map(resource.bound.map((scope) => [scope, [100 + index]])),
          combinations: resource.combined ? [combination(200 + index)] : [],
        }));
        const uri = (index: number) => `https://rs${index}.example`;
        const given: AccessFacts = {
          clientId: 'c',
          allowedScopes: new Set(w.allowed),
          held,
          definitions: new Map([
            ['a', { name: 'a', scopes: new Set(w.scopesOfA), servedBy: w.servers.flatMap((serves, index) => (serves.includes('a') ? [uri(index)] : [])) }],
            ['b', { name: 'b', scopes: new Set(['r', 'w']), servedBy: w.servers.flatMap((serves, index) => (serves.includes('b') ? [uri(index)] : [])) }],
          ]),
          dataSources: new Map(w.servers.map((serves, index) => [uri(index), { resourceUri: uri(index), serves: new Set(serves) }])),
        };
        const resources = w.resources.map(uri);
        const { verdict, refusal } = decideAccess({ scopes: w.request, resources }, given, policy);

        const resourceScopes = w.request.filter((name) => name.includes(':')).map((name) => name.split(':') as [string, string]);
        const covering = (definition: string, scope: string) =>
          held.filter((resource) => resource.definition === definition && resource.bindings.has(scope) && resource.combinations.length > 0);
        const expected =
          w.request.every((name) => w.allowed.includes(name)) &&
          resourceScopes.every(
            ([definition, scope]) => definition !== 'c' && (definition !== 'a' || w.scopesOfA.includes(scope)) && covering(definition, scope).length > 0,
          ) &&
          resources.every(
            (target) => given.dataSources.has(target) && resourceScopes.every(([definition]) => given.dataSources.get(target)!.serves.has(definition)),
          );
        expect(verdict.granted).toBe(expected);
        expect(refusal === undefined).toBe(expected);
        expect(verdict.scopes.every((entry) => entry.granted === (entry.missing === undefined))).toBe(true);
        if (expected) {
          const durations = resourceScopes.flatMap(([definition, scope]) => covering(definition, scope).map((resource) => resource.maxPermissionDuration));
          expect(verdict.lifetime).toBe(Math.min(3600, ...durations));
          const audience =
            resources.length > 0
              ? [...new Set(resources)]
              : [...new Set(resourceScopes.flatMap(([definition]) => given.definitions.get(definition)!.servedBy))];
          expect(verdict.aud).toEqual(audience.length === 0 ? policy.defaultAudience : audience.length === 1 ? audience[0] : audience);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decideAccess with SMART scopes', () => {
  const labs: HeldResource = {
    id: 31,
    requestedResourceId: 'labs-1',
    definition: 'labs',
    maxPermissionDuration: 300,
    bindings: new Map([['read', [41]]]),
    combinations: [combination(61)],
  };
  const smartFacts = (overrides: Partial<AccessFacts> = {}) =>
    facts({
      allowedScopes: new Set(['glucose:read', 'glucose:all', 'labs:read']),
      held: [glucose, labs],
      definitions: new Map([
        ['glucose', { name: 'glucose', scopes: new Set(['read', 'all']), servedBy: ['https://rs1.example'] }],
        ['labs', { name: 'labs', scopes: new Set(['read']), servedBy: [] }],
      ]),
      mapped: [
        {
          name: 'glucose',
          fhirResourceType: 'Observation',
          fhirQuery: null,
          scopes: [
            { name: 'all', smartPermissions: 'cruds' },
            { name: 'read', smartPermissions: 'rs' },
          ],
        },
        { name: 'labs', fhirResourceType: 'Observation', fhirQuery: 'category=laboratory', scopes: [{ name: 'read', smartPermissions: 'rs' }] },
      ],
      ...overrides,
    });

  it('grants a v2 scope as the candidate with the fewest letters', () => {
    const { verdict, refusal, scopes, resourceScopes } = decide(['system/Observation.rs'], [], smartFacts());
    expect(refusal).toBeUndefined();
    expect(verdict.scopes[0]).toMatchObject({ scope: 'system/Observation.rs', granted: true, denotes: 'glucose:read' });
    expect(scopes).toEqual(['system/Observation.rs']);
    expect(resourceScopes.map((wanted) => wanted.name)).toEqual(['glucose:read']);
  });

  it('grants a v1 scope and a query scope', () => {
    const { verdict, scopes } = decide(['system/Observation.read', 'system/Observation.rs?category=laboratory'], [], smartFacts());
    expect(verdict.scopes.map((entry) => entry.denotes)).toEqual(['glucose:read', 'labs:read']);
    expect(scopes).toEqual(['system/Observation.read', 'system/Observation.rs?category=laboratory']);
    expect(verdict.lifetime).toBe(300);
  });

  it('falls to the first candidate that passes, else refuses as the first candidate is refused', () => {
    const notRead = smartFacts({ allowedScopes: new Set(['glucose:all']) });
    const { verdict, refusal } = decide(['system/Observation.r'], [], notRead);
    expect(verdict.scopes[0]).toMatchObject({ granted: false, denotes: 'glucose:read' });
    expect(refusal?.description).toBe('system/Observation.r: scope "glucose:read" is not in the allowed scopes of client glucose-app');
  });

  it.each([
    [['system/Patient.rs'], 'system/Patient.rs: no resource definition has fhirResourceType "Patient" without a query'],
    [['system/Observation.rs?code=1'], 'system/Observation.rs?code=1: no resource definition has fhirResourceType "Observation" with query "code=1"'],
    [
      ['system/Observation.rs?category=laboratory', 'system/Observation.c?category=laboratory'],
      'system/Observation.c?category=laboratory: no scope of resource definition "labs" has smartPermissions holding "c"',
    ],
    [['patient/Observation.rs'], 'patient/Observation.rs: only system/ scopes are supported'],
  ])('refuses %p, naming what is missing', (scopes, description) => {
    const { verdict, refusal } = decide(scopes, [], smartFacts());
    expect(refusal?.kind).toBe('not_covered');
    expect(refusal?.description).toContain(description);
    expect(verdict.scopes.find((entry) => !entry.granted)?.denotes).toBeNull();
  });

  it('replaces a wildcard by every granted mapped scope, v1 form only where there is no query', () => {
    const v2 = decide(['system/*.rs'], [], smartFacts());
    expect(v2.scopes).toEqual(['system/Observation.rs', 'system/Observation.rs?category=laboratory']);
    expect(v2.verdict.scopes[0]).toEqual({ scope: 'system/*.rs', granted: true, allowed: true, expandsTo: v2.scopes });
    expect(v2.verdict.scopes.slice(1).map((entry) => entry.denotes)).toEqual(['glucose:read', 'labs:read']);
    expect(decide(['system/*.read'], [], smartFacts()).scopes).toEqual(['system/Observation.read', 'system/Observation.rs?category=laboratory']);
  });

  it('refuses a wildcard that expands to nothing', () => {
    const { verdict, refusal } = decide(['system/*.c'], [], smartFacts({ allowedScopes: new Set(['glucose:read']) }));
    expect(refusal?.description).toMatch(/^system\/\*\.c: no resource definition with a fhirResourceType grants "c"/);
    expect(verdict.scopes).toEqual([expect.objectContaining({ scope: 'system/*.c', granted: false, expandsTo: [] })]);
  });
});

describe('decideAccess with asserted purposes of use (UDAP)', () => {
  const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
  const ETREAT = 'urn:oid:2.16.840.1.113883.5.8#ETREAT';
  const HPAYMT = 'urn:oid:2.16.840.1.113883.5.8#HPAYMT';
  const withPurposes = (...lists: string[][]) =>
    facts({ held: [{ ...glucose, combinations: lists.map((purposesOfUse, index) => combination(60 + index, purposesOfUse)) }] });
  const decideFor = (purposesOfUse: string[], given: AccessFacts, scopes = ['glucose:read']) =>
    decideAccess({ scopes, resources: [], purposesOfUse }, given, policy);

  it('grants a resource scope whose ticket purpose lists an asserted code', () => {
    const { verdict, refusal } = decideFor([TREAT], withPurposes([TREAT]));
    expect(refusal).toBeUndefined();
    expect(verdict.granted).toBe(true);
  });

  it('refuses when no ticket purpose lists an asserted code, naming the purpose of use', () => {
    const { verdict, refusal, chains, covered } = decideFor([HPAYMT], withPurposes([TREAT]));
    expect(verdict.granted).toBe(false);
    expect(refusal).toEqual({
      kind: 'not_covered',
      description: `glucose:read: no capability ticket of glucose-app combined with requested resource 30 has a purpose whose purposesOfUse holds "${HPAYMT}": no consent ticket covers purpose of use "${HPAYMT}"`,
    });
    expect(verdict.scopes[0].covering).toEqual([]);
    expect(chains).toEqual([]);
    expect(covered).toEqual([]);
  });

  it('refuses a UDAP request when the purpose lists no code at all', () => {
    expect(decideFor([TREAT], withPurposes([])).refusal?.kind).toBe('not_covered');
  });

  it('grants the same request without asserted codes, as before (the purpose codes are ignored)', () => {
    expect(decide(['glucose:read'], [], withPurposes([])).verdict.granted).toBe(true);
  });

  it('names the missing link of a shorter chain before the purpose of use', () => {
    const unbound = facts({ held: [{ ...glucose, combinations: [] }] });
    expect(decideFor([TREAT], unbound).refusal?.description).toMatch(/^glucose:read: no requested-resources-capability-tickets record combines/);
  });

  it('keeps only the matching combinations in the chains, each with the code its purpose matched', () => {
    const { chains } = decideFor([ETREAT, TREAT], withPurposes([HPAYMT], [TREAT, ETREAT], [TREAT]));
    expect(chains.map((chain) => [chain.requestedResourcesCapabilityTickets.id, chain.purposeOfUse])).toEqual([
      ['61', ETREAT],
      ['62', TREAT],
    ]);
  });

  it('puts the matched code in the covering entry and the permission of the first matching ticket', () => {
    const { verdict, covered } = decideFor([TREAT], withPurposes([HPAYMT], [TREAT]));
    expect(verdict.scopes[0].covering).toEqual([
      {
        requestedResource: { id: '30', requestedResourceId: 'patient-1', maxPermissionDuration: 900 },
        capabilityTicket: { id: '131', ticketId: 'T-61', ticketName: 'Glucose' },
        purpose: { id: '50', name: 'Follow-up' },
        requestedResourceScopes: ['40'],
        requestedResourcesCapabilityTickets: ['61'],
        purposeOfUse: TREAT,
      },
    ]);
    expect(covered).toEqual([expect.objectContaining({ ticketId: 'T-61', purposeOfUse: TREAT })]);
  });

  it('covers a requested resource once across the scopes it grants', () => {
    const both: HeldResource = {
      ...glucose,
      bindings: new Map([
        ['read', [40]],
        ['write', [41]],
      ]),
      combinations: [combination(60, [TREAT])],
    };
    const { covered } = decideFor([TREAT], facts({ held: [both] }), ['glucose:read', 'glucose:write']);
    expect(covered).toHaveLength(1);
  });

  it('adds no purpose of use to chains or covering entries of a request that asserts none', () => {
    const { chains, verdict, covered } = decide(['glucose:read'], [], withPurposes([TREAT]));
    expect(chains[0]).not.toHaveProperty('purposeOfUse');
    expect(verdict.scopes[0].covering![0]).not.toHaveProperty('purposeOfUse');
    expect(covered[0]).not.toHaveProperty('purposeOfUse');
  });

  it('leaves plain scopes free of tickets and purposes', () => {
    expect(decideFor([TREAT], withPurposes([]), ['uma_protection']).verdict.granted).toBe(true);
  });
});

describe('decideAccess with asserted purposes of use, properties', () => {
  const CODES = ['urn:x#A', 'urn:x#B', 'urn:x#C'];
  // Every scope allowed and defined, no data source asked for: only coverage and purposes decide.
  const udapWorld = fc.record({
    held: fc.array(
      fc.record({
        bound: fc.subarray(['r', 'w']),
        combinations: fc.array(fc.subarray(CODES), { maxLength: 3 }),
        duration: fc.integer({ min: 1, max: 7200 }),
      }),
      { maxLength: 4 },
    ),
    request: fc.uniqueArray(fc.constantFrom('a:r', 'a:w', 'plain'), { minLength: 1, maxLength: 3 }),
    asserted: fc.option(fc.uniqueArray(fc.constantFrom(...CODES), { minLength: 1, maxLength: 3 }), { nil: undefined }),
  });

  it('grants exactly when every resource scope has a combination whose purpose lists an asserted code (any combination without codes asserted)', () => {
    fc.assert(
      fc.property(udapWorld, (w) => {
        const held: HeldResource[] = w.held.map((resource, index) => ({
          id: index + 1,
          requestedResourceId: `r${index}`,
          definition: 'a',
          maxPermissionDuration: resource.duration,
          bindings: new Map(resource.bound.map((scope) => [scope, [100 + index]])),
          combinations: resource.combinations.map((codes, position) => combination(200 + index * 10 + position, codes)),
        }));
        const given = facts({
          allowedScopes: new Set(['a:r', 'a:w', 'plain']),
          held,
          definitions: new Map([['a', { name: 'a', scopes: new Set(['r', 'w']), servedBy: [] }]]),
        });
        const { verdict, chains } = decideAccess({ scopes: w.request, resources: [], ...(w.asserted ? { purposesOfUse: w.asserted } : {}) }, given, policy);
        const matches = (codes: readonly string[]) => w.asserted === undefined || codes.some((code) => w.asserted!.includes(code));
        const covering = (scope: string) =>
          w.held.filter((resource) => resource.bound.includes(scope) && resource.combinations.some((codes) => matches(codes)));
        const resourceScopes = w.request.filter((name) => name !== 'plain').map((name) => name.slice(2));
        const expected = resourceScopes.every((scope) => covering(scope).length > 0);
        expect(verdict.granted).toBe(expected);
        if (expected && w.asserted) {
          // Every chain names a code its purpose lists and the request asserted.
          for (const chain of chains) expect(w.asserted).toContain(chain.purposeOfUse);
        }
        if (!w.asserted) expect(chains.every((chain) => chain.purposeOfUse === undefined)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
