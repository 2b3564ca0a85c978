import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { exportJWK, generateKeyPair } from 'jose';
import { add, patchAdmin, rowCounts } from '../support/admin.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { JwksServer } from '../support/jwks-server.js';
import { eventually, runCli } from '../support/processes.js';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { bodyOf, type OAuthErrorBody, type PointedJsonApiErrors } from '../support/bodies.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';

/*
 * Keys whose signature check costs far more than a normal key's, sent before the server knows
 * who is asking (docs/operations/security.md#bounded-key-cost). The big RSA keys are built by
 * hand (random bytes for the modulus, top bit set): no signature is ever verified with them,
 * and generating a real 16384-bit key takes minutes.
 */
function modulus(bits: number): string {
  const bytes = randomBytes(bits / 8);
  bytes[0] |= 0x80;
  return bytes.toString('base64url');
}

const HUGE_MODULUS = () => ({ kty: 'RSA', n: modulus(16384), e: 'AQAB' });
const HUGE_EXPONENT = () => ({ kty: 'RSA', n: modulus(2048), e: modulus(3072) });

let server: TestApp;
let relaxed: TestApp;
let keyServer: JwksServer;
let client: TestClient;
let tokenEndpoint: string;
const folder = mkdtempSync(join(tmpdir(), 'key-bounds-'));
const relaxedLogs: string[] = [];

beforeAll(async () => {
  keyServer = new JwksServer();
  await keyServer.start();
  server = await startTestApp();
  // Where a jwks_uri may point at the loopback key server of this test.
  relaxed = await startTestApp(
    { JWKS_URI_ALLOW_HTTP: 'true' },
    {
      logs: new Writable({
        write(chunk, _encoding, done) {
          relaxedLogs.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    },
  );
  client = await createClient(server.app);
  tokenEndpoint = `${server.url}/oauth2/token`;
});

afterAll(async () => {
  await relaxed.close();
  await server.close();
  await keyServer.stop();
  rmSync(folder, { recursive: true, force: true });
});

// Failed authentications from 127.0.0.1 add up across tests; each test starts from none.
beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

/** A DPoP proof for the token endpoint carrying `jwk`, whose signature is random bytes. */
function garbageProof(jwk: Record<string, unknown>, alg = 'RS256'): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = part({ typ: 'dpop+jwt', alg, jwk });
  const payload = part({ htm: 'POST', htu: tokenEndpoint, iat: Math.floor(Date.now() / 1000), jti: randomUUID() });
  return `${header}.${payload}.${randomBytes(jwk.kty === 'RSA' ? 256 : 64).toString('base64url')}`;
}

function withProof(proof: string) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(client.clientId, client.clientSecret))
    .set('DPoP', proof)
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read' });
}

describe('DPoP proofs with keys out of bounds', () => {
  it.each([
    ['a 16384-bit modulus', HUGE_MODULUS, /at most 4096 bits/],
    ['a 3072-bit exponent', HUGE_EXPONENT, /exponent 65537/],
    ['a 1024-bit modulus', () => ({ kty: 'RSA', n: modulus(1024), e: 'AQAB' }), /at least 2048 bits/],
  ])('answers 400 invalid_dpop_proof to an RS256 proof whose jwk has %s and a garbage signature', async (_name, jwk, reason) => {
    const response = await withProof(garbageProof(jwk()));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_dpop_proof');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(reason);
  });

  it('answers 400 invalid_dpop_proof to an ES256 proof whose jwk is on P-384', async () => {
    const { publicKey } = await generateKeyPair('ES384', { extractable: true });
    const response = await withProof(garbageProof(await exportJWK(publicKey), 'ES256'));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/ES256 needs an EC key on curve P-256/);
  });

  it('answers 400 invalid_dpop_proof to an RS256 proof whose jwk is an EC key', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const response = await withProof(garbageProof(await exportJWK(publicKey)));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/RS256 needs an RSA key/);
  });

  it('still answers a normal RS256 proof with a garbage signature that its signature does not verify', async () => {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const response = await withProof(garbageProof(await exportJWK(publicKey)));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/signature does not verify/);
  });
});

/** Registers a private_key_jwt client with this JWKS over the admin interface. */
function registerOverAdmin(jwks: unknown) {
  return patchAdmin(server, [
    add('uma-client', {
      attributes: {
        clientId: `bounds-${randomUUID().slice(0, 8)}`,
        clientName: 'Backend',
        allowedScopes: 'read',
        clientAuthenticationType: 'private_key_jwt',
        jwksRaw: JSON.stringify(jwks),
      },
    }),
  ]);
}

