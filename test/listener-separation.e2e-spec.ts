import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('listener separation', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(() => server.close());

  it('does not serve admin, metrics or documentation paths on the public port, whatever their case', async () => {
    for (const path of ['/ADMIN/uma-client', '/Admin', '/METRICS', '/DOCS-JSON', '/Docs/']) {
      const response = await request(server.url).get(path).set('Authorization', server.adminToken);
      expect([path, response.status]).toEqual([path, 404]);
    }
  });

  it('does not serve public paths on the admin port, and serves health on both', async () => {
    expect((await request(server.adminUrl).get('/oauth2/jwks')).status).toBe(404);
    expect((await request(server.adminUrl).get('/.well-known/oauth-authorization-server')).status).toBe(404);
    expect((await request(server.url).get('/health/live')).status).toBe(200);
    expect((await request(server.adminUrl).get('/health/live')).status).toBe(200);
  });
});
