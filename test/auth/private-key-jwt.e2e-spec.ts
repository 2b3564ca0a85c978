import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import { AuthThrottle, FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../../src/auth/auth-throttle.js';
import { jest } from '@jest/globals';
import { add, patchAdmin, rowCounts } from '../support/admin.js';
import { basic, createClient } from '../support/factories.js';
import { loopbackAddress, onceASecondUntilOk, postToken } from '../support/flood.js';
import { eventually } from '../support/processes.js';
import { ASSERTION_TYPE, assertion, claimsOf, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { LogLines } from '../support/log-lines.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type JsonApiDocument, type JsonApiResource, type OAuthErrorBody, type TokenBody, type PointedJsonApiErrors } from '../support/bodies.js';

let server: TestApp;
// Every invalid_client says the same; the request's log line names the check.
const logs = new LogLines();
let key: ClientKey;
let clientId: string;

// These tests hold the FAPI 2.0 rule (aud = the issuer only); SMART's token-endpoint aud is tested in smart-backend-services.
beforeAll(async () => {
  server = await startTestApp({ CLIENT_ASSERTION_AUDIENCE: 'issuer', LOG_LEVEL: 'info' }, { logs: logs.stream });
  key = await clientKey('ES256');
  clientId = await createKeyClient(server.app, key);
});

afterAll(() => server.close());

// Failed authentications from 127.0.0.1 add up across tests; each test starts from none.
beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

function tokenRequest(target: TestApp, form: Record<string, string>) {
  return request(target.url)
    .post('/oauth2/token')
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read', ...form });
}

function withAssertion(jwt: string, extra: Record<string, string> = {}) {
  return tokenRequest(server, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt, ...extra });
}

/** Whether the replay store holds this assertion jti (ReplayStore keys are digests). */
async function jtiUsed(owner: string, jti: string): Promise<boolean> {
  const digest = createHash('sha256').update(`client-assertion\u0000${owner}\u0000${jti}`).digest('base64url');
  return (await server.dataSource.query<unknown[]>('SELECT 1 FROM used_jti WHERE key = $1', [digest])).length > 0;
}

const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };

