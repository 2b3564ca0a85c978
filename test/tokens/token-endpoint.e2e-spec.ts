import request from 'supertest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, accessTokenClaims, type OAuthErrorBody, type TokenBody, type JwksBody } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp({ ACCESS_TOKEN_TTL: '600' });
});

afterAll(() => server.close());

beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

const token = () => request(server.url).post('/oauth2/token');

function expectNoStore(response: request.Response): void {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.pragma).toBe('no-cache');
  expect(response.headers['content-type']).toMatch(/^application\/json/);
}

function expectError(response: request.Response, status: number, error: string): void {
  expect(response.status).toBe(status);
  expect(bodyOf<OAuthErrorBody>(response).error).toBe(error);
  expect(typeof bodyOf<OAuthErrorBody>(response).error_description).toBe('string');
  expect(bodyOf<OAuthErrorBody>(response).error_description.length).toBeGreaterThan(0);
  expect(Object.keys(bodyOf<Record<string, unknown>>(response)).sort()).toEqual(['error', 'error_description']);
  expectNoStore(response);
}

describe('POST /oauth2/token, client credentials', () => {
  let client: TestClient;

  beforeAll(async () => {
    client = await createClient(server.app, { allowedScopes: 'uma_protection read write' });
  });

  it('issues a token for the seed request: Basic authentication and a JSON body', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .set('Content-Type', 'application/json')
      .send('{"grant_type":"client_credentials","scope":"read"}');
    expect(response.status).toBe(200);
    expectNoStore(response);
    expect(Object.keys(bodyOf<Record<string, unknown>>(response)).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'read' });
  });

  it('issues a token for a form body (RFC 6749)', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read write' });
    expect(response.status).toBe(200);
    expect(bodyOf<TokenBody>(response).scope).toBe('read write');
  });

  it('grants the requested scopes in order, once each', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send('grant_type=client_credentials&scope=write+uma_protection+write');
    expect(bodyOf<TokenBody>(response).scope).toBe('write uma_protection');
  });

  it('signs an RFC 9068 JWT that verifies against the JWKS', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'uma_protection read' });
    const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`));
    const { payload, protectedHeader } = await jwtVerify(bodyOf<TokenBody>(response).access_token, jwks, {
      issuer: server.url,
      audience: server.url,
      typ: 'at+jwt',
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(typeof protectedHeader.kid).toBe('string');
    expect(Object.keys(payload).sort()).toEqual(['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'status', 'sub']);
    expect(payload).toMatchObject({ sub: client.clientId, client_id: client.clientId, scope: 'uma_protection read' });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
  });

  it('gives every token its own jti', async () => {
    const issue = () =>
      token().set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send({ grant_type: 'client_credentials', scope: 'read' });
    const [first, second] = await Promise.all([issue(), issue()]);
    const jti = (jwt: string) => accessTokenClaims(jwt).jti;
    expect(jti(bodyOf<TokenBody>(first).access_token)).not.toBe(jti(bodyOf<TokenBody>(second).access_token));
  });

  it('form-urldecodes Basic credentials (RFC 6749 §2.3.1)', async () => {
    const odd = await createClient(server.app, { clientId: `odd:id ${Date.now()}+%`, clientSecret: 'se:cr et+/%&=secret!' });
    const response = await token()
      .set('Authorization', basic(odd.clientId, odd.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expect(response.status).toBe(200);
  });

  it('does not issue a refresh token to a client without that grant', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expect(bodyOf<TokenBody>(response).refresh_token).toBeUndefined();
  });
});

describe('POST /oauth2/token, client_secret_post', () => {
  let client: TestClient;

  beforeAll(async () => {
    client = await createClient(server.app, { authenticationType: 'client_secret_post' });
  });

  it('authenticates with client_id and client_secret in a form body', async () => {
    const response = await token()
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read', client_id: client.clientId, client_secret: client.clientSecret });
    expect(response.status).toBe(200);
    expect(bodyOf<TokenBody>(response).scope).toBe('read');
  });

  it('authenticates with client_id and client_secret in a JSON body', async () => {
    const response = await token().send({ grant_type: 'client_credentials', scope: 'read', client_id: client.clientId, client_secret: client.clientSecret });
    expect(response.status).toBe(200);
  });

  it('refuses Basic authentication for a client registered for client_secret_post', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expectError(response, 401, 'invalid_client');
  });
});

describe('POST /oauth2/token, client authentication errors', () => {
  let client: TestClient;

  beforeAll(async () => {
    client = await createClient(server.app);
  });

  const body = { grant_type: 'client_credentials', scope: 'read' };

  it('answers 401 invalid_client with a Basic challenge when no authentication is given', async () => {
    const response = await token().type('form').send(body);
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="/);
  });

  it('answers 401 invalid_client with a Basic challenge for an unknown client', async () => {
    const response = await token().set('Authorization', basic('nobody', 'nothing-at-all-here')).type('form').send(body);
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="/);
  });

  it('answers 401 invalid_client with a Basic challenge for a wrong secret', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, `${client.clientSecret}x`))
      .type('form')
      .send(body);
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="/);
  });

  it.each([
    ['not base64', 'Basic %%%'],
    ['without a colon', `Basic ${Buffer.from('only-an-id').toString('base64')}`],
    ['with another scheme', 'Bearer abc'],
    ['with a bad percent escape', `Basic ${Buffer.from('id:%zz').toString('base64')}`],
  ])('answers 401 invalid_client for a Basic header %s', async (_case, header) => {
    const response = await token().set('Authorization', header).type('form').send(body);
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="/);
  });

  it('refuses client_secret_post for a client registered for Basic, without a challenge', async () => {
    const response = await token()
      .type('form')
      .send({ ...body, client_id: client.clientId, client_secret: client.clientSecret });
    expectError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('refuses client_id without client_secret (public clients are not served)', async () => {
    const response = await token()
      .type('form')
      .send({ ...body, client_id: client.clientId });
    expectError(response, 401, 'invalid_client');
  });

  it('answers 400 invalid_request for two authentication methods at once', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ ...body, client_id: client.clientId, client_secret: client.clientSecret });
    expectError(response, 400, 'invalid_request');
  });

  it('answers 400 invalid_request when the body client_id differs from the Basic one', async () => {
    const response = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ ...body, client_id: 'someone-else' });
    expectError(response, 400, 'invalid_request');
  });

  it('does not echo the secret in the error body', async () => {
    const response = await token().set('Authorization', basic(client.clientId, 'Guessed-Secret-1234')).type('form').send(body);
    expect(JSON.stringify(response.body)).not.toContain('Guessed-Secret-1234');
  });
});

describe('POST /oauth2/token, request errors', () => {
  let client: TestClient;
  let authorization: string;

  beforeAll(async () => {
    client = await createClient(server.app, { allowedScopes: 'read blood-glucose-level:read' });
    authorization = basic(client.clientId, client.clientSecret);
  });

  it('answers 400 invalid_request for a missing grant_type', async () => {
    expectError(await token().set('Authorization', authorization).type('form').send({ scope: 'read' }), 400, 'invalid_request');
  });

  it('answers 400 invalid_request for an empty grant_type', async () => {
    expectError(await token().set('Authorization', authorization).type('form').send('grant_type=&scope=read'), 400, 'invalid_request');
  });

  it('answers 400 invalid_request for a duplicated form parameter', async () => {
    const response = await token().set('Authorization', authorization).type('form').send('grant_type=client_credentials&scope=read&scope=read');
    expectError(response, 400, 'invalid_request');
  });

  it('answers 400 invalid_request for a duplicated JSON member', async () => {
    const response = await token()
      .set('Authorization', authorization)
      .set('Content-Type', 'application/json')
      .send('{"grant_type":"client_credentials","scope":"read","scope":"read"}');
    expectError(response, 400, 'invalid_request');
  });

  it('answers 400 invalid_request for malformed JSON', async () => {
    const response = await token().set('Authorization', authorization).set('Content-Type', 'application/json').send('{"grant_type":');
    expectError(response, 400, 'invalid_request');
  });

  it('answers 400 invalid_request for a non-string JSON value', async () => {
    const response = await token()
      .set('Authorization', authorization)
      .send({ grant_type: 'client_credentials', scope: ['read'] });
    expectError(response, 400, 'invalid_request');
  });

  it('answers 400 invalid_request for an unsupported content type', async () => {
    const response = await token().set('Authorization', authorization).set('Content-Type', 'text/plain').send('grant_type=client_credentials&scope=read');
    expectError(response, 400, 'invalid_request');
  });

  it('answers 413 in the OAuth error format for an oversized body', async () => {
    const response = await token()
      .set('Authorization', authorization)
      .type('form')
      .send(`grant_type=client_credentials&scope=read&pad=${'x'.repeat(20_000)}`);
    expectError(response, 413, 'invalid_request');
  });

  it('answers 400 unauthorized_client for refresh_token when the client is not registered for it', async () => {
    expectError(
      await token().set('Authorization', authorization).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' }),
      400,
      'unauthorized_client',
    );
  });

  it.each([['password'], ['authorization_code'], ['urn:ietf:params:oauth:grant-type:device_code']])(
    'answers 400 unsupported_grant_type for %s',
    async (grantType) => {
      expectError(await token().set('Authorization', authorization).type('form').send({ grant_type: grantType, scope: 'read' }), 400, 'unsupported_grant_type');
    },
  );

  it('answers 400 invalid_scope for a missing scope', async () => {
    expectError(await token().set('Authorization', authorization).type('form').send({ grant_type: 'client_credentials' }), 400, 'invalid_scope');
  });

  it('answers 400 invalid_scope for an empty scope', async () => {
    expectError(await token().set('Authorization', authorization).type('form').send('grant_type=client_credentials&scope='), 400, 'invalid_scope');
  });

  it('answers 400 invalid_scope naming a scope the client is not allowed', async () => {
    const response = await token().set('Authorization', authorization).type('form').send({ grant_type: 'client_credentials', scope: 'read admin' });
    expectError(response, 400, 'invalid_scope');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('admin');
  });

  it('answers 400 invalid_scope for scope names not separated by single spaces', async () => {
    expectError(
      await token().set('Authorization', authorization).type('form').send({ grant_type: 'client_credentials', scope: 'read  read' }),
      400,
      'invalid_scope',
    );
  });

  it('answers 400 invalid_scope naming the resource type when no consent ticket covers a resource scope', async () => {
    const response = await token()
      .set('Authorization', authorization)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'blood-glucose-level:read' });
    expectError(response, 400, 'invalid_scope');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('blood-glucose-level');
  });
});

describe('POST /oauth2/token, client registration limits', () => {
  async function clientWith(column: string, value: string): Promise<string> {
    const client = await createClient(server.app);
    await server.dataSource.query(
      `UPDATE client_metadata SET ${column} = $2 FROM client WHERE client.metadata_id = client_metadata.id AND client.client_id = $1`,
      [client.clientId, value],
    );
    return basic(client.clientId, client.clientSecret);
  }

  it('answers 400 unauthorized_client when the client is not registered for the grant', async () => {
    const authorization = await clientWith('grant_types', 'refresh_token');
    await waitForCacheRefresh();
    const response = await token().set('Authorization', authorization).type('form').send({ grant_type: 'client_credentials', scope: 'read' });
    expectError(response, 400, 'unauthorized_client');
  });

  it('answers 400 unauthorized_client for a client that is not CONFIDENTIAL', async () => {
    const authorization = await clientWith('client_type', 'PUBLIC');
    await waitForCacheRefresh();
    const response = await token().set('Authorization', authorization).type('form').send({ grant_type: 'client_credentials', scope: 'read' });
    expectError(response, 400, 'unauthorized_client');
  });
});

describe('GET /oauth2/jwks and metadata', () => {
  it('publishes public keys only', async () => {
    const response = await request(server.url).get('/oauth2/jwks');
    expect(response.status).toBe(200);
    const { keys } = bodyOf<JwksBody>(response);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ use: 'sig', kid: expect.any(String) as unknown, alg: expect.stringMatching(/^(RS256|PS256|ES256|EdDSA)$/) as unknown });
      expect(key.d).toBeUndefined();
    }
  });

  it('lists the JWKS key that signed a token', async () => {
    const client = await createClient(server.app);
    const issued = await token()
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    const { kid } = decodeProtectedHeader(bodyOf<TokenBody>(issued).access_token);
    const jwks = await request(server.url).get('/oauth2/jwks');
    expect(bodyOf<JwksBody>(jwks).keys.map((key) => key.kid)).toContain(kid);
  });

  it('serves RFC 8414 metadata naming the endpoints and methods', async () => {
    const response = await request(server.url).get('/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      issuer: server.url,
      token_endpoint: `${server.url}/oauth2/token`,
      jwks_uri: `${server.url}/oauth2/jwks`,
      introspection_endpoint: `${server.url}/oauth2/introspect`,
      revocation_endpoint: `${server.url}/oauth2/revoke`,
      grant_types_supported: [
        'client_credentials',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:uma-ticket',
        'urn:ietf:params:oauth:grant-type:token-exchange',
      ],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      response_types_supported: [],
    });
  });

  it('sends no X-Powered-By header', async () => {
    const response = await request(server.url).get('/.well-known/oauth-authorization-server');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});

// A direct UPDATE reaches the cache through LISTEN/NOTIFY, asynchronously.
function waitForCacheRefresh(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 300));
}

describe('methods other than POST', () => {
  it.each([
    ['GET', '/oauth2/token'],
    ['PUT', '/oauth2/token'],
    ['DELETE', '/oauth2/token'],
    ['GET', '/oauth2/introspect'],
    ['PATCH', '/oauth2/introspect'],
    ['GET', '/oauth2/revoke'],
    ['PUT', '/oauth2/revoke'],
  ])('answers %s %s 405 with Allow: POST in the OAuth error format', async (method, path) => {
    const response = await request(server.url)[method.toLowerCase() as 'get' | 'put' | 'delete' | 'patch'](path);
    expectError(response, 405, 'invalid_request');
    expect(response.headers.allow).toBe('POST');
  });

  it('answers HEAD /oauth2/token 405 with Allow: POST', async () => {
    const response = await request(server.url).head('/oauth2/token');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });

  it('answers GET /oauth2/register 405 with Allow: POST', async () => {
    const response = await request(server.url).get('/oauth2/register');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });
});
