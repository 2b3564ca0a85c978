import request from 'supertest';
import { add, freshIds, getAdmin, JSON_PATCH, patchAdmin, ref, rowCounts } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  bodyOf,
  type OAuthErrorBody,
  type JsonApiResource,
  type JsonApiDocument,
  type JsonApiErrors,
  type PatchResult,
  type ToOneRecord,
  type CreatedClientResult,
} from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

/** A uma-client, a resource-definition and its scope `read`: what the seed's example presumes. */
async function world(): Promise<{ client: number; definition: number; scope: number; clientId: string; secret: string }> {
  const [client, definition, scope] = freshIds(3);
  const clientId = `glucose-app-${client}`;
  const response = await patchAdmin(server, [
    add('uma-client', {
      id: client,
      attributes: { clientId, clientName: 'Glucose app', allowedScopes: `blood-glucose-level-${definition}:read uma_protection` },
    }),
    add('resource-definition', { id: definition, attributes: { name: `blood-glucose-level-${definition}`, description: 'Blood glucose measurements' } }),
    add('scope', { id: scope, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
  ]);
  expect(response.status).toBe(200);
  return { client, definition, scope, clientId, secret: bodyOf<CreatedClientResult[]>(response)[0].meta.clientSecret };
}

describe('PATCH /admin: the seed example', () => {
  it('accepts the four requests verbatim, with integer ids, and reads the records back with their relationships', async () => {
    const { client, definition, scope } = await world();
    const [purpose, ticket, resource, resourceScopes, combination] = freshIds(5);

    const step1 = await patchAdmin(server, [
      { op: 'add', path: '/purpose', value: { type: 'purpose', id: purpose, attributes: { name: 'Your doctor wants to follow your blood glucose level' } } },
    ]);
    expect(step1.status).toBe(200);
    expect(step1.headers['content-type']).toBe(JSON_PATCH);
    expect(step1.headers['content-language']).toBe('en');
    expect(step1.body).toEqual([
      {
        data: expect.objectContaining({
          type: 'purpose',
          id: String(purpose),
          attributes: { name: 'Your doctor wants to follow your blood glucose level', purposesOfUse: [] },
        }) as unknown,
      },
    ]);

    const step2 = await patchAdmin(server, [
      {
        op: 'add',
        path: '/capability-ticket',
        value: {
          type: 'capability-ticket',
          id: ticket,
          attributes: { ticketId: `ticket-${ticket}`, ticketName: 'Glucose follow-up' },
          relationships: { purpose: { data: { type: 'purpose', id: purpose } }, umaClient: { data: { type: 'uma-client', id: client } } },
        },
      },
    ]);
    expect(step2.status).toBe(200);

    const step3 = await patchAdmin(server, [
      {
        op: 'add',
        path: '/requested-resource',
        value: {
          type: 'requested-resource',
          id: resource,
          attributes: { maxPermissionDuration: 1800, requestedResourceId: `glucose-${resource}` },
          relationships: {
            resourceDefinition: { data: { type: 'resource-definition', id: definition } },
            umaClient: { data: { type: 'uma-client', id: client } },
          },
        },
      },
      {
        op: 'add',
        path: '/requested-resource-scopes',
        value: {
          type: 'requested-resource-scopes',
          id: resourceScopes,
          attributes: {},
          relationships: {
            scope: { data: { type: 'scope', id: scope } },
            purpose: { data: { type: 'purpose', id: purpose } },
            requestedResource: { data: { type: 'requested-resource', id: resource } },
          },
        },
      },
    ]);
    expect(step3.status).toBe(200);
    expect(bodyOf<{ data: JsonApiResource }[]>(step3).map((result) => result.data.type)).toEqual(['requested-resource', 'requested-resource-scopes']);

    const step4 = await patchAdmin(server, [
      {
        op: 'add',
        path: '/requested-resources-capability-tickets',
        value: {
          type: 'requested-resources-capability-tickets',
          id: combination,
          attributes: {},
          relationships: {
            capabilityTicket: { data: { type: 'capability-ticket', id: ticket } },
            requestedResource: { data: { type: 'requested-resource', id: resource } },
          },
        },
      },
    ]);
    expect(step4.status).toBe(200);

    const read = await getAdmin(
      server,
      `/admin/requested-resources-capability-tickets/${combination}?include=capabilityTicket.purpose,requestedResource.resourceDefinition`,
    );
    expect(read.status).toBe(200);
    const combined = bodyOf<JsonApiDocument<ToOneRecord>>(read);
    expect(combined.data.relationships).toEqual({
      capabilityTicket: { data: { type: 'capability-ticket', id: String(ticket) } },
      requestedResource: { data: { type: 'requested-resource', id: String(resource) } },
    });
    const included = combined.included?.map((record) => `${record.type}:${record.id}`).sort();
    expect(included).toEqual(
      [`capability-ticket:${ticket}`, `purpose:${purpose}`, `requested-resource:${resource}`, `resource-definition:${definition}`].sort(),
    );
    const scopes = await getAdmin(server, `/admin/requested-resource-scopes/${resourceScopes}`);
    const { relationships } = bodyOf<JsonApiDocument<ToOneRecord>>(scopes).data;
    expect(relationships.scope).toEqual({ data: { type: 'scope', id: String(scope) } });
    expect(relationships.purpose).toEqual({ data: { type: 'purpose', id: String(purpose) } });
  });

  it('accepts ids written as digit strings', async () => {
    const [purpose] = freshIds(1);
    const response = await patchAdmin(server, [add('purpose', { id: String(purpose), attributes: { name: 'x' } })]);
    expect(response.status).toBe(200);
    expect(bodyOf<{ data: JsonApiResource }[]>(response)[0].data.id).toBe(String(purpose));
  });

  it('lets later operations of one request refer to ids given by earlier ones', async () => {
    const { client } = await world();
    const [purpose, ticket] = freshIds(2);
    const response = await patchAdmin(server, [
      add('purpose', { id: purpose, attributes: { name: 'p' } }),
      add('capability-ticket', {
        id: ticket,
        attributes: { ticketId: `t-${ticket}`, ticketName: 't' },
        relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
      }),
    ]);
    expect(response.status).toBe(200);
  });

  it('assigns ids that never collide with caller-chosen ones', async () => {
    const [{ last }]: { last: number }[] = await server.dataSource.query('SELECT last_value::int AS last FROM purpose_id_seq');
    const chosen = last + 3;
    expect((await patchAdmin(server, [add('purpose', { id: chosen, attributes: { name: 'chosen' } })])).status).toBe(200);
    const response = await patchAdmin(
      server,
      Array.from({ length: 6 }, () => add('purpose', { attributes: { name: 'assigned' } })),
    );
    expect(response.status).toBe(200);
    const ids = bodyOf<{ data: JsonApiResource }[]>(response).map((result) => Number(result.data.id));
    expect(ids).not.toContain(chosen);
    expect(new Set(ids).size).toBe(6);
  });

  it('replaces only the attributes and relationships it names', async () => {
    const { client } = await world();
    const [purpose, other, ticket] = freshIds(3);
    await patchAdmin(server, [
      add('purpose', { id: purpose, attributes: { name: 'p' } }),
      add('purpose', { id: other, attributes: { name: 'o' } }),
      add('capability-ticket', {
        id: ticket,
        attributes: { ticketId: `t-${ticket}`, ticketName: 'before' },
        relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
      }),
    ]);
    const response = await patchAdmin(server, [
      {
        op: 'replace',
        path: `/capability-ticket/${ticket}`,
        value: { type: 'capability-ticket', id: ticket, relationships: { purpose: ref('purpose', other) } },
      },
    ]);
    expect(response.status).toBe(200);
    const [{ data: replaced }] = bodyOf<{ data: ToOneRecord }[]>(response);
    expect(replaced.attributes).toEqual({ ticketId: `t-${ticket}`, ticketName: 'before' });
    expect(replaced.relationships.purpose.data.id).toBe(String(other));
  });

  it('removes a record and answers null data', async () => {
    const [purpose] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id: purpose, attributes: { name: 'gone soon' } })]);
    const response = await patchAdmin(server, [{ op: 'remove', path: `/purpose/${purpose}` }]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ data: null }]);
    expect((await getAdmin(server, `/admin/purpose/${purpose}`)).status).toBe(404);
  });
});

