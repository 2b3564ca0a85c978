import { randomUUID } from 'node:crypto';
import request from 'supertest';
import * as oidc from 'openid-client';
import { calculateJwkThumbprint, exportJWK, SignJWT } from 'jose';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { ASSERTION_TYPE, assertion, claimsOf, clientKey, createKeyClient, dpopProof, type ClientKey } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type TokenBody, type OAuthErrorBody } from '../support/bodies.js';

let server: TestApp;
let client: TestClient;
let proofKey: ClientKey;
let jkt: string;
let tokenEndpoint: string;

beforeAll(async () => {
  server = await startTestApp();
  client = await createClient(server.app);
  proofKey = await clientKey('ES256');
  jkt = await calculateJwkThumbprint(proofKey.jwk);
  tokenEndpoint = `${server.url}/oauth2/token`;
});

afterAll(() => server.close());

function tokenRequest(target: TestApp, proof: string | undefined, who: TestClient = client, form: Record<string, string> = {}) {
  const pending = request(target.url).post('/oauth2/token').set('Authorization', basic(who.clientId, who.clientSecret)).type('form');
  if (proof !== undefined) pending.set('DPoP', proof);
  return pending.send({ grant_type: 'client_credentials', scope: 'read', ...form });
}

const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };

describe('DPoP-bound tokens', () => {
  it('openid-client gets a DPoP token with getDPoPHandle, bound to its key', async () => {
    const configuration = await oidc.discovery(new URL(server.url), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), insecure);
    const keyPair = await oidc.randomDPoPKeyPair('ES256');
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' }, { DPoP: oidc.getDPoPHandle(configuration, keyPair) });
    expect(tokens.token_type).toBe('dpop');
    expect(claimsOf(tokens.access_token).cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(keyPair.publicKey)) });
  });

  it.each(['ES256', 'PS256', 'EdDSA', 'RS256'] as const)('binds the token to a %s proof key, answering token_type DPoP', async (alg) => {
    const holder = await clientKey(alg);
    const response = await tokenRequest(server, await dpopProof(holder, tokenEndpoint));
    expect(response.status).toBe(200);
    expect(bodyOf<TokenBody>(response).token_type).toBe('DPoP');
    expect(claimsOf(bodyOf<TokenBody>(response).access_token).cnf).toEqual({ jkt: await calculateJwkThumbprint(holder.jwk) });
  });

  it('issues a Bearer token without cnf when no proof is sent', async () => {
    const response = await tokenRequest(server, undefined);
    expect(bodyOf<TokenBody>(response).token_type).toBe('Bearer');
    expect(claimsOf(bodyOf<TokenBody>(response).access_token).cnf).toBeUndefined();
  });

  it('ignores the query and fragment of htu', async () => {
    const response = await tokenRequest(server, await dpopProof(proofKey, `${tokenEndpoint}?x=1#part`));
    expect(response.status).toBe(200);
  });

  it('introspection answers token_type DPoP and cnf for a bound token', async () => {
    const issued = await tokenRequest(server, await dpopProof(proofKey, tokenEndpoint));
    const response = await request(server.url)
      .post('/oauth2/introspect')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .type('form')
      .send({ token: bodyOf<TokenBody>(issued).access_token });
    expect(response.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
  });

  it("binds the access token of a refresh to that request's proof, leaving the refresh token unbound", async () => {
    const refresher = await createClient(server.app, { grantTypes: 'client_credentials refresh_token' });
    const first = await tokenRequest(server, await dpopProof(proofKey, tokenEndpoint), refresher);
    const otherKey = await clientKey('ES256');
    const refreshed = await tokenRequest(server, await dpopProof(otherKey, tokenEndpoint), refresher, {
      grant_type: 'refresh_token',
      refresh_token: bodyOf<TokenBody>(first).refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(bodyOf<TokenBody>(refreshed).access_token).cnf).toEqual({ jkt: await calculateJwkThumbprint(otherKey.jwk) });
    const unbound = await tokenRequest(server, undefined, refresher, {
      grant_type: 'refresh_token',
      refresh_token: bodyOf<TokenBody>(refreshed).refresh_token!,
    });
    expect(unbound.status).toBe(200);
    expect(bodyOf<TokenBody>(unbound).token_type).toBe('Bearer');
  });

  it('publishes dpop_signing_alg_values_supported', async () => {
    const metadata = bodyOf<Record<string, unknown>>(await request(server.url).get('/.well-known/oauth-authorization-server'));
    expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'PS256', 'EdDSA', 'RS256']));
  });
});

