import request from 'supertest';
import { add, freshIds, patchAdmin, ref } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { registerResource, registeredResource, umaWorld, type UmaWorld } from '../support/uma.js';
import { bodyOf, type OAuthErrorBody, type JsonApiResource, type JsonApiDocument, type UmaResourceBody } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

const item = (world: UmaWorld, id: string) => `/uma/resource_set/${id}`;
const withPat = (test: request.Test, world: UmaWorld) => test.set('Authorization', `Bearer ${world.pat}`);
const json = (test: request.Test, body: unknown) => test.set('Content-Type', 'application/json').send(JSON.stringify(body));

describe('resource registration', () => {
  it('registers a resource: 201, an opaque _id and its Location, no-store', async () => {
    const world = await umaWorld(server);
    const response = await registerResource(server, world.pat, {
      type: world.definitionName,
      resource_scopes: ['read', 'write'],
      name: 'Glucose',
      description: 'Readings',
      icon_uri: 'https://icons.example/g.png',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ _id: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/) as unknown });
    expect(response.headers.location).toBe(`${server.url}/uma/resource_set/${bodyOf<UmaResourceBody>(response)._id}`);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('reads a resource back with its _id, drops unknown members', async () => {
    const world = await umaWorld(server);
    const created = await registerResource(server, world.pat, {
      type: world.definitionName,
      resource_scopes: ['write', 'read'],
      name: 'Glucose',
      user_access_policy_uri: 'https://x.example',
    });
    const { _id: id } = bodyOf<UmaResourceBody>(created);
    const read = await withPat(request(server.url).get(item(world, id)), world);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ _id: id, type: world.definitionName, resource_scopes: ['write', 'read'], name: 'Glucose' });
  });

  it("lists the _ids of the caller's own resources only", async () => {
    const world = await umaWorld(server);
    const other = await umaWorld(server);
    const first = await registeredResource(server, world);
    const second = await registeredResource(server, world, ['read']);
    await registeredResource(server, other);
    const list = await withPat(request(server.url).get('/uma/resource_set'), world);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([first, second]);
  });

  it('replaces a resource whole with PUT', async () => {
    const world = await umaWorld(server);
    const created = await registerResource(server, world.pat, {
      type: world.definitionName,
      resource_scopes: ['read'],
      name: 'Old',
      description: 'gone after PUT',
    });
    const { _id: id } = bodyOf<UmaResourceBody>(created);
    const replaced = await json(withPat(request(server.url).put(item(world, id)), world), { type: world.definitionName, resource_scopes: ['write'] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ _id: id });
    const read = await withPat(request(server.url).get(item(world, id)), world);
    expect(read.body).toEqual({ _id: id, type: world.definitionName, resource_scopes: ['write'] });
  });

  it('deletes a resource: 204, then 404', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    const deleted = await withPat(request(server.url).delete(item(world, id)), world);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const read = await withPat(request(server.url).get(item(world, id)), world);
    expect(read.status).toBe(404);
    expect(bodyOf<OAuthErrorBody>(read).error).toBe('not_found');
  });

  it("answers 404 not_found for another client's resource, and changes nothing", async () => {
    const world = await umaWorld(server);
    const other = await umaWorld(server);
    const id = await registeredResource(server, other);
    expect((await withPat(request(server.url).get(item(world, id)), world)).status).toBe(404);
    expect((await json(withPat(request(server.url).put(item(world, id)), world), { type: world.definitionName, resource_scopes: ['read'] })).status).toBe(404);
    const deleted = await withPat(request(server.url).delete(item(world, id)), world);
    expect(deleted.status).toBe(404);
    expect(deleted.body).toEqual({ error: 'not_found', error_description: expect.any(String) as unknown });
    expect((await withPat(request(server.url).get(item(other, id)), other)).status).toBe(200);
  });

  it('answers 404 (never a 500) for an _id with a NUL, over-long or of another alphabet', async () => {
    const world = await umaWorld(server);
    for (const id of ['%00', 'a'.repeat(500), '%C3%A9t%C3%A9', '..%2F..']) {
      for (const method of ['get', 'delete'] as const) {
        const response = await withPat(request(server.url)[method](`/uma/resource_set/${id}`), world);
        expect(response.status).toBe(404);
        expect(bodyOf<OAuthErrorBody>(response).error).toBe('not_found');
      }
      const put = await json(withPat(request(server.url).put(`/uma/resource_set/${id}`), world), { type: world.definitionName, resource_scopes: ['read'] });
      expect(put.status).toBe(404);
    }
  });

  it('answers 405 unsupported_method_type with Allow for other methods', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    const patch = await withPat(request(server.url).patch(item(world, id)), world);
    expect(patch.status).toBe(405);
    expect(bodyOf<OAuthErrorBody>(patch).error).toBe('unsupported_method_type');
    expect(patch.headers.allow).toBe('GET, PUT, DELETE');
    const post = await withPat(request(server.url).post(item(world, id)), world);
    expect(post.status).toBe(405);
    const collection = await withPat(request(server.url).delete('/uma/resource_set'), world);
    expect(collection.status).toBe(405);
    expect(collection.headers.allow).toBe('GET, POST');
    const permission = await withPat(request(server.url).get('/uma/permission'), world);
    expect(permission.status).toBe(405);
    expect(permission.headers.allow).toBe('POST');
  });

  it.each([
    ['not one JSON object', '[]', 'object'],
    ['not JSON', '{"type":', 'JSON'],
    ['no resource_scopes', '{"type":"T"}', 'resource_scopes'],
    ['empty resource_scopes', '{"type":"T","resource_scopes":[]}', 'resource_scopes'],
    ['resource_scopes not an array', '{"type":"T","resource_scopes":"read"}', 'resource_scopes'],
    ['a repeated scope', '{"type":"T","resource_scopes":["read","read"]}', 'resource_scopes'],
    ['a repeated member', '{"type":"T","type":"T","resource_scopes":["read"]}', 'type'],
    ['no type', '{"resource_scopes":["read"]}', 'type'],
    ['a type that is not a string', '{"type":7,"resource_scopes":["read"]}', 'type'],
    ['an empty name', '{"type":"T","resource_scopes":["read"],"name":""}', 'name'],
    ['a name over 255 characters', `{"type":"T","resource_scopes":["read"],"name":"${'n'.repeat(256)}"}`, 'name'],
    ['a description over 2000 characters', `{"type":"T","resource_scopes":["read"],"description":"${'d'.repeat(2001)}"}`, 'description'],
    ['a relative icon_uri', '{"type":"T","resource_scopes":["read"],"icon_uri":"/icon.png"}', 'icon_uri'],
    ['an icon_uri of another scheme', '{"type":"T","resource_scopes":["read"],"icon_uri":"ftp://icons.example/g.png"}', 'icon_uri'],
    ['a scope the definition lacks', '{"type":"T","resource_scopes":["read","delete"]}', 'delete'],
    ['an unknown type', '{"type":"no-such-definition-anywhere","resource_scopes":["read"]}', 'type'],
    ['a NUL character', '{"type":"T","resource_scopes":["re\\u0000ad"]}', 'NUL'],
  ])('answers 400 invalid_request naming the member for %s, and stores nothing', async (_, body, named) => {
    const world = await umaWorld(server);
    const response = await request(server.url)
      .post('/uma/resource_set')
      .set('Authorization', `Bearer ${world.pat}`)
      .set('Content-Type', 'application/json')
      .send(body.replaceAll('"T"', JSON.stringify(world.definitionName)));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain(named);
    expect((await request(server.url).get('/uma/resource_set').set('Authorization', `Bearer ${world.pat}`)).body).toEqual([]);
  });

  it('answers 400 for another media type', async () => {
    const world = await umaWorld(server);
    const response = await request(server.url)
      .post('/uma/resource_set')
      .set('Authorization', `Bearer ${world.pat}`)
      .type('form')
      .send({ type: world.definitionName });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
  });

  it('answers 400 naming type for a definition no data source of the client serves', async () => {
    const world = await umaWorld(server);
    const [definition] = freshIds(1);
    await patchAdmin(server, [add('resource-definition', { id: definition, attributes: { name: `weight-${definition}` } })]).expect(200);
    const response = await registerResource(server, world.pat, { type: `weight-${definition}`, resource_scopes: ['read'] });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('type');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('not served');
  });

  it('refuses a PUT with an invalid description and keeps the resource as it was', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    const refused = await json(withPat(request(server.url).put(item(world, id)), world), { type: world.definitionName, resource_scopes: ['nope'] });
    expect(refused.status).toBe(400);
    expect(bodyOf<UmaResourceBody>(await withPat(request(server.url).get(item(world, id)), world)).resource_scopes).toEqual(['read', 'write']);
  });
});