describe('PATCH /admin: atomicity and errors', () => {
  async function expectUnchanged(action: () => Promise<request.Response>, status: number): Promise<request.Response> {
    const before = await rowCounts(server);
    const response = await action();
    expect(response.status).toBe(status);
    expect(await rowCounts(server)).toEqual(before);
    return response;
  }

  it('stores nothing when the last operation fails, and says which one failed', async () => {
    const [first, second] = freshIds(2);
    const response = await expectUnchanged(
      () =>
        patchAdmin(server, [
          add('purpose', { id: first, attributes: { name: 'one' } }),
          add('purpose', { id: second, attributes: { name: 'two' } }),
          add('capability-ticket', {
            attributes: { ticketId: 'x', ticketName: 'x' },
            relationships: { purpose: ref('purpose', first), umaClient: ref('uma-client', 2_000_000_000) },
          }),
        ]),
      404,
    );
    expect(response.headers['content-type']).toBe(JSON_PATCH);
    expect(response.body).toHaveLength(3);
    expect(bodyOf<PatchResult[]>(response)[2].errors?.[0]).toMatchObject({ status: '404', source: { pointer: '/2/value/relationships/umaClient' } });
    expect(bodyOf<PatchResult[]>(response)[2].errors?.[0].title).toBeTruthy();
    expect(bodyOf<PatchResult[]>(response)[2].errors?.[0].detail).toBeTruthy();
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0]).toMatchObject({ code: 'not_applied' });
    expect(bodyOf<PatchResult[]>(response)[1].errors?.[0]).toMatchObject({ code: 'not_applied' });
  });

  it.each([
    ['an unknown op', [{ op: 'move', path: '/purpose', value: {} }], '/0/op'],
    ['an unknown type', [{ op: 'add', path: '/patient', value: { type: 'patient' } }], '/0/path'],
    ['an unknown attribute', [add('purpose', { attributes: { name: 'x', colour: 'red' } })], '/0/value/attributes/colour'],
    ['a NUL character', [add('purpose', { attributes: { name: 'a\u0000b' } })], '/0/value/attributes/name'],
    ['an over-long string', [add('purpose', { attributes: { name: 'x'.repeat(5000) } })], '/0/value/attributes/name'],
    [
      'a wrong JSON type',
      [add('requested-resource', { attributes: { maxPermissionDuration: '3600', requestedResourceId: 'r' } })],
      '/0/value/attributes/maxPermissionDuration',
    ],
    ['a bad id', [add('purpose', { id: -4, attributes: { name: 'x' } })], '/0/value/id'],
    ['an id over 32 bits', [add('purpose', { id: 4_294_967_296, attributes: { name: 'x' } })], '/0/value/id'],
    ['a missing required attribute', [add('purpose', { attributes: {} })], '/0/value/attributes'],
    ['a __proto__ member', [add('purpose', { attributes: JSON.parse('{"__proto__": {"x": 1}, "name": "x"}') })], '/0/value/attributes/__proto__'],
  ])('answers 400 for %s, naming it, and changes nothing', async (_case, operations, pointer) => {
    const response = await expectUnchanged(() => patchAdmin(server, operations), 400);
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0]).toMatchObject({ status: '400', source: { pointer } });
  });

  it('answers 400 for a body that is not JSON, as a plain errors document', async () => {
    const response = await expectUnchanged(() => patchAdmin(server, '[{"op":'), 400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].status).toBe('400');
  });

  it('answers 401 without the admin token, and changes nothing', async () => {
    const response = await expectUnchanged(
      () =>
        request(server.adminUrl)
          .patch('/admin')
          .set('Content-Type', JSON_PATCH)
          .send(JSON.stringify([add('purpose', { attributes: { name: 'x' } })])),
      401,
    );
    expect(bodyOf<JsonApiErrors>(response).errors[0]).toMatchObject({ status: '401' });
  });

  it('answers 401 for a wrong admin token', async () => {
    await expectUnchanged(() => request(server.adminUrl).patch('/admin').set('Authorization', 'Bearer wrong').set('Content-Type', JSON_PATCH).send('[]'), 401);
  });

  it('accepts the token as a Bearer token too', async () => {
    const response = await request(server.adminUrl)
      .patch('/admin')
      .set('Authorization', `Bearer ${server.adminToken}`)
      .set('Content-Type', JSON_PATCH)
      .send(JSON.stringify([add('purpose', { attributes: { name: 'b' } })]));
    expect(response.status).toBe(200);
  });

  it('answers 400 for an ApiVersion other than v1.0', async () => {
    const response = await expectUnchanged(() => patchAdmin(server, [add('purpose', { attributes: { name: 'x' } })]).set('ApiVersion', 'v2.0'), 400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].detail).toContain('ApiVersion');
  });

  it('answers 404 for a replace of a missing record', async () => {
    const response = await expectUnchanged(
      () => patchAdmin(server, [{ op: 'replace', path: '/purpose/2000000001', value: { type: 'purpose', attributes: { name: 'x' } } }]),
      404,
    );
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0].source?.pointer).toBe('/0/path');
  });

  it('answers 409 for an id already taken', async () => {
    const [purpose] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id: purpose, attributes: { name: 'first' } })]);
    const response = await expectUnchanged(() => patchAdmin(server, [add('purpose', { id: purpose, attributes: { name: 'second' } })]), 409);
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0].source?.pointer).toBe('/0/value/id');
  });

  it('answers 409 when the value type does not match the path', async () => {
    await expectUnchanged(() => patchAdmin(server, [{ op: 'add', path: '/purpose', value: { type: 'scope', attributes: { name: 'x' } } }]), 409);
  });

  it('answers 409 for removing a record still referenced', async () => {
    const { definition } = await world();
    const response = await expectUnchanged(() => patchAdmin(server, [{ op: 'remove', path: `/resource-definition/${definition}` }]), 409);
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0].status).toBe('409');
  });

  it('answers 413 for more than 1,000 operations', async () => {
    const operations = Array.from({ length: 1001 }, () => add('purpose', { attributes: { name: 'x' } }));
    await expectUnchanged(() => patchAdmin(server, operations), 413);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    await expectUnchanged(() => patchAdmin(server, JSON.stringify([add('purpose', { attributes: { name: 'x'.repeat(1024 * 1024) } })])), 413);
  });

  it('answers 415 for another content type', async () => {
    const response = await expectUnchanged(
      () => patchAdmin(server, [add('purpose', { attributes: { name: 'x' } })]).set('Content-Type', 'application/json'),
      415,
    );
    expect(bodyOf<JsonApiErrors>(response).errors[0].status).toBe('415');
  });

  it('answers 422 for a combination whose ticket and requested resource belong to different clients', async () => {
    const one = await world();
    const two = await world();
    const [purpose, ticket, resource] = freshIds(3);
    const response = await expectUnchanged(
      () =>
        patchAdmin(server, [
          add('purpose', { id: purpose, attributes: { name: 'p' } }),
          add('capability-ticket', {
            id: ticket,
            attributes: { ticketId: `t-${ticket}`, ticketName: 't' },
            relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', one.client) },
          }),
          add('requested-resource', {
            id: resource,
            attributes: { maxPermissionDuration: 60, requestedResourceId: 'r' },
            relationships: { resourceDefinition: ref('resource-definition', two.definition), umaClient: ref('uma-client', two.client) },
          }),
          add('requested-resources-capability-tickets', {
            relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) },
          }),
        ]),
      422,
    );
    expect(bodyOf<PatchResult[]>(response)[3].errors?.[0]).toMatchObject({
      status: '422',
      source: { pointer: expect.stringMatching(/^\/3\/value\/relationships\//) as unknown },
    });
  });

  it("answers 422 for a scope that is not of the requested resource's definition", async () => {
    const one = await world();
    const two = await world();
    const [purpose, resource] = freshIds(2);
    await expectUnchanged(
      () =>
        patchAdmin(server, [
          add('purpose', { id: purpose, attributes: { name: 'p' } }),
          add('requested-resource', {
            id: resource,
            attributes: { maxPermissionDuration: 60, requestedResourceId: 'r' },
            relationships: { resourceDefinition: ref('resource-definition', one.definition), umaClient: ref('uma-client', one.client) },
          }),
          add('requested-resource-scopes', {
            relationships: { scope: ref('scope', two.scope), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', resource) },
          }),
        ]),
      422,
    );
  });

  it('answers 422 for a maxPermissionDuration that is not positive', async () => {
    const { client, definition } = await world();
    await expectUnchanged(
      () =>
        patchAdmin(server, [
          add('requested-resource', {
            attributes: { maxPermissionDuration: 0, requestedResourceId: 'r' },
            relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', client) },
          }),
        ]),
      422,
    );
  });

  it('gives one 200 and nineteen 409s to twenty simultaneous adds of one id, never a 500', async () => {
    const [purpose] = freshIds(1);
    const responses = await Promise.all(Array.from({ length: 20 }, () => patchAdmin(server, [add('purpose', { id: purpose, attributes: { name: 'race' } })])));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(19).fill(409)]);
  });
});