describe('DPoP proofs refused: 400 invalid_dpop_proof', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const claimCases: [string, () => Record<string, unknown>, Record<string, unknown>, RegExp][] = [
    ['a wrong htm', () => ({ htm: 'GET' }), {}, /"htm"/],
    ['an htu on another host', () => ({ htu: 'https://elsewhere.example/oauth2/token' }), {}, /"htu"/],
    ['an htu of another path', () => ({ htu: `${server.url}/oauth2/introspect` }), {}, /"htu"/],
    ['a stale iat', () => ({ iat: now() - 61 }), {}, /stale/],
    ['an iat in the future', () => ({ iat: now() + 30 }), {}, /future/],
    ['no jti', () => ({ jti: undefined }), {}, /"jti"/],
    ['a wrong typ', () => ({}), { typ: 'JWT' }, /"typ"/],
    ['no jwk', () => ({}), { jwk: undefined }, /"jwk"/],
  ];

  it.each(claimCases)('refuses %s', async (_name, claims, header, description) => {
    const response = await tokenRequest(server, await dpopProof(proofKey, tokenEndpoint, claims(), header));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_dpop_proof');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(description);
  });

  it('refuses a proof whose jwk is a private key', async () => {
    const privateJwk = await exportJWK(proofKey.privateKey);
    const response = await tokenRequest(server, await dpopProof(proofKey, tokenEndpoint, {}, { jwk: privateJwk }));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/private member/);
  });

  it('refuses a proof signed by another key than its jwk', async () => {
    const other = await clientKey('ES256');
    const foreignJwk = { ...proofKey.jwk };
    delete foreignJwk.kid;
    delete foreignJwk.alg;
    delete foreignJwk.use;
    const response = await tokenRequest(server, await dpopProof(other, tokenEndpoint, {}, { jwk: foreignJwk }));
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/signature/);
  });

  it('refuses alg none and HS256', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const payload = { htm: 'POST', htu: tokenEndpoint, iat: now(), jti: randomUUID() };
    const none = await tokenRequest(server, `${encode({ alg: 'none', typ: 'dpop+jwt', jwk: proofKey.jwk })}.${encode(payload)}.`);
    const hmac = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0' } as never })
      .sign(new TextEncoder().encode('secret'));
    for (const response of [none, await tokenRequest(server, hmac)]) {
      expect(response.status).toBe(400);
      expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_dpop_proof');
    }
  });

  it('refuses text that is not a JWT, and two DPoP headers', async () => {
    expect(bodyOf<OAuthErrorBody>(await tokenRequest(server, 'not-a-jwt')).error).toBe('invalid_dpop_proof');
    const proof = await dpopProof(proofKey, tokenEndpoint);
    const twice = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(client.clientId, client.clientSecret))
      .set('DPoP', [proof, await dpopProof(proofKey, tokenEndpoint)] as unknown as string)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    expect(twice.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(twice).error_description).toMatch(/exactly one DPoP header/);
  });

  it('refuses a replayed proof', async () => {
    const proof = await dpopProof(proofKey, tokenEndpoint);
    expect((await tokenRequest(server, proof)).status).toBe(200);
    const replay = await tokenRequest(server, proof);
    expect(replay.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(replay).error_description).toMatch(/already been used/);
  });

  it('compares htu with the ISSUER, not with Host or X-Forwarded-Host', async () => {
    const spoofed = 'http://attacker.example/oauth2/token';
    const response = await tokenRequest(server, await dpopProof(proofKey, spoofed))
      .set('Host', 'attacker.example')
      .set('X-Forwarded-Host', 'attacker.example');
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/"htu"/);
  });

  it('refuses a dpopBoundAccessTokens client that sends no proof, without using up its assertion', async () => {
    const key = await clientKey('ES256');
    const bound = await createKeyClient(server.app, key, { dpopBound: true });
    const jwt = await assertion(key, bound, server.url);
    const form = { grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: jwt };
    const refused = await request(server.url).post('/oauth2/token').type('form').send(form);
    expect(refused.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('invalid_dpop_proof');
    const accepted = await request(server.url)
      .post('/oauth2/token')
      .set('DPoP', await dpopProof(proofKey, tokenEndpoint))
      .type('form')
      .send(form);
    expect(accepted.status).toBe(200);
    expect(bodyOf<TokenBody>(accepted).token_type).toBe('DPoP');
  });

  it('refuses a dpopBoundAccessTokens secret client that sends no proof', async () => {
    const bound = await createClient(server.app, { dpopBound: true });
    const response = await tokenRequest(server, undefined, bound);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_dpop_proof');
  });

  it('refuses a dpopBoundAccessTokens client_secret_post client that sends no proof, for every grant', async () => {
    const bound = await createClient(server.app, { dpopBound: true, authenticationType: 'client_secret_post', grantTypes: 'client_credentials refresh_token' });
    for (const form of [
      { grant_type: 'client_credentials', scope: 'read' },
      { grant_type: 'refresh_token', refresh_token: 'not-a-token' },
    ]) {
      const response = await request(server.url)
        .post('/oauth2/token')
        .type('form')
        .send({ ...form, client_id: bound.clientId, client_secret: bound.clientSecret });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_dpop_proof', error_description: 'DPoP: this client must send a DPoP proof with every token request' });
    }
  });
});

