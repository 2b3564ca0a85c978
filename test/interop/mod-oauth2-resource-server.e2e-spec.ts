import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { clientKey, dpopProof } from '../support/keys.js';
import { apacheHead, requireModOauth2, startApache, type Apache } from '../support/apache.js';
import { eventually } from '../support/processes.js';
import { accessToken, resourceProof, umaWorld, type UmaWorld } from '../support/uma.js';
import { freePort, freshDatabase, type TestApp, startTestApp } from '../support/test-app.js';

// Apache's mod_oauth2 (Debian 12's libapache2-mod-oauth2, liboauth2) as a data source in front of
// its API, configured as docs/guides/resource-server-configurations.md says: by introspection as
// the data source's introspection client with a result cache of at most 1 s, by JWT through RFC
// 8414 metadata, and with DPoP. One named cache per OAuth2TokenVerify, so a result cached by one
// never answers for another.

let dir: string;
let root: string;
let server: TestApp;
/** A second server signing with EdDSA (Ed25519), on a database of its own. */
let eddsaServer: TestApp;
let eddsaClient: TestClient;
let world: UmaWorld;
let apache: Apache | undefined;
let apacheUrl: string;

/** The configuration of the guide, with this run's issuer, data source and introspection client. */
function apacheConfig(port: number): string {
  const issuer = server.url;
  const readScope = `${world.definitionName}:read`;
  const credentials = `client_id=${encodeURIComponent(world.rs.clientId)}&client_secret=${encodeURIComponent(world.rs.secret)}`;
  return [
    ...apacheHead(root, port, ['mpm_event', 'authn_core', 'authz_core', 'authz_user', 'oauth2']),
    // One cache per OAuth2TokenVerify (the default one is shared and keyed by the token alone).
    'OAuth2Cache shm name=introspected&max_entries=1000',
    'OAuth2Cache shm name=verified-jwt&max_entries=1000',
    'OAuth2Cache shm name=verified-dpop&max_entries=1000',
    'OAuth2Cache shm name=dpop-proofs&max_entries=1000',
    'OAuth2Cache shm name=verified-eddsa&max_entries=1000',
    '<Location /introspected>',
    '  AuthType oauth2',
    `  OAuth2TokenVerify introspect ${issuer}/oauth2/introspect "introspect.auth=client_secret_basic&${credentials}&verify.cache=introspected&expiry=1"`,
    `  Require oauth2_claim scope:${readScope}`,
    '</Location>',
    '<Location /jwt>',
    '  AuthType oauth2',
    `  OAuth2TokenVerify metadata ${issuer}/.well-known/oauth-authorization-server "verify.cache=verified-jwt&expiry=1"`,
    '  <RequireAll>',
    `    Require oauth2_claim aud:${world.dataSource.resourceUri}`,
    `    Require oauth2_claim scope:${readScope}`,
    '  </RequireAll>',
    '</Location>',
    '<Location /dpop>',
    '  AuthType oauth2',
    '  OAuth2AcceptTokenIn header type=DPoP',
    `  OAuth2TokenVerify metadata ${issuer}/.well-known/oauth-authorization-server "type=dpop&dpop.cache=dpop-proofs&verify.cache=verified-dpop&expiry=1"`,
    '  <RequireAll>',
    `    Require oauth2_claim aud:${world.dataSource.resourceUri}`,
    `    Require oauth2_claim scope:${readScope}`,
    '  </RequireAll>',
    '</Location>',
    '<Location /eddsa>',
    '  AuthType oauth2',
    `  OAuth2TokenVerify metadata ${eddsaServer.url}/.well-known/oauth-authorization-server "verify.cache=verified-eddsa&expiry=1"`,
    '  Require valid-user',
    '</Location>',
  ].join('\n');
}

beforeAll(async () => {
  requireModOauth2();
  dir = mkdtempSync(join(tmpdir(), 'mod-oauth2-rs-'));
  root = join(dir, 'apache');
  server = await startTestApp();
  world = await umaWorld(server);
  eddsaServer = await startTestApp({ TOKEN_SIGNING_ALG: 'EdDSA', DATABASE_URL: await freshDatabase('mod_oauth2_eddsa') });
  eddsaClient = await createClient(eddsaServer.app, { allowedScopes: 'read' });
  const port = await freePort();
  apacheUrl = `http://127.0.0.1:${port}`;
  const documents = Object.fromEntries(['introspected', 'jwt', 'dpop', 'eddsa'].map((location) => [location, 'glucose readings\n']));
  apache = await startApache(root, apacheConfig(port), documents, () => fetch(`${apacheUrl}/`).then(() => true));
}, 180_000);

