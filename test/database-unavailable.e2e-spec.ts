import request from 'supertest';
import { basic, createClient } from './support/factories.js';
import { startBehindProxy } from './support/tcp-proxy.js';
import type { TestApp } from './support/test-app.js';

describe('token endpoint without its database', () => {
  let database: Awaited<ReturnType<typeof startBehindProxy>>;
  let server: TestApp;

  beforeAll(async () => {
    database = await startBehindProxy();
    server = database.server;
  });

  afterAll(() => database.close());

  it('answers 503 temporarily_unavailable while the database is unreachable, and recovers', async () => {
    const client = await createClient(server.app);
    const ask = () =>
      request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
    expect((await ask()).status).toBe(200);

    await database.proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await ask();
    expect(response.status).toBe(503);
    expect(response.body.error).toBe('temporarily_unavailable');
    expect(response.body.error_description).toBeTruthy();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(JSON.stringify(response.body)).not.toMatch(/ECONN|postgres|SELECT/i);

    await database.restore();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await ask()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  });
});
