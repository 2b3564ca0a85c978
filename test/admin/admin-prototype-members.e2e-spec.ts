import request from 'supertest';
import { add, freshIds, getAdmin, JSON_API, patchAdmin, rowCounts } from '../support/admin.js';
import { bodyOf, type JsonApiDocument, type JsonApiResource, type PatchResult, type PointedJsonApiErrors } from '../support/bodies.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A member named after a property of Object.prototype is an unknown member like any other: 400,
// naming it, and nothing stored (docs/operations/security.md).
const NAMES = ['__proto__', 'constructor', 'prototype'];

let server: TestApp;
let purpose: number;

beforeAll(async () => {
  server = await startTestApp();
  [purpose] = freshIds(1);
  const made = await patchAdmin(server, [add('purpose', { id: purpose, attributes: { name: 'prototype members' } })]);
  expect(made.status).toBe(200);
});

afterAll(() => server.close());

/** `{"<name>": {"data": {"type": "purpose", "id": "<purpose>"}}}`, with `name` an own member (JSON.parse, not an assignment). */
function relationshipsNamed(name: string): unknown {
  return JSON.parse(`{${JSON.stringify(name)}: {"data": {"type": "purpose", "id": "${purpose}"}}}`);
}

function sendJsonApi(method: 'post' | 'patch', path: string, document: unknown) {
  return request(server.adminUrl)[method](path).set('Authorization', server.adminToken).set('Content-Type', JSON_API).send(JSON.stringify(document));
}

async function expectRefused(action: () => Promise<request.Response>): Promise<request.Response> {
  const before = await rowCounts(server);
  const response = await action();
  expect(response.status).toBe(400);
  expect(await rowCounts(server)).toEqual(before);
  return response;
}

describe.each(NAMES)('a relationship named %s', (name) => {
  it('is a 400 naming it on a create (POST), and nothing is stored', async () => {
    const response = await expectRefused(() =>
      sendJsonApi('post', '/admin/purpose', { data: { type: 'purpose', attributes: { name: 'x' }, relationships: relationshipsNamed(name) } }),
    );
    expect(bodyOf<PointedJsonApiErrors>(response).errors[0]).toMatchObject({ status: '400', source: { pointer: `/data/relationships/${name}` } });
  });

  it('is a 400 naming it on a PATCH of the record, which stays as it was', async () => {
    const response = await expectRefused(() =>
      sendJsonApi('patch', `/admin/purpose/${purpose}`, {
        data: { type: 'purpose', id: String(purpose), attributes: { name: 'changed' }, relationships: relationshipsNamed(name) },
      }),
    );
    expect(bodyOf<PointedJsonApiErrors>(response).errors[0]).toMatchObject({ status: '400', source: { pointer: `/data/relationships/${name}` } });
    const read = await getAdmin(server, `/admin/purpose/${purpose}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(read).data.attributes.name).toBe('prototype members');
  });

  it('is a 400 naming it in a JSON Patch add (PATCH /admin), and nothing is stored', async () => {
    const response = await expectRefused(() => patchAdmin(server, [add('purpose', { attributes: { name: 'x' }, relationships: relationshipsNamed(name) })]));
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0]).toMatchObject({ status: '400', source: { pointer: `/0/value/relationships/${name}` } });
  });

  it('is a 400 naming it in a JSON Patch replace (PATCH /admin), and the record stays as it was', async () => {
    const response = await expectRefused(() =>
      patchAdmin(server, [
        { op: 'replace', path: `/purpose/${purpose}`, value: { type: 'purpose', attributes: { name: 'changed' }, relationships: relationshipsNamed(name) } },
      ]),
    );
    expect(bodyOf<PatchResult[]>(response)[0].errors?.[0]).toMatchObject({ status: '400', source: { pointer: `/0/value/relationships/${name}` } });
    const read = await getAdmin(server, `/admin/purpose/${purpose}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(read).data.attributes.name).toBe('prototype members');
  });
});
