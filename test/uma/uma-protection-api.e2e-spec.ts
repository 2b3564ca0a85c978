import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SignJWT, generateKeyPair, type JWSHeaderParameters, type JWTPayload } from 'jose';
import { patchAdmin } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { clientKey } from '../support/keys.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, anyInstanceOf, type OAuthErrorBody } from '../support/bodies.js';
import { accessToken, protectionClient, registerResource, resourceProof, umaWorld } from '../support/uma.js';
import { SigningKeysService } from '../../src/keys/signing-keys.service.js';
import { signAccessToken } from '../../src/keys/token-signer.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

const listResources = (token: string, scheme = 'Bearer', headers: Record<string, string> = {}) =>
  request(server.url).get('/uma/resource_set').set('Authorization', `${scheme} ${token}`).set(headers);

function expectChallenge(response: request.Response, status: number, error?: string) {
  expect(response.status).toBe(status);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.body).toEqual({ error: anyInstanceOf(String), error_description: anyInstanceOf(String) });
  const challenge = response.headers['www-authenticate'];
  expect(challenge).toMatch(/^Bearer realm="[^"]+"/);
  if (error === undefined) expect(challenge).not.toContain('error=');
  else {
    expect(challenge).toContain(`error="${error}"`);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe(error);
  }
}

/** An access token signed with the server's own key, with these claims. */
async function mintedToken(claims: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signAccessToken({ iss: server.url, iat: now, exp: now + 60, jti: randomUUID(), ...claims }, await server.app.get(SigningKeysService).signingKey());
}

describe('UMA discovery', () => {
  it('serves uma2-configuration: the RFC 8414 members plus the UMA endpoints', async () => {
    const [uma, rfc8414] = await Promise.all([
      request(server.url).get('/.well-known/uma2-configuration'),
      request(server.url).get('/.well-known/oauth-authorization-server'),
    ]);
    expect(uma.status).toBe(200);
    expect(uma.headers['content-type']).toMatch(/^application\/json/);
    const umaMetadata = bodyOf<Record<string, unknown>>(uma);
    for (const [member, value] of Object.entries(bodyOf<Record<string, unknown>>(rfc8414))) {
      if (member !== 'grant_types_supported') expect(umaMetadata[member]).toEqual(value);
    }
    expect(uma.body).toMatchObject({
      issuer: server.url,
      resource_registration_endpoint: `${server.url}/uma/resource_set`,
      permission_endpoint: `${server.url}/uma/permission`,
      introspection_endpoint: `${server.url}/oauth2/introspect`,
      uma_profiles_supported: [],
    });
    expect(umaMetadata.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'urn:ietf:params:oauth:grant-type:uma-ticket']));
  });

  it('is not served on the admin listener', async () => {
    expect((await request(server.adminUrl).get('/.well-known/uma2-configuration')).status).toBe(404);
  });
});

