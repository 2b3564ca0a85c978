import request from 'supertest';
import { rowCounts } from '../support/admin.js';
import { bodyOf, parsedAs, type OAuthErrorBody } from '../support/bodies.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { assertion, ASSERTION_TYPE, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { RawConnection } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// PostgreSQL cannot store NUL in text, and scrypt pads its key with zero bytes, so "secret" and
// "secret\0" would hash alike: a NUL is refused before it reaches either
// (docs/operations/security.md).
const ENDPOINTS = ['/oauth2/token', '/oauth2/introspect', '/oauth2/revoke'];
const PARAMETERS: Record<string, Record<string, string>> = {
  '/oauth2/token': { grant_type: 'client_credentials', scope: 'read' },
  '/oauth2/introspect': { token: 'not-a-token' },
  '/oauth2/revoke': { token: 'not-a-token' },
};

let server: TestApp;
let client: TestClient;
let key: ClientKey;
let keyClientId: string;

beforeAll(async () => {
  server = await startTestApp();
  client = await createClient(server.app);
  key = await clientKey();
  keyClientId = await createKeyClient(server.app, key);
});

afterAll(() => server.close());

function expectOAuthError(response: request.Response, statuses: number[], errors: string[]): void {
  expect(statuses).toContain(response.status);
  expect(errors).toContain(bodyOf<OAuthErrorBody>(response).error);
  expect(bodyOf<OAuthErrorBody>(response).error_description).toBeTruthy();
}

/** Basic with raw (unencoded) text inside the base64, as a hand-made client might send it. */
const rawBasic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe.each(ENDPOINTS)('NUL at %s', (endpoint) => {
  const post = (authorization: string | undefined, body: Record<string, string>) => {
    const pending = request(server.url).post(endpoint).type('form');
    if (authorization) pending.set('Authorization', authorization);
    return pending.send({ ...PARAMETERS[endpoint], ...body });
  };

  it('refuses a NUL inside the client id of a Basic header with 401 invalid_client', async () => {
    const response = await post(rawBasic(`${client.clientId}\u0000x:${client.clientSecret}`), {});
    expectOAuthError(response, [401], ['invalid_client']);
    expect(response.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('refuses a form-encoded NUL (%00) in the client id of a Basic header with 401 invalid_client', async () => {
    expectOAuthError(await post(rawBasic(`%00${client.clientId}:${client.clientSecret}`), {}), [401], ['invalid_client']);
  });

  it('never takes the secret followed by a NUL for the secret', async () => {
    expectOAuthError(await post(basic(client.clientId, `${client.clientSecret}\u0000`), {}), [401], ['invalid_client']);
    expectOAuthError(await post(rawBasic(`${client.clientId}:${client.clientSecret}\u0000`), {}), [401], ['invalid_client']);
  });

  it('refuses a NUL in client_id or client_secret of the body with 400 invalid_request', async () => {
    expectOAuthError(await post(undefined, { client_id: `${client.clientId}\u0000`, client_secret: client.clientSecret }), [400], ['invalid_request']);
    expectOAuthError(await post(undefined, { client_id: client.clientId, client_secret: `${client.clientSecret}\u0000` }), [400], ['invalid_request']);
  });

  it('refuses a NUL in a JSON body parameter with 400 invalid_request', async () => {
    const response = await request(server.url)
      .post(endpoint)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ...PARAMETERS[endpoint], client_id: '\u0000', client_secret: 'x' }));
    expectOAuthError(response, [400], ['invalid_request']);
  });

  it('refuses an assertion whose "sub" holds a NUL with 401 invalid_client', async () => {
    const jwt = await assertion(key, keyClientId, server.url, { sub: `${keyClientId}\u0000`, iss: `${keyClientId}\u0000` });
    const response = await post(undefined, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });
    expectOAuthError(response, [401], ['invalid_client']);
  });

  it('refuses an assertion whose "sub" is only a NUL with 401 invalid_client', async () => {
    const jwt = await assertion(key, keyClientId, server.url, { sub: '\u0000' });
    expectOAuthError(await post(undefined, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt }), [401], ['invalid_client']);
  });

  it('refuses an assertion whose "jti" holds a NUL with 401 invalid_client', async () => {
    const jwt = await assertion(key, keyClientId, server.url, { jti: 'a\u0000b' });
    expectOAuthError(await post(undefined, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt }), [401], ['invalid_client']);
  });

  it('refuses a raw NUL byte in a form body with 400 invalid_request', async () => {
    const connection = await RawConnection.open(Number(new URL(server.url).port));
    try {
      const body = `client_id=${client.clientId}\u0000&client_secret=${client.clientSecret}&token=x&grant_type=client_credentials&scope=read`;
      const response = await connection.send('POST', endpoint, { 'Content-Type': 'application/x-www-form-urlencoded' }, body);
      expect(response.status).toBe(400);
      expect(parsedAs<OAuthErrorBody>(response.body).error).toBe('invalid_request');
    } finally {
      connection.destroy();
    }
  });
});

describe('NUL elsewhere', () => {
  it('answers 4xx, never 5xx, to a raw NUL byte in a header', async () => {
    const connection = await RawConnection.open(Number(new URL(server.url).port));
    try {
      const response = await connection.send(
        'POST',
        '/oauth2/token',
        { Authorization: `Basic a\u0000b`, 'Content-Type': 'application/x-www-form-urlencoded' },
        'grant_type=client_credentials',
      );
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    } catch (error) {
      // Node's HTTP parser may also drop the connection on an invalid header byte: not a 5xx either.
      expect(String(error)).toMatch(/connection closed/);
    } finally {
      connection.destroy();
    }
  });

  it('changes nothing in the database when refusing NUL', async () => {
    const before = await rowCounts(server);
    await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', rawBasic(`\u0000:\u0000`))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expect(await rowCounts(server)).toEqual(before);
  });

  it('still gives the right secret a token (the checks above refused only because of the NUL)', async () => {
    const response = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send(PARAMETERS['/oauth2/token']);
    expect(response.status).toBe(200);
  });
});