describe('admin listener', () => {
  it('is not reachable on the public port', async () => {
    expect((await request(server.url).patch('/admin').set('Authorization', server.adminToken).set('Content-Type', JSON_PATCH).send('[]')).status).toBe(404);
    expect((await request(server.url).get('/admin/purpose').set('Authorization', server.adminToken)).status).toBe(404);
  });

  it('does not serve the public endpoints', async () => {
    expect((await request(server.adminUrl).get('/oauth2/jwks')).status).toBe(404);
    expect((await request(server.adminUrl).post('/oauth2/token')).status).toBe(404);
  });

  it('throttles failed admin authentications with 429 and Retry-After', async () => {
    let last: request.Response | undefined;
    for (let attempt = 0; attempt < 21; attempt += 1) last = await request(server.adminUrl).get('/admin/purpose').set('Authorization', 'wrong');
    expect(last!.status).toBe(429);
    expect(last!.headers['retry-after']).toBeDefined();
  });
});

describe('uma-client through the admin interface', () => {
  it('generates a secret when none is given, returns it once, and the client gets tokens with it', async () => {
    const { clientId, secret, client } = await world();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(clientId, secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'uma_protection' });
    expect(token.status).toBe(200);
    const read = await getAdmin(server, `/admin/uma-client/${client}`);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(JSON.stringify(read.body)).not.toMatch(/scrypt|clientSecret|secret_hash/);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(read).data.attributes).toMatchObject({
      clientId,
      clientType: 'CONFIDENTIAL',
      clientAuthenticationType: 'client_secret_basic',
      grantTypes: 'client_credentials',
      redirectUris: [],
    });
  });

  it('replace changes allowed scopes, grant types and redirect URIs, and the token endpoint follows within a second', async () => {
    const { client, clientId, secret } = await world();
    const response = await patchAdmin(server, [
      {
        op: 'replace',
        path: `/uma-client/${client}`,
        value: {
          type: 'uma-client',
          attributes: { allowedScopes: 'read', grantTypes: 'client_credentials refresh_token', redirectUris: ['https://app.example/cb'] },
        },
      },
    ]);
    expect(response.status).toBe(200);
    expect(bodyOf<{ data: JsonApiResource }[]>(response)[0].data.attributes).toMatchObject({
      allowedScopes: 'read',
      grantTypes: 'client_credentials refresh_token',
      redirectUris: ['https://app.example/cb'],
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ask = (scope: string) =>
      request(server.url).post('/oauth2/token').set('Authorization', basic(clientId, secret)).type('form').send({ grant_type: 'client_credentials', scope });
    expect((await ask('read')).status).toBe(200);
    expect(bodyOf<OAuthErrorBody>(await ask('uma_protection')).error).toBe('invalid_scope');
  });

  it('never stores or echoes a given secret in clear, not even in the audit trail', async () => {
    const [client] = freshIds(1);
    const secret = 'an-administrator-chosen-secret-123';
    const response = await patchAdmin(server, [
      add('uma-client', { id: client, attributes: { clientId: `given-${client}`, clientName: 'n', allowedScopes: 'read', clientSecret: secret } }),
    ]);
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).not.toContain(secret);
    const rows: { before: string | null; after: string | null }[] = await server.dataSource.query(
      `SELECT before::text, after::text FROM audit_event WHERE record_type = 'uma-client' AND record_id = $1`,
      [client],
    );
    expect(rows.length).toBe(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });
});