describe('the protection API and its PAT', () => {
  it('answers 401 with a bare Bearer challenge without a token', async () => {
    expectChallenge(await request(server.url).get('/uma/resource_set'), 401);
    expectChallenge(await request(server.url).post('/uma/permission').set('Content-Type', 'application/json').send('{}'), 401);
  });

  it('answers 401 with a bare Bearer challenge for Basic authentication', async () => {
    const world = await umaWorld(server);
    expectChallenge(await request(server.url).get('/uma/resource_set').set('Authorization', basic(world.rs.clientId, world.rs.secret)), 401);
  });

  it('answers 401 invalid_token for a malformed token', async () => {
    expectChallenge(await listResources('not.a.token'), 401, 'invalid_token');
    expectChallenge(await request(server.url).get('/uma/resource_set').set('Authorization', 'Bearer two tokens'), 401, 'invalid_token');
  });

  it('answers 401 invalid_token for a token signed by another key', async () => {
    const world = await umaWorld(server);
    const { privateKey } = await generateKeyPair('ES256');
    const header = JSON.parse(Buffer.from(world.pat.split('.')[0], 'base64url').toString()) as JWSHeaderParameters;
    const payload = JSON.parse(Buffer.from(world.pat.split('.')[1], 'base64url').toString()) as JWTPayload;
    const forged = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(privateKey);
    expectChallenge(await listResources(forged), 401, 'invalid_token');
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const world = await umaWorld(server);
    const now = Math.floor(Date.now() / 1000);
    const expired = await mintedToken({
      sub: world.rs.clientId,
      client_id: world.rs.clientId,
      aud: server.url,
      scope: 'uma_protection',
      iat: now - 120,
      exp: now - 60,
    });
    expectChallenge(await listResources(expired), 401, 'invalid_token');
    // The same token, not expired, passes: the expiry is what was refused.
    const live = await mintedToken({ sub: world.rs.clientId, client_id: world.rs.clientId, aud: server.url, scope: 'uma_protection' });
    expect((await listResources(live)).status).toBe(200);
  });

  it('answers 401 invalid_token for a revoked token', async () => {
    const world = await umaWorld(server);
    expect((await listResources(world.pat)).status).toBe(200);
    await request(server.url)
      .post('/oauth2/revoke')
      .set('Authorization', basic(world.rs.clientId, world.rs.secret))
      .type('form')
      .send({ token: world.pat })
      .expect(200);
    expectChallenge(await listResources(world.pat), 401, 'invalid_token');
  });

  it('answers 403 insufficient_scope for a valid token without uma_protection', async () => {
    const world = await umaWorld(server);
    const token = await accessToken(server, world.clientId, world.secret, `${world.definitionName}:read`);
    const response = await listResources(token);
    expectChallenge(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toContain('scope="uma_protection"');
  });

  it("answers 403 insufficient_scope for a PAT whose client is no data source's umaClient", async () => {
    const loner = await protectionClient(server);
    const pat = await accessToken(server, loner.clientId, loner.secret, 'uma_protection');
    expectChallenge(await listResources(pat), 403, 'insufficient_scope');
  });

  it("answers 403 within a second once the PAT's client stopped being the data source's umaClient", async () => {
    const world = await umaWorld(server);
    expect((await listResources(world.pat)).status).toBe(200);
    await patchAdmin(server, [
      { op: 'replace', path: `/data-source/${world.dataSource.id}`, value: { type: 'data-source', relationships: { umaClient: { data: null } } } },
    ]).expect(200);
    const refused = await eventually(async () => {
      const response = await listResources(world.pat);
      return response.status === 403 ? response : undefined;
    }, 1_000);
    expectChallenge(refused, 403, 'insufficient_scope');
  });

  it('accepts a DPoP-bound PAT with the DPoP scheme and a proof of its key (htu from ISSUER, ath)', async () => {
    const world = await umaWorld(server);
    const rs = await protectionClient(server, { dpopBound: true });
    await patchAdmin(server, [
      {
        op: 'replace',
        path: `/data-source/${world.dataSource.id}`,
        value: { type: 'data-source', relationships: { umaClient: { data: { type: 'uma-client', id: rs.id } } } },
      },
    ]).expect(200);
    const key = await clientKey('ES256');
    const { dpopProof } = await import('../support/keys.js');
    const pat = await accessToken(server, rs.clientId, rs.secret, 'uma_protection', await dpopProof(key, `${server.url}/oauth2/token`));
    const url = `${server.url}/uma/resource_set`;
    const accepted = await eventually(async () => {
      const response = await listResources(pat, 'DPoP', { DPoP: await resourceProof(key, 'GET', url, pat) });
      return response.status === 200 ? response : undefined;
    });
    expect(accepted.body).toEqual([]);
    const registered = await request(server.url)
      .post('/uma/resource_set')
      .set('Authorization', `DPoP ${pat}`)
      .set('DPoP', await resourceProof(key, 'POST', url, pat))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ type: world.definitionName, resource_scopes: ['read'] }));
    expect(registered.status).toBe(201);
  });

  it('refuses a DPoP-bound PAT without a proof, as Bearer, or with a proof of another key, method, URL or token', async () => {
    const world = await umaWorld(server);
    const key = await clientKey('ES256');
    const other = await clientKey('ES256');
    const { dpopProof } = await import('../support/keys.js');
    const pat = await accessToken(server, world.rs.clientId, world.rs.secret, 'uma_protection', await dpopProof(key, `${server.url}/oauth2/token`));
    const url = `${server.url}/uma/resource_set`;
    expectChallenge(await listResources(pat, 'DPoP'), 401, 'invalid_token');
    expectChallenge(await listResources(pat, 'Bearer', { DPoP: await resourceProof(key, 'GET', url, pat) }), 401, 'invalid_token');
    expectChallenge(await listResources(pat, 'DPoP', { DPoP: await resourceProof(other, 'GET', url, pat) }), 401, 'invalid_token');
    expectChallenge(await listResources(pat, 'DPoP', { DPoP: await resourceProof(key, 'POST', url, pat) }), 401, 'invalid_token');
    expectChallenge(await listResources(pat, 'DPoP', { DPoP: await resourceProof(key, 'GET', `${server.url}/uma/permission`, pat) }), 401, 'invalid_token');
    expectChallenge(await listResources(pat, 'DPoP', { DPoP: await resourceProof(key, 'GET', url, world.pat) }), 401, 'invalid_token');
    const proof = await resourceProof(key, 'GET', url, pat);
    expect((await listResources(pat, 'DPoP', { DPoP: proof })).status).toBe(200);
    // RFC 9449 §11.1: a proof is used once.
    expectChallenge(await listResources(pat, 'DPoP', { DPoP: proof }), 401, 'invalid_token');
  });

  it('refuses an unbound PAT sent with the DPoP scheme', async () => {
    const world = await umaWorld(server);
    const key = await clientKey('ES256');
    expectChallenge(
      await listResources(world.pat, 'DPoP', { DPoP: await resourceProof(key, 'GET', `${server.url}/uma/resource_set`, world.pat) }),
      401,
      'invalid_token',
    );
  });

  it('checks the PAT before the body', async () => {
    const response = await registerResource(server, 'garbage', 'not json at all');
    expect(response.status).toBe(401);
  });
});
