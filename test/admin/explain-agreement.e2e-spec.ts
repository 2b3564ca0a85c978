import fc from 'fast-check';
import request from 'supertest';
import { add, freshIds, patchAdmin, ref } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, jwtPayload, type TokenBody, type OAuthErrorBody, type CreatedClientResult, type ExplainVerdict } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp({ ACCESS_TOKEN_TTL: '3600' });
});

afterAll(() => server.close());

// A random consent graph for one client: definitions d (scopes r, w) and e (scope r), requested
// resources with random bindings and combinations, data sources serving random definitions.
// Weighted towards complete graphs, so that grants and each kind of refusal all come up.
const often = <T>(usual: T, other: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: other });
const graph = fc.record({
  allowed: often(['d:r', 'd:w', 'e:r', 'e:w', 'uma_protection'], fc.subarray(['d:r', 'd:w', 'e:r', 'e:w', 'uma_protection'])),
  resources: fc.array(
    fc.record({
      definition: fc.constantFrom('d', 'e'),
      bound: often(['r', 'w'], fc.subarray(['r', 'w'])),
      combined: often(true, fc.boolean()),
      duration: fc.integer({ min: 60, max: 7200 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  dataSources: fc.array(often(['d', 'e'], fc.subarray(['d', 'e'])), { maxLength: 2 }),
  scope: fc.uniqueArray(
    fc.oneof({ weight: 6, arbitrary: fc.constantFrom('d:r', 'e:r', 'uma_protection') }, { weight: 1, arbitrary: fc.constantFrom('d:w', 'e:w', 'x:r') }),
    { minLength: 1, maxLength: 3 },
  ),
  asked: often([] as number[], fc.subarray([0, 1, 7])),
});

type Graph = typeof graph extends fc.Arbitrary<infer T> ? T : never;

/** Writes the graph through the admin interface; returns the client's credentials and how to name things. */
async function build(g: Graph) {
  const [client, d, e, purpose, ticket] = freshIds(5);
  const names = { d: `d-${d}`, e: `e-${e}`, x: `x-${d}` } as Record<string, string>;
  const full = (name: string) => (name.includes(':') ? `${names[name.split(':')[0]]}:${name.split(':')[1]}` : name);
  // e:w is made only so that the client may be allowed it, and removed below: a scope that names nothing any more.
  const scopeIds = { 'd:r': freshIds(1)[0], 'd:w': freshIds(1)[0], 'e:r': freshIds(1)[0], 'e:w': freshIds(1)[0] } as Record<string, number>;
  const operations: unknown[] = [
    add('uma-client', { id: client, attributes: { clientId: `agree-${client}`, clientName: 'c', allowedScopes: g.allowed.map(full).join(' ') || 'plain' } }),
    add('resource-definition', { id: d, attributes: { name: names.d } }),
    add('resource-definition', { id: e, attributes: { name: names.e } }),
    ...Object.entries(scopeIds).map(([name, id]) =>
      add('scope', {
        id,
        attributes: { name: name.split(':')[1] },
        relationships: { resourceDefinition: ref('resource-definition', name.startsWith('d') ? d : e) },
      }),
    ),
    add('purpose', { id: purpose, attributes: { name: 'p' } }),
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId: `t-${ticket}`, ticketName: 't' },
      relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
    }),
  ];
  for (const resource of g.resources) {
    const [id] = freshIds(1);
    operations.push(
      add('requested-resource', {
        id,
        attributes: { maxPermissionDuration: resource.duration, requestedResourceId: `r-${id}` },
        relationships: { resourceDefinition: ref('resource-definition', resource.definition === 'd' ? d : e), umaClient: ref('uma-client', client) },
      }),
    );
    for (const scope of resource.bound) {
      const scopeId = scopeIds[`${resource.definition}:${scope}`];
      if (scopeId && `${resource.definition}:${scope}` !== 'e:w')
        operations.push(
          add('requested-resource-scopes', {
            relationships: { scope: ref('scope', scopeId), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', id) },
          }),
        );
    }
    if (resource.combined)
      operations.push(
        add('requested-resources-capability-tickets', {
          relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', id) },
        }),
      );
  }
  const uris = g.dataSources.map((serves) => {
    const [id] = freshIds(1);
    operations.push(add('data-source', { id, attributes: { name: 'ds', kind: 'resource-server', resourceUri: `https://ds-${id}.example` } }));
    for (const definition of serves)
      operations.push(
        add('data-source-resource-definitions', {
          relationships: { dataSource: ref('data-source', id), resourceDefinition: ref('resource-definition', definition === 'd' ? d : e) },
        }),
      );
    return `https://ds-${id}.example`;
  });
  const response = await patchAdmin(server, operations);
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  const removed = await patchAdmin(server, [{ op: 'remove', path: `/scope/${scopeIds['e:w']}` }]);
  if (removed.status !== 200) throw new Error(JSON.stringify(removed.body));
  const resources = g.asked.map((index) => uris[index] ?? `https://unknown-${client}-${index}.example`);
  return { clientId: `agree-${client}`, secret: bodyOf<CreatedClientResult[]>(response)[0].meta.clientSecret, scope: g.scope.map(full).join(' '), resources };
}

describe('the token endpoint and explain, on random consent graphs', () => {
  it('grant exactly when explain says granted, with its lifetime, aud and refusal text', async () => {
    const seen = { granted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(graph, async (g) => {
        const { clientId, secret, scope, resources } = await build(g);
        const form = new URLSearchParams([
          ['grant_type', 'client_credentials'],
          ['scope', scope],
          ...resources.map((uri): [string, string] => ['resource', uri]),
        ]);
        const token = await request(server.url).post('/oauth2/token').set('Authorization', basic(clientId, secret)).type('form').send(form.toString());
        const verdict = bodyOf<ExplainVerdict>(
          await request(server.adminUrl).get('/admin/explain').query({ client: clientId, scope, resource: resources }).set('Authorization', server.adminToken),
        );
        expect(token.status === 200).toBe(verdict.granted);
        seen[verdict.granted ? 'granted' : 'refused'] += 1;
        if (verdict.granted) {
          const claims = jwtPayload(bodyOf<TokenBody>(token).access_token);
          expect(claims.exp - claims.iat).toBe(verdict.lifetime);
          expect(claims.aud).toEqual(verdict.aud);
        } else if (verdict.scopes.every((entry) => entry.allowed)) {
          // invalid_scope names the refused scope before its missing link; invalid_target says the link alone.
          const first = verdict.scopes.find((entry) => entry.missing !== undefined);
          const expected =
            first === undefined
              ? verdict.missing
              : bodyOf<OAuthErrorBody>(token).error === 'invalid_scope'
                ? `${first.scope}: ${first.missing}`
                : first.missing;
          expect(bodyOf<OAuthErrorBody>(token).error_description).toBe(expected);
        } else {
          expect(bodyOf<OAuthErrorBody>(token).error).toBe('invalid_scope');
        }
      }),
      { numRuns: 40 },
    );
    // Both outcomes came up, so the comparison above was not vacuous.
    expect(seen.granted).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});