describe('client key sets with keys out of bounds, at registration', () => {
  let good: ClientKey;
  beforeAll(async () => {
    good = await clientKey('ES256');
  });

  it.each([
    ['an RSA key with a 16384-bit modulus', () => ({ keys: [good.jwk, { ...HUGE_MODULUS(), kid: 'huge' }] }), /key 1: .*at most 4096 bits/],
    ['an RSA key with a 3072-bit exponent', () => ({ keys: [{ ...HUGE_EXPONENT(), kid: 'exp' }] }), /key 0: .*exponent 65537/],
    ['ten RSA keys with 16384-bit moduli', () => ({ keys: Array.from({ length: 10 }, (_, index) => ({ ...HUGE_MODULUS(), kid: `k${index}` })) }), /4096 bits/],
    ['eleven keys', () => ({ keys: Array.from({ length: 11 }, (_, index) => ({ ...good.jwk, kid: `k${index}` })) }), /1 to 10 keys/],
  ])('refuses %s over the admin interface with a 422 naming jwksRaw', async (_name, jwks, detail) => {
    const before = await rowCounts(server);
    const response = await registerOverAdmin(jwks());
    expect(response.status).toBe(422);
    const error = bodyOf<PointedJsonApiErrors[]>(response)[0].errors[0];
    expect(error.source.pointer).toBe('/0/value/attributes/jwksRaw');
    expect(error.detail).toMatch(detail);
    expect(await rowCounts(server)).toEqual(before);
  });

  it.each([
    ['an RSA key with a 16384-bit modulus', HUGE_MODULUS, /at most 4096 bits/],
    ['an RSA key with a 3072-bit exponent', HUGE_EXPONENT, /exponent 65537/],
  ])('refuses %s at client create --jwks-file with one line on stderr', async (_name, jwk, reason) => {
    const file = join(folder, `${randomUUID()}.json`);
    writeFileSync(file, JSON.stringify({ keys: [{ ...jwk(), kid: 'bad' }] }));
    const clientId = `cli-bounds-${randomUUID().slice(0, 8)}`;
    const args = ['client', 'create', '--client-id', clientId, '--name', 'Bad', '--scopes', 'read', '--auth-method', 'private_key_jwt', '--jwks-file', file];
    const result = await runCli(args, { DATABASE_URL: testDatabaseUrl() });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: jwksRaw: key 0: RSA keys must have/);
    expect(result.stderr).toMatch(reason);
    expect(await server.dataSource.query('SELECT 1 FROM client WHERE client_id = $1', [clientId])).toHaveLength(0);
  });
});

describe('an assertion without kid, against a set with keys of several types', () => {
  let keys: Record<string, ClientKey>;
  let clientId: string;

  beforeAll(async () => {
    keys = {};
    for (const alg of ['RS256', 'PS384', 'ES256', 'ES384', 'EdDSA'] as const) keys[alg] = await clientKey(alg);
    // Registered without alg, so every key is chosen by its type and curve alone.
    const jwks = { keys: Object.values(keys).map(({ jwk }) => ({ ...jwk, alg: undefined })) };
    clientId = await createKeyClient(server.app, keys.ES256, { jwksRaw: JSON.stringify(jwks) });
  });

  it.each(['RS256', 'PS384', 'ES256', 'ES384', 'EdDSA'])('gets a token with an assertion signed with %s', async (alg) => {
    const jwt = await assertion(keys[alg], clientId, server.url, {}, { kid: undefined });
    const response = await request(server.url)
      .post('/oauth2/token')
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });
    expect(response.status).toBe(200);
  });

  it('refuses an assertion signed by a key of the right type that is not in the set', async () => {
    const stranger = await clientKey('ES256');
    const jwt = await assertion(stranger, clientId, server.url, {}, { kid: undefined });
    const response = await request(server.url)
      .post('/oauth2/token')
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
  });
});

describe('a jwks_uri serving keys out of bounds', () => {
  it.each([
    ['an RSA key with a 16384-bit modulus', (good: ClientKey) => ({ keys: [good.jwk, { ...HUGE_MODULUS(), kid: 'huge' }] }), /at most 4096 bits/],
    ['eleven keys', (good: ClientKey) => ({ keys: Array.from({ length: 11 }, (_, index) => ({ ...good.jwk, kid: `k${index}` })) }), /1 to 10 keys/],
  ])('is a key set that cannot be used when it holds %s: 401, and the log says why', async (_name, document, reason) => {
    const good = await clientKey('ES256');
    const path = keyServer.nextPath();
    const clientId = await createKeyClient(relaxed.app, good, { jwksRaw: null, jwksUri: keyServer.serve(path, document(good)) });
    const response = await request(relaxed.url)
      .post('/oauth2/token')
      .type('form')
      .send({
        grant_type: 'client_credentials',
        scope: 'read',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(good, clientId, relaxed.url),
      });
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
    expect(keyServer.fetches(path)).toBe(1);
    await eventually(() =>
      relaxedLogs.some((line) => /"failedCheck":"[^"]*key set at its registered jwks_uri could not be used"/.test(line)) ? true : undefined,
    );
    await eventually(() => (relaxedLogs.some((line) => line.includes(path) && reason.test(line)) ? true : undefined));
  });
});
