import request from 'supertest';
import { basic, createClient } from './support/factories.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { startTestApp, testDatabaseUrl, type TestApp } from './support/test-app.js';

describe('token endpoint without its database', () => {
  let proxy: TcpProxy;
  let proxyPort: number;
  let server: TestApp;

  beforeAll(async () => {
    const target = new URL(testDatabaseUrl());
    proxy = new TcpProxy(target.hostname, Number(target.port));
    proxyPort = await proxy.start();
    target.port = String(proxyPort);
    server = await startTestApp({ DATABASE_URL: target.toString() });
  });

  afterAll(async () => {
    await server.close().catch(() => undefined);
    await proxy.cut();
  });

  it('answers 503 temporarily_unavailable while the database is unreachable, and recovers', async () => {
    const client = await createClient(server.app);
    const ask = () =>
      request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
    expect((await ask()).status).toBe(200);

    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await ask();
    expect(response.status).toBe(503);
    expect(response.body.error).toBe('temporarily_unavailable');
    expect(response.body.error_description).toBeTruthy();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(JSON.stringify(response.body)).not.toMatch(/ECONN|postgres|SELECT/i);

    await proxy.start(proxyPort);
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await ask()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  });
});