describe('audit trail', () => {
  it('records every change with its operation and attributes before and after, readable as audit-event', async () => {
    const [purpose] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id: purpose, attributes: { name: 'before' } })]);
    await patchAdmin(server, [{ op: 'replace', path: `/purpose/${purpose}`, value: { type: 'purpose', attributes: { name: 'after' } } }]);
    await patchAdmin(server, [{ op: 'remove', path: `/purpose/${purpose}` }]);
    const rows: { id: number; operation: string }[] = await server.dataSource.query(
      `SELECT id, operation FROM audit_event WHERE record_type = 'purpose' AND record_id = $1 ORDER BY id`,
      [purpose],
    );
    expect(rows.map((row) => row.operation)).toEqual(['add', 'replace', 'remove']);
    const replace = await getAdmin(server, `/admin/audit-event/${rows[1].id}`);
    const { attributes } = bodyOf<JsonApiDocument<JsonApiResource>>(replace).data;
    expect(attributes).toMatchObject({
      operation: 'replace',
      recordType: 'purpose',
      recordId: String(purpose),
      before: { name: 'before' },
      after: { name: 'after' },
      actor: expect.stringContaining('admin-token') as unknown,
    });
    expect(attributes.occurredAt).toBeTruthy();
  });

  it('cannot be written through the admin interface', async () => {
    const response = await patchAdmin(server, [add('audit-event', { attributes: {} })]);
    expect(response.status).toBe(409);
  });
});

