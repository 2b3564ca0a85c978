import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';
import { CertificateFactory, x5cJwk, type Issued } from '../support/certificates.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { LogLines } from '../support/log-lines.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * One message before authentication (docs/reference/token-endpoint.md#errors): whichever check
 * refuses a client that is not yet authenticated, for a secret, private_key_jwt, tls_client_auth
 * or self_signed_tls_client_auth, the response's error_description is the same, so it tells an
 * attacker nothing about which ids, methods, keys or certificates exist; the request's log line
 * names the check. Errors after authentication keep their own text.
 */

const HEADER = 'ssl-client-cert';
const logs = new LogLines();
let server: TestApp;
let dir: string;
let secretClient: TestClient;
let key: ClientKey;
let keyClientId: string;
let gateway: Issued;
let otherCaGateway: Issued;
let device: Issued;
let otherDevice: Issued;
let labClientId: string;
let strictLabClientId: string;
let deviceClientId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'one-message-test-'));
  const make = new CertificateFactory(dir);
  const networkCa = await make.ca('network-ca', '/CN=Network CA');
  const foreignCa = await make.ca('other-ca', '/CN=Other CA');
  gateway = await make.leaf('lab-gw', networkCa, '/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  otherCaGateway = await make.leaf('lab-gw-other', foreignCa, '/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  device = await make.selfSigned('device', '/CN=device-1');
  otherDevice = await make.selfSigned('device-other', '/CN=device-1');
  const caFile = join(dir, 'client-cas.pem');
  writeFileSync(caFile, networkCa.cert);
  server = await startTestApp(
    { MTLS: 'true', MTLS_CLIENT_CERT_HEADER: HEADER, TLS_CLIENT_CA_FILE: caFile, TRUST_PROXY: 'loopback', LOG_LEVEL: 'info' },
    { logs: logs.stream },
  );
  secretClient = await createClient(server.app);
  key = await clientKey('ES256');
  keyClientId = await createKeyClient(server.app, key);
  labClientId = `lab-${randomBytes(5).toString('hex')}`;
  await createClient(server.app, { clientId: labClientId, authenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'lab-gw.example' });
  strictLabClientId = `lab-${randomBytes(5).toString('hex')}`;
  await createClient(server.app, { clientId: strictLabClientId, authenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'other-gw.example' });
  deviceClientId = `device-${randomBytes(5).toString('hex')}`;
  await createClient(server.app, {
    clientId: deviceClientId,
    authenticationType: 'self_signed_tls_client_auth',
    jwksRaw: JSON.stringify({ keys: [await x5cJwk(device)] }),
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const grant = { grant_type: 'client_credentials', scope: 'read' };
const forwarded = (issued: Issued) => encodeURIComponent(issued.cert);

// Each case speaks from an address of its own (TRUST_PROXY=loopback): no case meets another's failure counts.
const base = randomInt(0, 250 * 250);
let offset = 0;
function address(): string {
  offset += 1;
  const n = (base + offset) % (250 * 250);
  return `203.0.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

type Sent = { headers?: Record<string, string>; form?: Record<string, string> };

async function send({ headers = {}, form = {} }: Sent) {
  const pending = request(server.url).post('/oauth2/token').type('form').set('X-Forwarded-For', address());
  for (const [name, value] of Object.entries(headers)) pending.set(name, value);
  return pending.send({ ...grant, ...form });
}

const withAssertion = async (jwt: string | Promise<string>): Promise<Sent> => ({
  form: { client_assertion_type: ASSERTION_TYPE, client_assertion: await jwt },
});

const cases: Array<[string, () => Promise<Sent>, RegExp, number?]> = [
  // Secrets.
  [
    'an unknown client id (Basic)',
    () => Promise.resolve({ headers: { Authorization: basic(`ghost-${randomBytes(4).toString('hex')}`, 'secret') } }),
    /no client has this client_id/,
  ],
  ['a wrong secret (Basic)', () => Promise.resolve({ headers: { Authorization: basic(secretClient.clientId, 'wrong-secret') } }), /the client secret is wrong/],
  [
    'a wrong secret (client_secret_post)',
    () => Promise.resolve({ form: { client_id: secretClient.clientId, client_secret: 'wrong-secret' } }),
    /the client secret is wrong|registered for/,
  ],
  [
    'the right secret with a method the client is not registered for',
    () => Promise.resolve({ form: { client_id: secretClient.clientId, client_secret: secretClient.clientSecret } }),
    /registered for client_secret_basic, not client_secret_post/,
  ],
  [
    'a secret holding a NUL (form-encoded in Basic)',
    () => Promise.resolve({ headers: { Authorization: `Basic ${Buffer.from(`${secretClient.clientId}:a%00b`).toString('base64')}` } }),
    // Refused by the header's parser, before any lookup.
    /not valid HTTP Basic/,
  ],
  ['an Authorization header that is not HTTP Basic', () => Promise.resolve({ headers: { Authorization: 'Basic !!!' } }), /not valid HTTP Basic/],
  ['no client authentication at all', () => Promise.resolve({}), /no client authentication was sent/],
  ["a secret client's client_id alone", () => Promise.resolve({ form: { client_id: secretClient.clientId } }), /client_id alone/],
  // private_key_jwt.
  [
    'an assertion for an unknown client id',
    async () => withAssertion(assertion(key, `ghost-${randomBytes(4).toString('hex')}`, server.url)),
    /no client registered for private_key_jwt/,
  ],
  [
    'an assertion for a client registered for a secret',
    async () => withAssertion(assertion(key, secretClient.clientId, server.url)),
    /no client registered for private_key_jwt/,
  ],
  [
    "an assertion signed by another key under the client's kid",
    async () => withAssertion(assertion(await clientKey('ES256', key.jwk.kid), keyClientId, server.url)),
    /signature does not verify/,
  ],
  [
    'an assertion with an unknown kid',
    async () => withAssertion(assertion(await clientKey('ES256'), keyClientId, server.url)),
    /no key of the client's key set has the assertion's "kid"/,
  ],
  [
    "an assertion whose alg does not fit the kid's key type",
    async () => withAssertion(assertion(await clientKey('RS256', key.jwk.kid), keyClientId, server.url)),
    /is a EC key on P-256, which cannot verify "alg" RS256/,
  ],
  ['a client_assertion that is not a JWT', () => withAssertion('not-a-jwt'), /not a JWT/],
  [
    'an expired assertion',
    async () => withAssertion(assertion(key, keyClientId, server.url, { iat: Math.floor(Date.now() / 1000) - 120, exp: Math.floor(Date.now() / 1000) - 60 })),
    /expired/,
  ],
  [
    'another client_assertion_type',
    async () => ({ form: { client_assertion_type: 'urn:example:other', client_assertion: await assertion(key, keyClientId, server.url) } }),
    /client_assertion_type must be/,
    400,
  ],
  // tls_client_auth.
  ['a tls_client_auth client without a certificate', () => Promise.resolve({ form: { client_id: labClientId } }), /no client certificate was presented/],
  [
    'a certificate of a CA the server does not trust',
    () => Promise.resolve({ form: { client_id: labClientId }, headers: { [HEADER]: forwarded(otherCaGateway) } }),
    /does not chain to a trusted CA/,
  ],
  [
    'a certificate that does not match the registered name',
    () => Promise.resolve({ form: { client_id: strictLabClientId }, headers: { [HEADER]: forwarded(gateway) } }),
    /does not match the registered/,
  ],
  // self_signed_tls_client_auth.
  [
    'a self_signed_tls_client_auth client without a certificate',
    () => Promise.resolve({ form: { client_id: deviceClientId } }),
    /no client certificate was presented/,
  ],
  [
    'a self-signed certificate the client did not register',
    () => Promise.resolve({ form: { client_id: deviceClientId }, headers: { [HEADER]: forwarded(otherDevice) } }),
    /not the first x5c certificate/,
  ],
];

describe('a client that is not authenticated', () => {
  it.each(cases)('is told only "client authentication failed" for %s, and the log line names the check', async (_name, sent, check, status = 401) => {
    const response = await send(await sent());
    expect(response.status).toBe(status);
    expect(bodyOf<OAuthErrorBody>(response)).toEqual({ error: 'invalid_client', error_description: CLIENT_AUTHENTICATION_FAILED });
    const line = await logs.requestLine(response);
    expect(line.failedCheck).toMatch(check);
    // At info: not a warning, not an error.
    expect(line.level).toBe(30);
  });

  it('never says the check in any response, and never puts a credential in a log line', () => {
    const logged = JSON.stringify(logs.lines);
    expect(logged).not.toContain('wrong-secret');
    expect(logged).not.toContain(secretClient.clientSecret);
  });
});

describe('a client that is authenticated', () => {
  it('is told the specific reason of a later refusal (invalid_scope)', async () => {
    const response = await send({ headers: { Authorization: basic(secretClient.clientId, secretClient.clientSecret) }, form: { scope: 'not-allowed-scope' } });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
    expect(bodyOf<OAuthErrorBody>(response).error_description).not.toBe(CLIENT_AUTHENTICATION_FAILED);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toMatch(/not-allowed-scope/);
  });

  it('works with each method here (the refusals above are not a broken set-up)', async () => {
    const responses = await Promise.all([
      send({ headers: { Authorization: basic(secretClient.clientId, secretClient.clientSecret) } }),
      send(await withAssertion(assertion(key, keyClientId, server.url))),
      send({ form: { client_id: labClientId }, headers: { [HEADER]: forwarded(gateway) } }),
      send({ form: { client_id: deviceClientId }, headers: { [HEADER]: forwarded(device) } }),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
  });
});
