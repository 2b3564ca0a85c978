import request from 'supertest';
import { basic, createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** The value of one sample line of the Prometheus text, 0 when absent. */
function sample(text: string, line: string): number {
  const found = text.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

describe('metrics', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(() => server.close());

  const scrape = async () => {
    const response = await request(server.adminUrl).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    return response.text;
  };

  it('counts issued tokens and refused token requests by reason', async () => {
    const client = await createClient(server.app);
    const before = await scrape();
    const ask = (secret: string, scope = 'read') =>
      request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, secret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope });
    expect((await ask(client.clientSecret)).status).toBe(200);
    expect((await ask(client.clientSecret)).status).toBe(200);
    expect((await ask('wrong-secret-0123456789')).status).toBe(401);
    expect((await ask(client.clientSecret, 'not-allowed')).status).toBe(400);

    const after = await scrape();
    const delta = (line: string) => sample(after, line) - sample(before, line);
    expect(delta('oauth_tokens_issued_total')).toBe(2);
    expect(delta('oauth_token_requests_refused_total{reason="invalid_client"}')).toBe(1);
    expect(delta('oauth_token_requests_refused_total{reason="invalid_scope"}')).toBe(1);
    expect(delta('http_request_duration_seconds_count{listener="public",route="token",status="200"}')).toBe(2);
    expect(sample(after, 'cache_lookups_total{cache="clients",result="hit"}')).toBeGreaterThan(0);
    expect(after).toMatch(/^db_pool_connections \d+$/m);
    expect(after).toMatch(/^db_pool_waiting_requests \d+$/m);
  });

  it('times introspection requests under their own route', async () => {
    const client = await createClient(server.app);
    const before = await scrape();
    const response = await request(server.url)
      .post('/oauth2/introspect')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ token: 'not-a-token' });
    expect(response.status).toBe(200);
    const after = await scrape();
    const delta = (line: string) => sample(after, line) - sample(before, line);
    expect(delta('http_request_duration_seconds_count{listener="public",route="introspection",status="200"}')).toBe(1);
    expect(delta('http_request_duration_seconds_count{listener="public",route="other",status="200"}')).toBe(0);
  });

  it('serves /metrics on the admin port only, whatever the case of the path', async () => {
    for (const path of ['/metrics', '/METRICS', '/Metrics/']) {
      expect([path, (await request(server.url).get(path)).status]).toEqual([path, 404]);
    }
  });
});