describe('resource scopes in allowedScopes name defined scopes', () => {
  const jsonApi = (method: 'post' | 'patch', path: string) =>
    request(server.adminUrl)[method](path).set('Authorization', server.adminToken).set('Content-Type', 'application/vnd.api+json');

  it('refuses a client whose resource scope names no scope of the definition, with a 422 naming it, and stores nothing', async () => {
    const { definition } = await world();
    const before = await rowCounts(server);
    const [client] = freshIds(1);
    const response = await patchAdmin(server, [
      add('uma-client', {
        id: client,
        attributes: { clientId: `typo-${client}`, clientName: 'Typo', allowedScopes: `uma_protection blood-glucose-level-${definition}:raed` },
      }),
    ]);
    expect(response.status).toBe(422);
    const [error] = bodyOf<{ errors: JsonApiErrors['errors'] }[]>(response)[0].errors;
    expect(error).toMatchObject({ status: '422', source: { pointer: '/0/value/attributes/allowedScopes' } });
    expect(error.detail).toContain(`"blood-glucose-level-${definition}:raed" names no defined scope`);
    expect(error.detail).toContain('"read"');
    expect(await rowCounts(server)).toEqual(before);
  });

  it('refuses a resource scope of a definition that does not exist', async () => {
    const [client] = freshIds(1);
    const response = await patchAdmin(server, [
      add('uma-client', {
        id: client,
        attributes: { clientId: `nodef-${client}`, clientName: 'No definition', allowedScopes: `no-such-definition-${client}:read` },
      }),
    ]);
    expect(response.status).toBe(422);
    expect(bodyOf<{ errors: JsonApiErrors['errors'] }[]>(response)[0].errors[0].detail).toContain(
      `no resource-definition is named "no-such-definition-${client}"`,
    );
  });

  it('accepts a client before the definition and scope it names when the same request adds them', async () => {
    await world();
  });

  it('refuses a replace of allowedScopes naming no defined scope, pointing at the operation that wrote it', async () => {
    const { client, definition } = await world();
    const response = await patchAdmin(server, [
      { op: 'add', path: '/purpose', value: { type: 'purpose', attributes: { name: 'unrelated' } } },
      {
        op: 'replace',
        path: `/uma-client/${client}`,
        value: { type: 'uma-client', id: client, attributes: { allowedScopes: `blood-glucose-level-${definition}:write` } },
      },
    ]);
    expect(response.status).toBe(422);
    const results = bodyOf<{ errors: JsonApiErrors['errors'] }[]>(response);
    expect(results[1].errors[0]).toMatchObject({ status: '422', source: { pointer: '/1/value/attributes/allowedScopes' } });
  });

  it('refuses the same over plain JSON:API, POST and PATCH, pointing into the document', async () => {
    const { client, definition } = await world();
    const [other] = freshIds(1);
    const created = await jsonApi('post', '/admin/uma-client').send({
      data: {
        type: 'uma-client',
        id: other,
        attributes: { clientId: `plain-${other}`, clientName: 'Plain', allowedScopes: `blood-glucose-level-${definition}:raed` },
      },
    });
    expect(created.status).toBe(422);
    expect(bodyOf<JsonApiErrors>(created).errors[0].source).toEqual({ pointer: '/data/attributes/allowedScopes' });
    const replaced = await jsonApi('patch', `/admin/uma-client/${client}`).send({
      data: { type: 'uma-client', id: String(client), attributes: { allowedScopes: `blood-glucose-level-${definition}:raed` } },
    });
    expect(replaced.status).toBe(422);
    expect(bodyOf<JsonApiErrors>(replaced).errors[0].detail).toContain(`"blood-glucose-level-${definition}:raed" names no defined scope`);
  });

  it('lets other attributes of a client change after the scope it names was removed', async () => {
    const { client, scope } = await world();
    expect((await patchAdmin(server, [{ op: 'remove', path: `/scope/${scope}` }])).status).toBe(200);
    const renamed = await patchAdmin(server, [
      { op: 'replace', path: `/uma-client/${client}`, value: { type: 'uma-client', id: client, attributes: { clientName: 'Renamed' } } },
    ]);
    expect(renamed.status).toBe(200);
  });
});