describe('records a registered resource uses', () => {
  it('answers 409 at the admin interface for removing the client that registered it', async () => {
    const world = await umaWorld(server);
    await registeredResource(server, world);
    // The data source must let go of its client first; the resource still holds it.
    await patchAdmin(server, [
      { op: 'replace', path: `/data-source/${world.dataSource.id}`, value: { type: 'data-source', relationships: { umaClient: { data: null } } } },
    ]).expect(200);
    const response = await patchAdmin(server, [{ op: 'remove', path: `/uma-client/${world.rs.id}` }]);
    expect(response.status).toBe(409);
  });

  it('answers 409 for removing a scope it registered, and allows it once the resource is deleted', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world, ['write']);
    expect((await patchAdmin(server, [{ op: 'remove', path: `/scope/${world.ids.write}` }])).status).toBe(409);
    await request(server.url).delete(`/uma/resource_set/${id}`).set('Authorization', `Bearer ${world.pat}`).expect(204);
    expect((await patchAdmin(server, [{ op: 'remove', path: `/scope/${world.ids.write}` }])).status).toBe(200);
  });

  it('answers 409 for removing the definition it names', async () => {
    const world = await umaWorld(server);
    const [definition, scope, source, pair] = freshIds(4);
    await patchAdmin(server, [
      add('resource-definition', { id: definition, attributes: { name: `steps-${definition}` } }),
      add('scope', { id: scope, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
      add('data-source', {
        id: source,
        attributes: { name: 'Steps', kind: 'resource-server', resourceUri: `https://steps-${source}.example` },
        relationships: { umaClient: ref('uma-client', world.rs.id) },
      }),
      add('data-source-resource-definitions', {
        id: pair,
        relationships: { dataSource: ref('data-source', source), resourceDefinition: ref('resource-definition', definition) },
      }),
    ]).expect(200);
    const id = bodyOf<UmaResourceBody>(await registerResource(server, world.pat, { type: `steps-${definition}`, resource_scopes: ['read'] }))._id;
    expect(id).toEqual(expect.any(String));
    // Its pair with the data source may go (the resource is then no longer served), the definition may not.
    await patchAdmin(server, [{ op: 'remove', path: `/data-source-resource-definitions/${pair}` }]).expect(200);
    const response = await patchAdmin(
      server,
      [
        { op: 'remove', path: `/resource-definition/${definition}` },
        { op: 'remove', path: `/scope/${scope}` },
      ].reverse(),
    );
    expect(response.status).toBe(409);
  });
});

