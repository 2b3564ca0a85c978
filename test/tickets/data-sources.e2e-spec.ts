import request from 'supertest';
import { add, freshIds, getAdmin, JSON_API, patchAdmin, ref, rowCounts } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type JsonApiDocument, type JsonApiErrors, type JsonApiResource, type PatchResults } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

/** A client allowed uma_protection (the resource server's), another without it, and a resource definition. */
async function world(): Promise<{ rsClient: number; plainClient: number; definition: number; other: number }> {
  const [rsClient, plainClient, definition, other] = freshIds(4);
  const response = await patchAdmin(server, [
    add('uma-client', { id: rsClient, attributes: { clientId: `rs-${rsClient}`, clientName: 'Glucose API', allowedScopes: 'uma_protection' } }),
    add('uma-client', { id: plainClient, attributes: { clientId: `app-${plainClient}`, clientName: 'App', allowedScopes: 'read' } }),
    add('resource-definition', { id: definition, attributes: { name: `blood-glucose-level-${definition}` } }),
    add('resource-definition', { id: other, attributes: { name: `weight-${other}` } }),
  ]);
  expect(response.status).toBe(200);
  return { rsClient, plainClient, definition, other };
}

const dataSourceValue = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  attributes: { name: 'Glucose API', kind: 'resource-server', resourceUri: `https://glucose-${id}.example/api` },
  ...extra,
});

const errorOf = (response: request.Response, index: number) => bodyOf<JsonApiErrors[]>(response)[index].errors[0];