describe('an assertion and a proof are used up together, all or none', () => {
  let key: ClientKey;
  let id: string;
  const send = (jwt: string, proof: string) =>
    request(server.url)
      .post('/oauth2/token')
      .set('DPoP', proof)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: jwt });

  beforeAll(async () => {
    key = await clientKey('ES256');
    id = await createKeyClient(server.app, key);
  });

  it('refuses a replayed proof without using up the fresh assertion sent with it', async () => {
    const proof = await dpopProof(proofKey, tokenEndpoint);
    expect((await send(await assertion(key, id, server.url), proof)).status).toBe(200);
    const jwt = await assertion(key, id, server.url);
    const replay = await send(jwt, proof);
    expect(replay.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(replay).error).toBe('invalid_dpop_proof');
    expect((await send(jwt, await dpopProof(proofKey, tokenEndpoint))).status).toBe(200);
  });

  it('refuses a replayed assertion without using up the fresh proof sent with it', async () => {
    const jwt = await assertion(key, id, server.url);
    expect((await send(jwt, await dpopProof(proofKey, tokenEndpoint))).status).toBe(200);
    const proof = await dpopProof(proofKey, tokenEndpoint);
    const replay = await send(jwt, proof);
    expect(replay.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(replay).error).toBe('invalid_client');
    expect((await send(await assertion(key, id, server.url), proof)).status).toBe(200);
  });
});

describe('DPoP on two instances of one database', () => {
  let second: TestApp;

  beforeAll(async () => {
    second = await startTestApp({ ISSUER: server.url });
  });

  afterAll(() => second.close());

  it('refuses on the second instance a proof the first one accepted', async () => {
    const proof = await dpopProof(proofKey, tokenEndpoint);
    expect((await tokenRequest(server, proof)).status).toBe(200);
    const replay = await tokenRequest(second, proof);
    expect(replay.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(replay).error).toBe('invalid_dpop_proof');
  });
});

describe('DPOP_NONCE=true', () => {
  let first: TestApp;
  let second: TestApp;
  let endpoint: string;

  beforeAll(async () => {
    first = await startTestApp({ DPOP_NONCE: 'true' });
    second = await startTestApp({ DPOP_NONCE: 'true', ISSUER: first.url });
    endpoint = `${first.url}/oauth2/token`;
  });

  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('asks for a nonce with use_dpop_nonce and a DPoP-Nonce header, then accepts it', async () => {
    const refused = await tokenRequest(first, await dpopProof(proofKey, endpoint));
    expect(refused.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('use_dpop_nonce');
    const nonce = refused.headers['dpop-nonce'];
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const accepted = await tokenRequest(first, await dpopProof(proofKey, endpoint, { nonce }));
    expect(accepted.status).toBe(200);
    expect(accepted.headers['dpop-nonce']).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  it('accepts on one instance a nonce the other issued', async () => {
    const nonce = (await tokenRequest(first, await dpopProof(proofKey, endpoint))).headers['dpop-nonce'];
    const accepted = await tokenRequest(second, await dpopProof(proofKey, endpoint, { nonce }));
    expect(accepted.status).toBe(200);
  });

  it('refuses an unknown nonce with use_dpop_nonce', async () => {
    const refused = await tokenRequest(first, await dpopProof(proofKey, endpoint, { nonce: 'made-up-nonce-value-000000000' }));
    expect(refused.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('use_dpop_nonce');
    expect(refused.headers['dpop-nonce']).toBeDefined();
  });

  it('does not use up the client assertion of a request refused for its nonce', async () => {
    const key = await clientKey('ES256');
    const id = await createKeyClient(first.app, key);
    const form = {
      grant_type: 'client_credentials',
      scope: 'read',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(key, id, first.url),
    };
    const refused = await request(first.url)
      .post('/oauth2/token')
      .set('DPoP', await dpopProof(proofKey, endpoint))
      .type('form')
      .send(form);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('use_dpop_nonce');
    const nonce = refused.headers['dpop-nonce'];
    const accepted = await request(first.url)
      .post('/oauth2/token')
      .set('DPoP', await dpopProof(proofKey, endpoint, { nonce }))
      .type('form')
      .send(form);
    expect(accepted.status).toBe(200);
  });

  it('openid-client retries with the nonce by itself', async () => {
    const key = await clientKey('ES256');
    const id = await createKeyClient(first.app, key);
    const configuration = await oidc.discovery(new URL(first.url), id, undefined, oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.jwk.kid }), insecure);
    const handle = oidc.getDPoPHandle(configuration, await oidc.randomDPoPKeyPair('ES256'));
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' }, { DPoP: handle });
    expect(tokens.token_type).toBe('dpop');
  });
});