describe("a data source's registered resources at the admin interface", () => {
  it('lists the resources its umaClient registered, paged, as uma-resource objects', async () => {
    const world = await umaWorld(server);
    const first = await registeredResource(server, world);
    await registeredResource(server, world, ['read']);
    const response = await request(server.adminUrl)
      .get(`/admin/data-source/${world.dataSource.id}/uma-resources?page[size]=1`)
      .set('Authorization', server.adminToken);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    const body = bodyOf<JsonApiDocument<JsonApiResource[]>>(response);
    expect(body.meta?.total).toBe(2);
    expect(body.links?.next).toContain('page[number]=2');
    expect(body.data).toEqual([
      {
        type: 'uma-resource',
        id: expect.any(String) as unknown,
        attributes: {
          resourceId: first,
          type: world.definitionName,
          name: 'Glucose readings',
          description: null,
          iconUri: null,
          resourceScopes: ['read', 'write'],
        },
        relationships: {
          umaClient: { data: { type: 'uma-client', id: String(world.rs.id) } },
          resourceDefinition: { data: { type: 'resource-definition', id: String(world.ids.definition) } },
        },
      },
    ]);
  });

  it('answers 404 for an unknown data source and 401 without the admin token, and is not on the public port', async () => {
    expect((await request(server.adminUrl).get('/admin/data-source/2147483000/uma-resources').set('Authorization', server.adminToken)).status).toBe(404);
    expect((await request(server.adminUrl).get('/admin/data-source/1/uma-resources')).status).toBe(401);
    expect((await request(server.url).get('/admin/data-source/1/uma-resources').set('Authorization', server.adminToken)).status).toBe(404);
  });
});