describe('data sources through JSON Patch', () => {
  it('enrols a data source and the definitions it serves in one request, readable with include', async () => {
    const { rsClient, definition, other } = await world();
    const [source, pair1, pair2] = freshIds(3);
    const response = await patchAdmin(server, [
      add('data-source', dataSourceValue(source, { relationships: { umaClient: ref('uma-client', rsClient) } })),
      add('data-source-resource-definitions', {
        id: pair1,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', definition) },
      }),
      add('data-source-resource-definitions', {
        id: pair2,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', other) },
      }),
    ]);
    expect(response.status).toBe(200);
    expect(bodyOf<PatchResults>(response)[0].data).toMatchObject({
      type: 'data-source',
      id: String(source),
      attributes: { name: 'Glucose API', kind: 'resource-server', resourceUri: `https://glucose-${source}.example/api` },
      relationships: { umaClient: { data: { type: 'uma-client', id: String(rsClient) } } },
    });
    const read = await getAdmin(server, `/admin/data-source-resource-definitions/${pair1}?include=dataSource.umaClient,resourceDefinition`);
    expect(read.status).toBe(200);
    const included = (bodyOf<JsonApiDocument>(read).included ?? []).map((record) => `${record.type}:${record.id}`).sort();
    expect(included).toEqual([`data-source:${source}`, `resource-definition:${definition}`, `uma-client:${rsClient}`].sort());
  });

  it('records every data-source change in the audit trail', async () => {
    const [source] = freshIds(1);
    await patchAdmin(server, [add('data-source', dataSourceValue(source))]);
    await patchAdmin(server, [{ op: 'replace', path: `/data-source/${source}`, value: { type: 'data-source', attributes: { name: 'Renamed' } } }]);
    await patchAdmin(server, [{ op: 'remove', path: `/data-source/${source}` }]);
    const rows: { operation: string; before: { name?: string } | null; after: { name?: string } | null }[] = await server.dataSource.query(
      `SELECT operation, before, after FROM audit_event WHERE record_type = 'data-source' AND record_id = $1 ORDER BY id`,
      [source],
    );
    expect(rows.map((row) => row.operation)).toEqual(['add', 'replace', 'remove']);
    expect(rows[1].before?.name).toBe('Glucose API');
    expect(rows[1].after?.name).toBe('Renamed');
    expect(rows[2].after).toBeNull();
  });

  it('enrols a data source without an introspection client, and unsets one with data null', async () => {
    const { rsClient } = await world();
    const [source] = freshIds(1);
    expect(bodyOf<PatchResults>(await patchAdmin(server, [add('data-source', dataSourceValue(source))]))[0].data?.relationships).toEqual({
      umaClient: { data: null },
    });
    await patchAdmin(server, [
      { op: 'replace', path: `/data-source/${source}`, value: { type: 'data-source', relationships: { umaClient: ref('uma-client', rsClient) } } },
    ]);
    const unset = await patchAdmin(server, [
      { op: 'replace', path: `/data-source/${source}`, value: { type: 'data-source', relationships: { umaClient: { data: null } } } },
    ]);
    expect(unset.status).toBe(200);
    expect(bodyOf<PatchResults>(unset)[0].data?.relationships?.umaClient).toEqual({ data: null });
  });

  it('stores nothing of a request whose last operation fails', async () => {
    const { definition } = await world();
    const [source, pair] = freshIds(2);
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [
      add('data-source', dataSourceValue(source)),
      add('data-source-resource-definitions', {
        id: pair,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', definition + 999_999) },
      }),
    ]);
    expect(response.status).toBe(404);
    expect(errorOf(response, 0).code).toBe('not_applied');
    expect(errorOf(response, 1).source?.pointer).toBe('/1/value/relationships/resourceDefinition');
    expect(await rowCounts(server)).toEqual(before);
  });

  it('answers 409 naming resourceUri for a second data source with the same resource URI', async () => {
    const [first, second] = freshIds(2);
    await patchAdmin(server, [add('data-source', dataSourceValue(first))]);
    const response = await patchAdmin(server, [
      add('data-source', { id: second, attributes: { name: 'Copy', kind: 'resource-server', resourceUri: `https://glucose-${first}.example/api` } }),
    ]);
    expect(response.status).toBe(409);
    expect(errorOf(response, 0).source?.pointer).toBe('/0/value/attributes/resourceUri');
  });

  it('answers 409 for a pair of data source and definition given twice', async () => {
    const { definition } = await world();
    const [source, pair1, pair2] = freshIds(3);
    await patchAdmin(server, [
      add('data-source', dataSourceValue(source)),
      add('data-source-resource-definitions', {
        id: pair1,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', definition) },
      }),
    ]);
    const response = await patchAdmin(server, [
      add('data-source-resource-definitions', {
        id: pair2,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', definition) },
      }),
    ]);
    expect(response.status).toBe(409);
    expect(errorOf(response, 0).source?.pointer).toBe('/0/value/relationships/resourceDefinition');
  });

  it.each([
    ['a relative resourceUri', { resourceUri: '/glucose' }, '/0/value/attributes/resourceUri'],
    ['a resourceUri with a fragment', { resourceUri: 'https://glucose.example/api#x' }, '/0/value/attributes/resourceUri'],
    ['an unknown kind', { kind: 'database' }, '/0/value/attributes/kind'],
  ])('answers 422 for %s', async (_, attributes, pointer) => {
    const [source] = freshIds(1);
    const response = await patchAdmin(server, [add('data-source', { id: source, attributes: { ...dataSourceValue(source).attributes, ...attributes } })]);
    expect(response.status).toBe(422);
    expect(errorOf(response, 0).source?.pointer).toBe(pointer);
  });

  it('answers 400 for a kind that is not a string, and for a missing resourceUri', async () => {
    const [source] = freshIds(1);
    const wrongType = await patchAdmin(server, [add('data-source', { id: source, attributes: { ...dataSourceValue(source).attributes, kind: 7 } })]);
    expect(wrongType.status).toBe(400);
    expect(errorOf(wrongType, 0).source?.pointer).toBe('/0/value/attributes/kind');
    const missing = await patchAdmin(server, [add('data-source', { id: source, attributes: { name: 'x', kind: 'resource-server' } })]);
    expect(missing.status).toBe(400);
  });

  it('answers 422 for an introspection client not allowed uma_protection', async () => {
    const { plainClient } = await world();
    const [source] = freshIds(1);
    const response = await patchAdmin(server, [add('data-source', dataSourceValue(source, { relationships: { umaClient: ref('uma-client', plainClient) } }))]);
    expect(response.status).toBe(422);
    expect(errorOf(response, 0).source?.pointer).toBe('/0/value/relationships/umaClient');
  });

  it("answers 422 for taking uma_protection away from a data source's introspection client", async () => {
    const { rsClient } = await world();
    const [source] = freshIds(1);
    await patchAdmin(server, [add('data-source', dataSourceValue(source, { relationships: { umaClient: ref('uma-client', rsClient) } }))]);
    const response = await patchAdmin(server, [
      { op: 'replace', path: `/uma-client/${rsClient}`, value: { type: 'uma-client', attributes: { allowedScopes: 'read' } } },
    ]);
    expect(response.status).toBe(422);
    expect(errorOf(response, 0).source?.pointer).toBe('/0/value/attributes/allowedScopes');
  });

  it('answers 404 for a data source that does not exist', async () => {
    const { definition } = await world();
    const [pair] = freshIds(1);
    const response = await patchAdmin(server, [
      add('data-source-resource-definitions', {
        id: pair,
        relationships: { dataSource: ref('data-source', 2_000_000_001), resourceDefinition: ref('resource-definition', definition) },
      }),
    ]);
    expect(response.status).toBe(404);
    expect(errorOf(response, 0).source?.pointer).toBe('/0/value/relationships/dataSource');
  });

  it('answers 409 for removing a data source, a definition or a client still referenced', async () => {
    const { rsClient, definition } = await world();
    const [source, pair] = freshIds(2);
    await patchAdmin(server, [
      add('data-source', dataSourceValue(source, { relationships: { umaClient: ref('uma-client', rsClient) } })),
      add('data-source-resource-definitions', {
        id: pair,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', definition) },
      }),
    ]);
    for (const path of [`/data-source/${source}`, `/resource-definition/${definition}`, `/uma-client/${rsClient}`]) {
      const response = await patchAdmin(server, [{ op: 'remove', path }]);
      expect(response.status).toBe(409);
    }
    const removed = await patchAdmin(server, [
      { op: 'remove', path: `/data-source-resource-definitions/${pair}` },
      { op: 'remove', path: `/data-source/${source}` },
    ]);
    expect(removed.status).toBe(200);
  });
});

