import * as oidc from 'openid-client';
import { ClientCredentials } from 'simple-oauth2';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

async function verify(accessToken: string, scope: string): Promise<void> {
  const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`));
  const { payload } = await jwtVerify(accessToken, jwks, { issuer: server.url, typ: 'at+jwt' });
  expect(payload.scope).toBe(scope);
}

// openid-client insists on https unless told otherwise; the test server is plain http.
const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };

describe('unchanged OAuth client libraries', () => {
  it('openid-client gets a token with client_secret_basic through RFC 8414 discovery', async () => {
    const client = await createClient(server.app, { clientSecret: 'basic secret: with+odd/chars%' });
    const configuration = await oidc.discovery(new URL(server.url), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), insecure);
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    await verify(tokens.access_token, 'read');
  });

  it('openid-client gets a token with client_secret_post', async () => {
    const client = await createClient(server.app, { authenticationType: 'client_secret_post' });
    const configuration = await oidc.discovery(new URL(server.url), client.clientId, undefined, oidc.ClientSecretPost(client.clientSecret), insecure);
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read uma_protection' });
    await verify(tokens.access_token, 'read uma_protection');
  });

  it('openid-client surfaces invalid_scope as an OAuth error', async () => {
    const client = await createClient(server.app);
    const configuration = await oidc.discovery(new URL(server.url), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), insecure);
    await expect(oidc.clientCredentialsGrant(configuration, { scope: 'admin' })).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  it.each([
    ['header', 'form'],
    ['header', 'json'],
  ] as const)('simple-oauth2 gets a token with authorizationMethod %s and a %s body', async (authorizationMethod, bodyFormat) => {
    const client = await createClient(server.app, { clientSecret: 'simple oauth2 secret:+/%' });
    const oauth = new ClientCredentials({
      client: { id: client.clientId, secret: client.clientSecret },
      auth: { tokenHost: server.url, tokenPath: '/oauth2/token' },
      options: { authorizationMethod, bodyFormat },
    });
    const accessToken = await oauth.getToken({ scope: 'read' });
    await verify(accessToken.token.access_token as string, 'read');
  });

  it('simple-oauth2 gets a token with authorizationMethod body', async () => {
    const client = await createClient(server.app, { authenticationType: 'client_secret_post' });
    const oauth = new ClientCredentials({
      client: { id: client.clientId, secret: client.clientSecret },
      auth: { tokenHost: server.url, tokenPath: '/oauth2/token' },
      options: { authorizationMethod: 'body' },
    });
    const accessToken = await oauth.getToken({ scope: 'read' });
    await verify(accessToken.token.access_token as string, 'read');
  });
});
