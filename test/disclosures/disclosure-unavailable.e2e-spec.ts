import request from 'supertest';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { startBehindProxy } from '../support/tcp-proxy.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('a resource-scope token whose disclosure cannot be committed', () => {
  let database: Awaited<ReturnType<typeof startBehindProxy>>;
  let server: TestApp;
  let grant: ConsentGrant;

  beforeAll(async () => {
    database = await startBehindProxy();
    server = database.server;
    grant = await consentWorld(server);
  });

  afterAll(() => database.close());

  const ask = () =>
    request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` });

  it('is not issued: 503 temporarily_unavailable, and no row appears later', async () => {
    // Warm every cache, so that only the disclosure needs the database.
    expect((await ask()).status).toBe(200);
    const count = async (target: TestApp) =>
      (await target.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM disclosure WHERE client_id = $1', [grant.clientId]))[0].count;
    await database.proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await ask();
    expect(response.status).toBe(503);
    const body = bodyOf<OAuthErrorBody & { access_token?: string }>(response);
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.access_token).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(JSON.stringify(response.body)).not.toMatch(/ECONN|postgres|INSERT/i);
    await database.restore();
    // Read through a server that was never cut off.
    const reader = await startTestApp();
    try {
      expect(await count(reader)).toBe(1);
    } finally {
      await reader.close();
    }
  });
});
