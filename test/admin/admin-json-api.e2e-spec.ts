import request from 'supertest';
import { add, freshIds, getAdmin, JSON_API, patchAdmin, rowCounts } from '../support/admin.js';
import { bodyOf, type JsonApiDocument, type JsonApiErrors, type JsonApiResource } from '../support/bodies.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

const send = (method: 'post' | 'patch' | 'delete', path: string) =>
  request(server.adminUrl)[method](path).set('Authorization', server.adminToken).set('Content-Type', JSON_API);

describe('plain JSON:API on /admin/<type>', () => {
  it('creates with POST: 201, Location, the resource object', async () => {
    const response = await send('post', '/admin/purpose').send(JSON.stringify({ data: { type: 'purpose', attributes: { name: 'posted' } } }));
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe(JSON_API);
    expect(response.headers.location).toBe(`/admin/purpose/${bodyOf<JsonApiDocument<JsonApiResource>>(response).data.id}`);
    expect(bodyOf<JsonApiDocument>(response).data).toMatchObject({ type: 'purpose', attributes: { name: 'posted' } });
  });

  it('reads one record, and 404 for a missing one', async () => {
    const [id] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id, attributes: { name: 'read me' } })]);
    const response = await getAdmin(server, `/admin/purpose/${id}`);
    expect(response.status).toBe(200);
    expect(bodyOf<JsonApiDocument>(response).data).toMatchObject({ type: 'purpose', id: String(id), attributes: { name: 'read me' } });
    expect(response.headers['content-language']).toBe('en');
    const missing = await getAdmin(server, '/admin/purpose/2000000002');
    expect(missing.status).toBe(404);
    expect(bodyOf<JsonApiErrors>(missing).errors[0].status).toBe('404');
  });

  it('lists a type in pages with links and a total', async () => {
    await patchAdmin(
      server,
      Array.from({ length: 3 }, () => add('purpose', { attributes: { name: 'listed' } })),
    );
    const response = await getAdmin(server, '/admin/purpose?page[number]=2&page[size]=2');
    expect(response.status).toBe(200);
    expect(bodyOf<JsonApiDocument>(response).data).toHaveLength(2);
    expect(bodyOf<JsonApiDocument>(response).meta?.total).toBeGreaterThanOrEqual(3);
    expect(bodyOf<JsonApiDocument>(response).links).toMatchObject({
      self: '/admin/purpose?page[number]=2&page[size]=2',
      first: '/admin/purpose?page[number]=1&page[size]=2',
      prev: '/admin/purpose?page[number]=1&page[size]=2',
    });
  });

  it.each([
    ['an unknown include', '/admin/purpose?include=owner'],
    ['a page number of 0', '/admin/purpose?page[number]=0'],
    ['a page size over 100', '/admin/purpose?page[size]=1000'],
    ['a page size that is not a number', '/admin/purpose?page[size]=ten'],
  ])('answers 400 for %s', async (_case, path) => {
    const response = await getAdmin(server, path);
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].status).toBe('400');
  });

  it('answers 404 for an unknown type', async () => {
    expect((await getAdmin(server, '/admin/patients')).status).toBe(404);
  });

  it('updates with PATCH /admin/<type>/<id>', async () => {
    const [id] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id, attributes: { name: 'old' } })]);
    const response = await send('patch', `/admin/purpose/${id}`).send(
      JSON.stringify({ data: { type: 'purpose', id: String(id), attributes: { name: 'new' } } }),
    );
    expect(response.status).toBe(200);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(response).data.attributes.name).toBe('new');
  });

  it('deletes with DELETE: 204, then 404', async () => {
    const [id] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id, attributes: { name: 'delete me' } })]);
    expect((await send('delete', `/admin/purpose/${id}`)).status).toBe(204);
    expect((await send('delete', `/admin/purpose/${id}`)).status).toBe(404);
  });

  it('answers 415 for a POST with the jsonpatch media type, and changes nothing', async () => {
    const before = await rowCounts(server);
    const response = await send('post', '/admin/purpose')
      .set('Content-Type', `${JSON_API}; ext=jsonpatch`)
      .send(JSON.stringify({ data: { type: 'purpose', attributes: { name: 'x' } } }));
    expect(response.status).toBe(415);
    expect(await rowCounts(server)).toEqual(before);
  });

  it('answers 401 to reads without the token', async () => {
    expect((await request(server.adminUrl).get('/admin/purpose')).status).toBe(401);
  });
});
