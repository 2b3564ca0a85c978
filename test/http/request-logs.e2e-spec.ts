import { Writable } from 'node:stream';
import request from 'supertest';
import { basic, createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type TokenBody } from '../support/bodies.js';

describe('request logs', () => {
  const lines: string[] = [];
  let server: TestApp;

  beforeAll(async () => {
    const logs = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    server = await startTestApp({ LOG_LEVEL: 'debug' }, { logs });
  });

  afterAll(() => server.close());

  const linesWith = (text: string) => lines.filter((line) => line.includes(text));

  it('writes a JSON line with the request id of a failed token request, and no secret', async () => {
    const client = await createClient(server.app);
    const wrongSecret = 'wrong-but-still-a-secret-7f3a9c';
    const response = await request(server.url)
      .post('/oauth2/token')
      .set('X-Request-Id', 'failed-token-request-1')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: wrongSecret });
    expect(response.status).toBe(401);
    expect(response.headers['x-request-id']).toBe('failed-token-request-1');

    const ours = linesWith('failed-token-request-1');
    expect(ours.length).toBeGreaterThan(0);
    const entry = JSON.parse(ours[0]) as { req: unknown; res: { statusCode: number } };
    expect(entry.req).toMatchObject({ id: 'failed-token-request-1', method: 'POST', url: '/oauth2/token' });
    expect(entry.res.statusCode).toBe(401);
    const everything = lines.join('\n');
    expect(everything).not.toContain(wrongSecret);
    expect(everything).not.toContain(client.clientSecret);
  });

  it('never logs the Authorization header, the token issued or a secret in the query string', async () => {
    const client = await createClient(server.app);
    const response = await request(server.url)
      .post(`/oauth2/token?client_secret=${client.clientSecret}`)
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .set('X-Request-Id', 'issued-token-request-1')
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expect(response.status).toBe(200);
    expect(linesWith('issued-token-request-1').length).toBeGreaterThan(0);
    const everything = lines.join('\n');
    expect(everything).not.toContain(client.clientSecret);
    expect(everything).not.toContain(basic(client.clientId, client.clientSecret).slice('Basic '.length));
    expect(everything).not.toContain(bodyOf<TokenBody>(response).access_token);
  });

  it("writes a successful introspection's line at debug, as a successful token request's, and a refused one's at info", async () => {
    const client = await createClient(server.app);
    const token = bodyOf<TokenBody>(
      await request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' }),
    ).access_token;
    const introspect = (id: string, secret: string) =>
      request(server.url).post('/oauth2/introspect').set('Authorization', basic(client.clientId, secret)).set('X-Request-Id', id).type('form').send({ token });
    expect((await introspect('introspection-ok-1', client.clientSecret)).status).toBe(200);
    expect((await introspect('introspection-refused-1', 'wrong-secret-0123456789')).status).toBe(401);
    const levelOf = (id: string) => (JSON.parse(linesWith(id)[0]) as { level: number }).level;
    expect(levelOf('introspection-ok-1')).toBe(20);
    expect(levelOf('introspection-refused-1')).toBe(30);
    expect(lines.join('\n')).not.toContain(token);
  });

  it('never logs the admin token or a client secret sent to the admin interface', async () => {
    const secret = 'admin-created-secret-0123456789abcdef';
    const response = await request(server.adminUrl)
      .post('/admin/uma-client')
      .set('Authorization', `Bearer ${server.adminToken}`)
      .set('X-Request-Id', 'admin-create-1')
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: {
            type: 'uma-client',
            attributes: {
              clientId: `logged-${Date.now()}`,
              clientName: 'Logged',
              allowedScopes: 'read',
              redirectUris: ['https://app.example/cb'],
              clientSecret: secret,
            },
          },
        }),
      );
    expect(response.status).toBe(201);
    expect(linesWith('admin-create-1').length).toBeGreaterThan(0);
    const everything = lines.join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(server.adminToken);
  });

  it("writes no error line for a client's 4xx or for the status endpoint's 501, however often it is asked", async () => {
    const client = await createClient(server.app);
    const token = bodyOf<TokenBody>(
      await request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' }),
    ).access_token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { status: { status_list: { uri: string } } };
    const path = new URL(claims.status.status_list.uri).pathname;
    for (let index = 0; index < 5; index += 1) {
      const response = await request(server.url)
        .get(`${path}?time=1`)
        .set('Accept', 'application/statuslist+jwt')
        .set('X-Request-Id', `historical-status-${index}`);
      expect(response.status).toBe(501);
      const answered = await request(server.url).get('/oauth2/no-such-path').set('X-Request-Id', `not-found-${index}`);
      expect(answered.status).toBe(404);
    }
    const ours = lines.filter((line) => line.includes('historical-status-') || line.includes('not-found-'));
    expect(ours.length).toBeGreaterThan(0);
    for (const line of ours) expect((JSON.parse(line) as { level: number }).level).toBeLessThanOrEqual(30);
  });

  it('gives a request without X-Request-Id a generated one, returned in the response', async () => {
    const response = await request(server.url).get('/.well-known/oauth-authorization-server');
    const id = response.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesWith(id).length).toBeGreaterThan(0);
  });

  it('replaces an X-Request-Id that is too long or holds characters outside the accepted set', async () => {
    for (const given of ['x'.repeat(500), 'two words', '{"level":60}']) {
      const response = await request(server.url).get('/oauth2/jwks').set('X-Request-Id', given);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