afterAll(async () => {
  await apache?.stop();
  await eddsaServer?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const readToken = (dpop?: string) => accessToken(server, world.clientId, world.secret, `${world.definitionName}:read`, dpop);

const call = (path: string, headers: Record<string, string>) => fetch(`${apacheUrl}${path}`, { headers }).then((response) => response.status);

async function revoke(token: string): Promise<void> {
  const response = await request(server.url).post('/oauth2/revoke').set('Authorization', basic(world.clientId, world.secret)).type('form').send({ token });
  expect(response.status).toBe(200);
}

describe('by introspection, as the data source’s introspection client', () => {
  it('serves a valid token', async () => {
    expect(await call('/introspected', { Authorization: `Bearer ${await readToken()}` })).toBe(200);
  });

  it('refuses a revoked token once its cached answer (1 s) has expired', async () => {
    const token = await readToken();
    expect(await call('/introspected', { Authorization: `Bearer ${token}` })).toBe(200);
    await revoke(token);
    await eventually(async () => ((await call('/introspected', { Authorization: `Bearer ${token}` })) === 401 ? true : undefined), 15_000, 250);
  });

  it('refuses a token for a scope the location does not require', async () => {
    const token = await accessToken(server, world.clientId, world.secret, 'uma_protection');
    expect(await call('/introspected', { Authorization: `Bearer ${token}` })).toBe(401);
  });
});

describe('by JWT, keys found through RFC 8414 metadata', () => {
  it('serves a valid token for this data source', async () => {
    expect(await call('/jwt', { Authorization: `Bearer ${await readToken()}` })).toBe(200);
  });

  it('refuses a token whose aud is not this data source', async () => {
    // A plain-scope token's aud is the issuer.
    const token = await accessToken(server, world.clientId, world.secret, 'uma_protection');
    expect(await call('/jwt', { Authorization: `Bearer ${token}` })).toBe(401);
  });

  it('refuses a token with more scopes than the one required (Debian 12 compares scope as a whole string)', async () => {
    const token = await accessToken(server, world.clientId, world.secret, `${world.definitionName}:read uma_protection`);
    expect(await call('/jwt', { Authorization: `Bearer ${token}` })).toBe(401);
  });

  it('refuses a token whose signature was altered', async () => {
    const token = await readToken();
    const [header, payload, signature] = token.split('.');
    const altered = `${header}.${payload}.${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expect(await call('/jwt', { Authorization: `Bearer ${altered}` })).toBe(401);
  });
});

describe('DPoP-bound tokens (type=dpop, OAuth2AcceptTokenIn header type=DPoP)', () => {
  it('serves a bound token with a proof of its key for this request', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    const proof = await resourceProof(key, 'GET', `${apacheUrl}/dpop`, token);
    expect(await call('/dpop', { Authorization: `DPoP ${token}`, DPoP: proof })).toBe(200);
  });

  it('refuses a bound token with a proof of another key', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    const proof = await resourceProof(await clientKey('ES256'), 'GET', `${apacheUrl}/dpop`, token);
    expect(await call('/dpop', { Authorization: `DPoP ${token}`, DPoP: proof })).toBe(401);
  });

  it('refuses a bound token without a proof', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    expect(await call('/dpop', { Authorization: `DPoP ${token}` })).toBe(401);
  });

  it('accepts a proof whose ath names another token (Debian 12 does not check ath)', async () => {
    // What the guide says to do about it: introspect, or check ath in front of Apache.
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    const proof = await resourceProof(key, 'GET', `${apacheUrl}/dpop`, 'another token');
    expect(await call('/dpop', { Authorization: `DPoP ${token}`, DPoP: proof })).toBe(200);
  });

  it('refuses a proof made for another URL', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    const proof = await resourceProof(key, 'GET', `${apacheUrl}/elsewhere`, token);
    expect(await call('/dpop', { Authorization: `DPoP ${token}`, DPoP: proof })).toBe(401);
  });
});

describe('EdDSA', () => {
  it('refuses a valid token signed with EdDSA (Debian 12 cannot verify it)', async () => {
    // What the guide says to do about it: keep TOKEN_SIGNING_ALG at ES256, RS256 or PS256, or introspect.
    const token = await accessToken(eddsaServer, eddsaClient.clientId, eddsaClient.clientSecret, 'read');
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'))).toMatchObject({ alg: 'EdDSA' });
    expect(await call('/eddsa', { Authorization: `Bearer ${token}` })).toBe(401);
  });
});
