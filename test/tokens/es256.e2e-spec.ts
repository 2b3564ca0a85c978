import request from 'supertest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { basic, createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type TokenBody, type JwksBody } from '../support/bodies.js';

describe('TOKEN_SIGNING_ALG=ES256', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp({ TOKEN_SIGNING_ALG: 'ES256' });
  });

  afterAll(() => server.close());

  it('signs access tokens with an ES256 key published in the JWKS', async () => {
    const client = await createClient(server.app);
    const response = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expect(response.status).toBe(200);
    const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`));
    const { protectedHeader } = await jwtVerify(bodyOf<TokenBody>(response).access_token, jwks, { issuer: server.url, typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('ES256');
    const key = bodyOf<JwksBody>(await request(server.url).get('/oauth2/jwks')).keys.find((jwk) => jwk.kid === protectedHeader.kid);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });
});
