import request from 'supertest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type IntrospectionBody, type TokenBody, type JwksBody } from '../support/bodies.js';

// docs/reference/configuration.md and docs/reference/token-endpoint.md#signing-keys, FAPI 2.0: access tokens signed with PS256 or EdDSA (Ed25519).
describe.each([
  ['PS256', { kty: 'RSA', alg: 'PS256', use: 'sig' }],
  ['EdDSA', { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' }],
] as const)('TOKEN_SIGNING_ALG=%s', (alg, jwkShape) => {
  let server: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestApp({ TOKEN_SIGNING_ALG: alg });
    client = await createClient(server.app);
  });

  afterAll(() => server.close());

  const askToken = () =>
    request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
  const introspect = (token: string) =>
    request(server.url).post('/oauth2/introspect').set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send({ token });
  const verify = (token: string) =>
    jwtVerify(token, createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`)), { issuer: server.url, typ: 'at+jwt', algorithms: [alg] });

  it('signs tokens that jose verifies against the published JWKS', async () => {
    const response = await askToken();
    expect(response.status).toBe(200);
    const { protectedHeader, payload } = await verify(bodyOf<TokenBody>(response).access_token);
    expect(protectedHeader.alg).toBe(alg);
    expect(payload.client_id).toBe(client.clientId);
    const jwks = bodyOf<JwksBody>(await request(server.url).get('/oauth2/jwks')).keys;
    expect(jwks.find((key) => key.kid === protectedHeader.kid)).toMatchObject(jwkShape);
  });

  it('names the algorithm in the metadata', async () => {
    const metadata = bodyOf<{ access_token_signing_alg_values_supported: string[] }>(await request(server.url).get('/.well-known/oauth-authorization-server'));
    expect(metadata.access_token_signing_alg_values_supported).toEqual([alg]);
  });

  it('introspects its tokens as active', async () => {
    const token = bodyOf<TokenBody>(await askToken()).access_token;
    expect((await introspect(token)).body).toMatchObject({ active: true, client_id: client.clientId });
  });

  it('rotates the key without invalidating the tokens the old one signed', async () => {
    const before = bodyOf<TokenBody>(await askToken()).access_token;
    const rotation = await request(server.adminUrl).post('/admin/keys/rotate?now=true').set('Authorization', server.adminToken);
    expect(rotation.status).toBe(201);
    const old = await verify(before);
    // The new key reaches the signer through the change feed, within a second.
    const after = await eventually(async () => {
      const token = bodyOf<TokenBody>(await askToken()).access_token;
      return (await verify(token)).protectedHeader.kid !== old.protectedHeader.kid ? token : undefined;
    });
    expect(bodyOf<IntrospectionBody>(await introspect(before)).active).toBe(true);
    expect(bodyOf<IntrospectionBody>(await introspect(after)).active).toBe(true);
  });
});