describe('data sources through plain JSON:API', () => {
  const send = (method: 'post' | 'patch' | 'delete', path: string) =>
    request(server.adminUrl)[method](path).set('Authorization', server.adminToken).set('Content-Type', JSON_API);

  it('creates, lists, updates and deletes a data source', async () => {
    const created = await send('post', '/admin/data-source').send(
      JSON.stringify({
        data: { type: 'data-source', attributes: { name: 'IdP', kind: 'identity-provider', resourceUri: `urn:example:idp:${freshIds(1)[0]}` } },
      }),
    );
    expect(created.status).toBe(201);
    const id = bodyOf<JsonApiDocument<JsonApiResource>>(created).data.id;
    expect(created.headers.location).toBe(`/admin/data-source/${id}`);
    const listed = await getAdmin(server, '/admin/data-source?page[size]=100');
    expect(listed.status).toBe(200);
    expect(bodyOf<JsonApiDocument>(listed).meta?.total).toBeGreaterThanOrEqual(1);
    const updated = await send('patch', `/admin/data-source/${id}`).send(
      JSON.stringify({ data: { type: 'data-source', id, attributes: { kind: 'resource-server' } } }),
    );
    expect(updated.status).toBe(200);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(updated).data.attributes.kind).toBe('resource-server');
    expect((await send('delete', `/admin/data-source/${id}`)).status).toBe(204);
    expect((await getAdmin(server, `/admin/data-source/${id}`)).status).toBe(404);
  });

  it('refuses an unknown kind with a 422 error document', async () => {
    const response = await send('post', '/admin/data-source').send(
      JSON.stringify({ data: { type: 'data-source', attributes: { name: 'x', kind: 'nope', resourceUri: 'https://x.example' } } }),
    );
    expect(response.status).toBe(422);
    expect(bodyOf<JsonApiErrors>(response).errors[0].source?.pointer).toBe('/data/attributes/kind');
  });

  it('points a refused plain PATCH at the attribute in the request document, changing nothing', async () => {
    const uri = `urn:example:idp:${freshIds(1)[0]}`;
    const created = await send('post', '/admin/data-source').send(
      JSON.stringify({ data: { type: 'data-source', attributes: { name: 'IdP', kind: 'identity-provider', resourceUri: uri } } }),
    );
    const id = bodyOf<JsonApiDocument<JsonApiResource>>(created).data.id;
    const response = await send('patch', `/admin/data-source/${id}`).send(JSON.stringify({ data: { type: 'data-source', id, attributes: { kind: 'nope' } } }));
    expect(response.status).toBe(422);
    expect(bodyOf<JsonApiErrors>(response).errors[0].source?.pointer).toBe('/data/attributes/kind');
    const read = await getAdmin(server, `/admin/data-source/${id}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(read).data.attributes.kind).toBe('identity-provider');
  });

  it('answers 400 for an unknown include', async () => {
    expect((await getAdmin(server, '/admin/data-source?include=purpose')).status).toBe(400);
  });
});