describe('private_key_jwt accepted', () => {
  it('openid-client gets a token with PrivateKeyJwt through discovery', async () => {
    const configuration = await oidc.discovery(
      new URL(server.url),
      clientId,
      undefined,
      oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.jwk.kid }),
      insecure,
    );
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`)), { issuer: server.url, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: clientId, client_id: clientId, scope: 'read' });
    expect(tokens.token_type).toBe('bearer');
  });

  it.each(['PS256', 'EdDSA', 'RS256'] as const)('accepts an assertion signed with %s', async (alg) => {
    const holder = await clientKey(alg);
    const id = await createKeyClient(server.app, holder);
    const response = await withAssertion(await assertion(holder, id, server.url));
    expect(response.status).toBe(200);
    expect(claimsOf(bodyOf<TokenBody>(response).access_token).sub).toBe(id);
  });

  it('accepts a JSON body with client_id equal to the assertion sub', async () => {
    const response = await request(server.url)
      .post('/oauth2/token')
      .send({
        grant_type: 'client_credentials',
        scope: 'read',
        client_id: clientId,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(key, clientId, server.url),
      });
    expect(response.status).toBe(200);
  });

  it('picks the key by kty and crv when the assertion has no kid', async () => {
    const rsa = await clientKey('PS256');
    const ec = await clientKey('ES256');
    const id = await createKeyClient(server.app, ec, { jwksRaw: JSON.stringify({ keys: [rsa.jwk, ec.jwk] }) });
    const response = await withAssertion(await assertion(ec, id, server.url, {}, { kid: undefined }));
    expect(response.status).toBe(200);
  });

  it('authenticates a resource server at introspection and revocation with an assertion', async () => {
    const issued = bodyOf<TokenBody>(await withAssertion(await assertion(key, clientId, server.url)));
    const introspected = await request(server.url)
      .post('/oauth2/introspect')
      .type('form')
      .send({
        token: issued.access_token,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(key, clientId, server.url),
      });
    expect(introspected.status).toBe(200);
    expect(introspected.body).toMatchObject({ active: true, client_id: clientId });
    const revoked = await request(server.url)
      .post('/oauth2/revoke')
      .type('form')
      .send({
        token: issued.access_token,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(key, clientId, server.url),
      });
    expect(revoked.status).toBe(200);
  });

  it('publishes private_key_jwt and its algorithms in the metadata', async () => {
    const metadata = bodyOf<Record<string, unknown>>(await request(server.url).get('/.well-known/oauth-authorization-server'));
    for (const member of [
      'token_endpoint_auth_methods_supported',
      'introspection_endpoint_auth_methods_supported',
      'revocation_endpoint_auth_methods_supported',
    ]) {
      expect(metadata[member]).toContain('private_key_jwt');
    }
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(['PS256', 'ES256', 'EdDSA', 'RS256']));
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).not.toContain('none');
  });
});

describe('private_key_jwt refused: 401 invalid_client, its log line naming the check, jti not used up', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Record<string, unknown>, RegExp][] = [
    ['an aud array holding the issuer', () => ({ aud: [server.url] }), /"aud".*not an array/],
    ['the token endpoint URL as aud', () => ({ aud: `${server.url}/oauth2/token` }), /"aud" must be the issuer/],
    ['an expired assertion', () => ({ iat: now() - 120, exp: now() - 60 }), /expired/],
    ['an assertion living longer than 5 minutes', () => ({ exp: now() + 301 }), /lives too long/],
    ['a long life without iat', () => ({ iat: undefined, exp: now() + 400 }), /lives too long/],
    ['an iat in the future', () => ({ iat: now() + 30, exp: now() + 60 }), /"iat" is in the future/],
    ['an nbf in the future', () => ({ nbf: now() + 30 }), /"nbf" is in the future/],
    ['no exp', () => ({ exp: undefined }), /no "exp"/],
    ['no jti', () => ({ jti: undefined }), /no "jti"/],
    ['an iss other than the client', () => ({ iss: 'someone-else' }), /"iss" must be the client_id/],
  ];

  it.each(cases)('refuses %s', async (_name, claims, description) => {
    const jti = randomUUID();
    const response = await withAssertion(await assertion(key, clientId, server.url, { jti, ...claims() }));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(description);
    expect(await jtiUsed(clientId, jti)).toBe(false);
  });

  it('refuses a replayed jti', async () => {
    const jwt = await assertion(key, clientId, server.url);
    expect((await withAssertion(jwt)).status).toBe(200);
    const replay = await withAssertion(jwt);
    expect(replay.status).toBe(401);
    expect(await logs.refusedBecause(replay)).toMatch(/already been used/);
  });

  it('refuses alg none', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const payload = claimsOf(await assertion(key, clientId, server.url));
    const response = await withAssertion(`${encode({ alg: 'none' })}.${encode(payload)}.`);
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/"alg" is not accepted/);
  });

  it('refuses an HS256 assertion keyed with a client secret', async () => {
    const secretClient = await createClient(server.app);
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ iss: secretClient.clientId, sub: secretClient.clientId, aud: server.url, iat: now, exp: now + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(secretClient.clientSecret));
    const response = await withAssertion(jwt);
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/"alg" is not accepted/);
  });

  it('refuses an assertion signed by a key the client did not register', async () => {
    const foreign = await clientKey('ES256', key.jwk.kid);
    const response = await withAssertion(await assertion(foreign, clientId, server.url));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/signature does not verify/);
  });

  it('refuses an unknown kid', async () => {
    const response = await withAssertion(await assertion(key, clientId, server.url, {}, { kid: 'not-registered' }));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/no key of the client's key set has the assertion's "kid"/);
  });

  it('refuses a client_id that differs from the assertion sub', async () => {
    const other = await createKeyClient(server.app, key);
    const response = await withAssertion(await assertion(key, clientId, server.url), { client_id: other });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/client_id differs/);
  });

  it('refuses an assertion for a client registered with a secret', async () => {
    const secretClient = await createClient(server.app);
    const response = await withAssertion(await assertion(key, secretClient.clientId, server.url));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/no client registered for private_key_jwt/);
  });

  it('refuses an assertion for an unknown client, its log line naming the same check', async () => {
    const response = await withAssertion(await assertion(key, 'no-such-client', server.url));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/no client registered for private_key_jwt/);
  });

  it('refuses a wrong client_assertion_type with 400', async () => {
    const response = await tokenRequest(server, { client_assertion_type: 'urn:example:other', client_assertion: await assertion(key, clientId, server.url) });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_client');
  });

  it('refuses text that is not a JWT without a 5xx', async () => {
    const response = await withAssertion('not.a.jwt');
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/not a JWT/);
  });

  it('answers invalid_request for an assertion together with HTTP Basic', async () => {
    const response = await withAssertion(await assertion(key, clientId, server.url)).set('Authorization', basic(clientId, 'whatever-secret'));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
  });

  it('answers invalid_request for an assertion together with client_secret', async () => {
    const response = await withAssertion(await assertion(key, clientId, server.url), { client_id: clientId, client_secret: 'whatever-secret' });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
  });

  it('refuses a private_key_jwt client that tries HTTP Basic', async () => {
    const response = await tokenRequest(server, {}).set('Authorization', basic(clientId, 'guessed-secret-value'));
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_client');
  });
});

describe('brute-force limits for assertions', () => {
  const refusedAssertion = (holder: ClientKey, id: string) => assertion(holder, id, server.url, { aud: 'https://elsewhere.example' });

  it(`answers 429 with Retry-After after ${FAILURES_PER_CLIENT} refused assertions of one client`, async () => {
    const holder = await clientKey('ES256');
    const id = await createKeyClient(server.app, holder);
    for (let index = 0; index < FAILURES_PER_CLIENT; index += 1) {
      expect((await withAssertion(await refusedAssertion(holder, id))).status).toBe(401);
    }
    const blocked = await withAssertion(await refusedAssertion(holder, id));
    expect(blocked.status).toBe(429);
    expect(bodyOf<OAuthErrorBody>(blocked).error).toBe('too_many_requests');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('still lets a valid assertion from another address through past the limit: an attacker cannot lock the client out', async () => {
    const holder = await clientKey('ES256');
    const id = await createKeyClient(server.app, holder);
    for (let index = 0; index <= FAILURES_PER_CLIENT; index += 1) await withAssertion(await refusedAssertion(holder, id));
    expect((await withAssertion(await refusedAssertion(holder, id))).status).toBe(429);
    // The attacker's address (127.0.0.1) is 429 before any key work; another address gets the client's one check a second.
    const form = { grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE };
    const statuses = await onceASecondUntilOk(
      async () => postToken(server.url, loopbackAddress(), { ...form, client_assertion: await assertion(holder, id, server.url) }),
      3,
    );
    expect(statuses).toContain(200);
    expect((await withAssertion(await assertion(holder, id, server.url))).status).toBe(429);
  });
});

describe('the counts of a working key-holding client', () => {
  /** A new client that has authenticated twice from 127.0.0.1 (proven, then its counts read clean), and a spy on the reads of the counts. */
  async function provenClient() {
    const holder = await clientKey('ES256');
    const id = await createKeyClient(server.app, holder);
    for (let index = 0; index < 2; index += 1) expect((await withAssertion(await assertion(holder, id, server.url))).status).toBe(200);
    const reads = jest.spyOn(server.app.get(AuthThrottle), 'standing');
    return { holder, id, reads };
  }

  afterEach(() => jest.restoreAllMocks());

  it('are read at most once a second while its address stays clean', async () => {
    const { holder, id, reads } = await provenClient();
    for (let index = 0; index < 3; index += 1) expect((await withAssertion(await assertion(holder, id, server.url))).status).toBe(200);
    // Three requests inside a second read nothing; a slow machine crossing the second's end reads once.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('are read again at once after a refused assertion from its address', async () => {
    const { holder, id, reads } = await provenClient();
    expect((await withAssertion(await assertion(holder, id, server.url, { aud: 'https://elsewhere.example' }))).status).toBe(401);
    reads.mockClear();
    expect((await withAssertion(await assertion(holder, id, server.url))).status).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});

describe('private_key_jwt on two instances of one database', () => {
  let second: TestApp;

  beforeAll(async () => {
    second = await startTestApp({ ISSUER: server.url, CLIENT_ASSERTION_AUDIENCE: 'issuer', LOG_LEVEL: 'info' }, { logs: logs.stream });
  });

  afterAll(() => second.close());

  it("holds within a second an address's limit reached on the other instance, also for a client that works from it", async () => {
    const holder = await clientKey('ES256');
    const id = await createKeyClient(server.app, holder);
    for (let index = 0; index < 2; index += 1) expect((await withAssertion(await assertion(holder, id, server.url))).status).toBe(200);
    const throttle = second.app.get(AuthThrottle);
    for (let index = 0; index < FAILURES_PER_ADDRESS; index += 1) await throttle.countRefusal('127.0.0.1');
    const started = Date.now();
    const refused = await eventually(async () => {
      const response = await withAssertion(await assertion(holder, id, server.url));
      return response.status === 429 ? response : undefined;
    }, 3_000);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('too_many_requests');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('refuses on the second instance an assertion the first one accepted', async () => {
    const jwt = await assertion(key, clientId, server.url);
    expect((await tokenRequest(server, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt })).status).toBe(200);
    const replay = await tokenRequest(second, { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });
    expect(replay.status).toBe(401);
    expect(await logs.refusedBecause(replay)).toMatch(/already been used/);
  });

  it('accepts one of two simultaneous uses of an assertion, on different instances', async () => {
    const jwt = await assertion(key, clientId, server.url);
    const form = { client_assertion_type: ASSERTION_TYPE, client_assertion: jwt };
    const statuses = (await Promise.all([tokenRequest(server, form), tokenRequest(second, form)])).map((response) => response.status).sort();
    expect(statuses).toEqual([200, 401]);
  });
});

describe('registering a key-holding client over JSON:API', () => {
  const create = (attributes: Record<string, unknown>) =>
    patchAdmin(server, [
      add('uma-client', {
        attributes: {
          clientId: `admin-key-${randomUUID().slice(0, 8)}`,
          clientName: 'Key client',
          allowedScopes: 'read',
          clientAuthenticationType: 'private_key_jwt',
          ...attributes,
        },
      }),
    ]);

  it('creates the client without a secret, and it gets a token with its key', async () => {
    const response = await create({ jwksRaw: JSON.stringify({ keys: [key.jwk] }), dpopBoundAccessTokens: false });
    expect(response.status).toBe(200);
    const [result] = bodyOf<JsonApiDocument<JsonApiResource>[]>(response);
    const record = result.data;
    expect(record.attributes).toMatchObject({ clientAuthenticationType: 'private_key_jwt', dpopBoundAccessTokens: false, jwksUri: null });
    expect(result.meta?.clientSecret).toBeUndefined();
    expect(JSON.stringify(response.body)).not.toMatch(/clientSecret/);
    const token = await withAssertion(await assertion(key, record.attributes.clientId as string, server.url));
    expect(token.status).toBe(200);
  });

  it('replace moves a secret client to private_key_jwt: its secret stops working, its key works', async () => {
    const secretClient = await createClient(server.app);
    const [row] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [secretClient.clientId]);
    const replaced = await patchAdmin(server, [
      {
        op: 'replace',
        path: `/uma-client/${row.id}`,
        value: {
          type: 'uma-client',
          id: String(row.id),
          attributes: { clientAuthenticationType: 'private_key_jwt', jwksRaw: JSON.stringify({ keys: [key.jwk] }), dpopBoundAccessTokens: true },
        },
      },
    ]);
    expect(replaced.status).toBe(200);
    expect(bodyOf<JsonApiDocument<JsonApiResource>[]>(replaced)[0].data.attributes).toMatchObject({
      clientAuthenticationType: 'private_key_jwt',
      dpopBoundAccessTokens: true,
    });
    const [metadata] = await server.dataSource.query<{ client_secret_hash: string | null }[]>(
      'SELECT m.client_secret_hash FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.id = $1',
      [row.id],
    );
    expect(metadata.client_secret_hash).toBeNull();
    await eventually(async () =>
      (await tokenRequest(server, {}).set('Authorization', basic(secretClient.clientId, secretClient.clientSecret))).status === 401 ? true : undefined,
    );
    const unbound = await withAssertion(await assertion(key, secretClient.clientId, server.url));
    expect(bodyOf<OAuthErrorBody>(unbound).error).toBe('invalid_dpop_proof');
  });

  const privateJwk = async () => {
    const holder = await clientKey('ES256');
    const { exportJWK } = await import('jose');
    return { ...(await exportJWK(holder.privateKey)), kid: 'private' };
  };
  const smallRsa = async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    return { ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), kid: 'small' };
  };
  const refusals: [string, () => Promise<Record<string, unknown>>, string, RegExp][] = [
    ['a private key', async () => ({ jwksRaw: JSON.stringify({ keys: [await privateJwk()] }) }), 'jwksRaw', /private member "d"/],
    ['an RSA key under 2048 bits', async () => ({ jwksRaw: JSON.stringify({ keys: [await smallRsa()] }) }), 'jwksRaw', /2048 bits/],
    ['two keys with one kid', () => Promise.resolve({ jwksRaw: JSON.stringify({ keys: [key.jwk, key.jwk] }) }), 'jwksRaw', /used twice/],
    [
      'eleven keys',
      () => Promise.resolve({ jwksRaw: JSON.stringify({ keys: Array.from({ length: 11 }, (_, index) => ({ ...key.jwk, kid: `k${index}` })) }) }),
      'jwksRaw',
      /1 to 10 keys/,
    ],
    ['text that is not JSON', () => Promise.resolve({ jwksRaw: '{keys' }), 'jwksRaw', /not valid JSON/],
    ['a kty that is an object', () => Promise.resolve({ jwksRaw: JSON.stringify({ keys: [{ kty: { toString: 0 } }] }) }), 'jwksRaw', /"kty" must be/],
    ['no keys at all', () => Promise.resolve({}), 'jwksRaw', /needs its public keys/],
    [
      'both jwksRaw and jwksUri',
      () => Promise.resolve({ jwksRaw: JSON.stringify({ keys: [key.jwk] }), jwksUri: 'https://client.example/jwks' }),
      'jwksUri',
      /not both/,
    ],
    [
      'a secret',
      () => Promise.resolve({ jwksRaw: JSON.stringify({ keys: [key.jwk] }), clientSecret: 'a-secret-for-a-key-client' }),
      'clientSecret',
      /no client secret/,
    ],
  ];

  it.each(refusals)('refuses %s with a 422 naming the member', async (_name, attributes, member, detail) => {
    const before = await rowCounts(server);
    const response = await create(await attributes());
    expect(response.status).toBe(422);
    const error = bodyOf<PointedJsonApiErrors[]>(response)[0].errors[0];
    expect(error.source.pointer).toBe(`/0/value/attributes/${member}`);
    expect(error.detail).toMatch(detail);
    expect(await rowCounts(server)).toEqual(before);
  });
});
