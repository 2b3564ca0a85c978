import request from 'supertest';
import { add, freshIds, getAdmin, patchAdmin, rowCounts } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type JsonApiResource, type JsonApiDocument, type PatchResult, type AuthorizationServerAttributes, type JwksBody } from '../support/bodies.js';

/**
 * What the console relies on beyond docs/reference/admin-interface.md: local ids (`lid`, JSON:API 1.1) that let later
 * operations of one JSON Patch request refer to records added earlier in it, and the read-only
 * `GET /admin/authorization-server`.
 */
let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(async () => {
  await server?.close();
});

const byLid = (type: string, lid: string) => ({ data: { type, lid } });

describe('local ids in a JSON Patch request', () => {
  it('lets later operations refer to records added earlier in the same request, by lid', async () => {
    const [clientId] = freshIds(1);
    const name = `lid-definition-${clientId}`;
    const response = await patchAdmin(server, [
      add('uma-client', { lid: 'client', attributes: { clientId: `lid-client-${clientId}`, clientName: 'Lid', allowedScopes: `${name}:read` } }),
      add('resource-definition', { lid: 'definition', attributes: { name, description: '' } }),
      add('scope', { lid: 'scope', attributes: { name: 'read' }, relationships: { resourceDefinition: byLid('resource-definition', 'definition') } }),
      add('purpose', { lid: 'purpose', attributes: { name: 'A purpose' } }),
      add('capability-ticket', {
        lid: 'ticket',
        attributes: { ticketId: `lid-ticket-${clientId}`, ticketName: 'Lid' },
        relationships: { purpose: byLid('purpose', 'purpose'), umaClient: byLid('uma-client', 'client') },
      }),
      add('requested-resource', {
        lid: 'resource',
        attributes: { maxPermissionDuration: 60, requestedResourceId: 'r' },
        relationships: { resourceDefinition: byLid('resource-definition', 'definition'), umaClient: byLid('uma-client', 'client') },
      }),
      add('requested-resource-scopes', {
        relationships: { scope: byLid('scope', 'scope'), purpose: byLid('purpose', 'purpose'), requestedResource: byLid('requested-resource', 'resource') },
      }),
      add('requested-resources-capability-tickets', {
        relationships: { capabilityTicket: byLid('capability-ticket', 'ticket'), requestedResource: byLid('requested-resource', 'resource') },
      }),
    ]).expect(200);
    const results = bodyOf<{ data: JsonApiResource & { lid?: string } }[]>(response);
    const [client, definition, scope, purpose, ticket, resource] = results.map((result) => result.data);
    expect(scope.relationships?.resourceDefinition.data).toEqual({ type: 'resource-definition', id: definition.id });
    expect(ticket.relationships).toEqual({
      purpose: { data: { type: 'purpose', id: purpose.id } },
      umaClient: { data: { type: 'uma-client', id: client.id } },
    });
    expect(results[7].data.relationships?.requestedResource.data).toEqual({ type: 'requested-resource', id: resource.id });
    expect(client.lid).toBeUndefined();
  });

  it('refuses a lid no earlier operation added (404 at that relationship), and stores nothing', async () => {
    const counts = await rowCounts(server);
    const response = await patchAdmin(server, [
      add('purpose', { lid: 'purpose', attributes: { name: 'Unused' } }),
      add('capability-ticket', {
        attributes: { ticketId: `lid-missing-${freshIds(1)[0]}`, ticketName: 'x' },
        relationships: { purpose: byLid('purpose', 'purpose'), umaClient: byLid('uma-client', 'nobody') },
      }),
    ]).expect(404);
    expect(bodyOf<PatchResult[]>(response)[1].errors?.[0].source?.pointer).toBe('/1/value/relationships/umaClient');
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0].code).toBe('not_applied');
    expect(await rowCounts(server)).toEqual(counts);
  });

  it('refuses a lid given twice for one type, a lid that is not a string, and a relationship with both id and lid (400)', async () => {
    const twice = await patchAdmin(server, [
      add('purpose', { lid: 'same', attributes: { name: 'a' } }),
      add('purpose', { lid: 'same', attributes: { name: 'b' } }),
    ]).expect(400);
    expect(bodyOf<PatchResult[]>(twice)[1].errors?.[0].source?.pointer).toBe('/1/value/lid');
    const notString = await patchAdmin(server, [add('purpose', { lid: 7, attributes: { name: 'a' } })]).expect(400);
    expect(bodyOf<PatchResult[]>(notString)[0].errors?.[0].source?.pointer).toBe('/0/value/lid');
    const both = await patchAdmin(server, [
      add('purpose', { lid: 'p', attributes: { name: 'a' } }),
      add('capability-ticket', {
        attributes: { ticketId: `both-${freshIds(1)[0]}`, ticketName: 'x' },
        relationships: { purpose: { data: { type: 'purpose', id: 1, lid: 'p' } }, umaClient: { data: { type: 'uma-client', id: 1 } } },
      }),
    ]).expect(400);
    expect(bodyOf<PatchResult[]>(both)[1].errors?.[0].source?.pointer).toBe('/1/value/relationships/purpose/data');
  });
});

describe('GET /admin/authorization-server', () => {
  it('answers the issuer, the RFC 8414 metadata and the signing keys, on the admin listener only', async () => {
    const response = await getAdmin(server, '/admin/authorization-server').expect(200);
    const { data } = bodyOf<JsonApiDocument<JsonApiResource & { attributes: AuthorizationServerAttributes }>>(response);
    const { attributes } = data;
    expect(data.type).toBe('authorization-server');
    expect(attributes.issuer).toBe(server.url);
    const metadata = await request(server.url).get('/.well-known/oauth-authorization-server').expect(200);
    expect(attributes.metadata).toEqual(metadata.body);
    const jwks = await request(server.url).get('/oauth2/jwks').expect(200);
    expect(attributes.keys.map((key) => key.kid).sort()).toEqual(
      bodyOf<JwksBody>(jwks)
        .keys.map((key) => key.kid)
        .sort(),
    );
    expect(attributes.keys.filter((key) => key.signing).length).toBeGreaterThanOrEqual(1);
    // No private key material (the metadata itself names private_key_jwt, an auth method).
    expect(JSON.stringify(attributes.keys)).not.toMatch(/private|"d":/);
    expect(JSON.stringify(attributes)).not.toMatch(/PRIVATE KEY|"d":/);
    await request(server.url).get('/admin/authorization-server').set('Authorization', server.adminToken).expect(404);
  });

  it('refuses a request without the admin token (401)', async () => {
    await request(server.adminUrl).get('/admin/authorization-server').expect(401);
  });
});
