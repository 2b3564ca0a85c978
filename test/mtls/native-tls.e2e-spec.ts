import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import * as oidc from 'openid-client';
import { createClient, basic } from '../support/factories.js';
import { clientKey, dpopProof, type ClientKey } from '../support/keys.js';
import { add, patchAdmin, rowCounts, freshIds } from '../support/admin.js';
import { enrolDataSource } from '../support/consent.js';
import { parsedAs, jwtPayload, type TokenBody, type OAuthErrorBody, type IntrospectionBody } from '../support/bodies.js';
import { CertificateFactory, httpsCall, run, thumbprintOf, x5cJwk, type HttpsAnswer, type Issued } from '../support/certificates.js';

import { startTestApp, type TestApp } from '../support/test-app.js';
import type { ClientRegistration } from '../../src/clients/client-registration.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';

// Mutual TLS under native TLS (docs/guides/mtls.md): MTLS=true asks every client for a
// certificate, tls_client_auth against TLS_CLIENT_CA_FILE, self_signed_tls_client_auth against
// x5c keys, certificate-bound tokens (RFC 8705).

type Claims = { cnf?: Record<string, string>; client_id: string };

const LAB_SUBJECT = '/C=DE/O=Example Lab/CN=lab-gw';
const LAB_SAN = 'DNS:lab-gw.example,URI:https://lab.example/gw,IP:10.1.2.3,IP:2001:db8::1,email:gw@Lab.Example';

let dir: string;
let server: TestApp;
let serverCa: Issued;
let networkCa: Issued;
let labGateway: Issued;
let labGatewayRenewed: Issued;
let otherCaGateway: Issued;
let expired: Issued;
let secondNetworkGateway: Issued;
let intermediateGateway: Issued;
let selfSigned: Issued;
let anotherSelfSigned: Issued;
let smallExponent: Issued;
let caLeaf: Issued;
let serverOnly: Issued;
let serverCertificate: Issued;
let proofKey: ClientKey;
const logLines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-test-'));
  const make = new CertificateFactory(dir);
  serverCa = await make.ca('server-ca', '/CN=Test Server CA');
  const serverCert = await make.leaf('server', serverCa, '/CN=localhost', { san: 'DNS:localhost,IP:127.0.0.1' });
  networkCa = await make.ca('network-ca', '/C=DE/O=Example Health Network/CN=Network CA');
  const otherCa = await make.ca('other-ca', '/C=DE/O=Elsewhere/CN=Other CA');
  labGateway = await make.leaf('lab-gw', networkCa, LAB_SUBJECT, { san: LAB_SAN });
  labGatewayRenewed = await make.leaf('lab-gw-renewed', networkCa, LAB_SUBJECT, { san: LAB_SAN });
  otherCaGateway = await make.leaf('lab-gw-other-ca', otherCa, LAB_SUBJECT, { san: LAB_SAN });
  expired = await make.leaf('lab-gw-expired', networkCa, LAB_SUBJECT, { san: LAB_SAN, days: -1 });
  selfSigned = await make.selfSigned('device', '/CN=device-17');
  anotherSelfSigned = await make.selfSigned('device-other', '/CN=device-17');
  // The CA file holds several networks' CAs, and an intermediate CA trusted as it is.
  const secondNetworkCa = await make.ca('second-network-ca', '/C=FR/O=Second Network/CN=Second Network CA');
  const intermediateCa = await make.leaf('intermediate-ca', secondNetworkCa, '/C=FR/O=Second Network/CN=Devices CA', { ca: true });
  secondNetworkGateway = await make.leaf('gw-2', secondNetworkCa, '/C=FR/O=Laboratoire Dupont, SA/CN=gw-2', { san: 'DNS:gw-2.example' });
  intermediateGateway = await make.leaf('gw-3', intermediateCa, '/C=FR/O=Laboratoire Dupont, SA/OU=Devices/CN=gw-3', { san: 'DNS:gw-3.example' });
  // Certificates of the file's CA that are no client's: an RSA key with exponent 3 (cheap to make at
  // 2048 bits; any exponent but 65537 is refused), a CA certificate, a server-only extendedKeyUsage.
  smallExponent = await make.leaf('exponent-3', networkCa, '/C=DE/O=Example Lab/CN=exponent-3', {
    san: 'DNS:exponent-3.example',
    key: ['rsa:2048', '-pkeyopt', 'rsa_keygen_pubexp:3'],
  });
  caLeaf = await make.leaf('ca-leaf', networkCa, '/C=DE/O=Example Lab/CN=ca-leaf', { san: 'DNS:ca-leaf.example', ca: true });
  serverOnly = await make.leaf('server-only', networkCa, '/C=DE/O=Example Lab/CN=server-only', {
    san: 'DNS:server-only.example',
    extendedKeyUsage: 'serverAuth',
  });
  serverCertificate = serverCert;
  const caFile = join(dir, 'client-cas.pem');
  writeFileSync(caFile, [networkCa.cert, secondNetworkCa.cert, intermediateCa.cert].join(''));
  proofKey = await clientKey('ES256');
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  server = await startTestApp(
    // Every test connects anew: the handshake rate is tested on a server of its own below.
    {
      TLS_CERT_FILE: serverCert.certFile,
      TLS_KEY_FILE: serverCert.keyFile,
      MTLS: 'true',
      TLS_CLIENT_CA_FILE: caFile,
      TLS_HANDSHAKE_RATE: '100000',
      LOG_LEVEL: 'debug',
    },
    { logs },
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const id = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

async function tlsClient(rule: Partial<ClientRegistration>, overrides: Partial<ClientRegistration> = {}): Promise<string> {
  const clientId = id('lab');
  await createClient(server.app, { clientId, authenticationType: 'tls_client_auth', allowedScopes: 'read uma_protection', ...rule, ...overrides });
  return clientId;
}

async function selfSignedClient(certificate: Issued, overrides: Partial<ClientRegistration> = {}): Promise<string> {
  const clientId = id('device');
  const jwks = { keys: [await x5cJwk(certificate)] };
  await createClient(server.app, {
    clientId,
    authenticationType: 'self_signed_tls_client_auth',
    jwksRaw: JSON.stringify(jwks),
    allowedScopes: 'read',
    ...overrides,
  });
  return clientId;
}

function token(certificate: Issued | undefined, form: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpsAnswer> {
  return httpsCall(`${server.url}/oauth2/token`, { ca: serverCa.cert, client: certificate, body: new URLSearchParams(form).toString(), headers });
}

function clientCredentials(clientId: string, certificate: Issued | undefined, headers: Record<string, string> = {}): Promise<HttpsAnswer> {
  return token(certificate, { grant_type: 'client_credentials', scope: 'read', client_id: clientId }, headers);
}

/**
 * `description`: the error's text; for invalid_client, the check its log line names
 * (test/auth/one-message.e2e-spec.ts reads those lines), while the response says only
 * CLIENT_AUTHENTICATION_FAILED, whichever check failed.
 */
function expectRefused(answer: HttpsAnswer, status: number, error: string, description: RegExp): void {
  expect(answer.status).toBe(status);
  const body = parsedAs<OAuthErrorBody>(answer.body);
  expect(body.error).toBe(error);
  if (error === 'invalid_client') expect(body.error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
  else expect(body.error_description).toMatch(description);
}

describe('metadata with MTLS=true', () => {
  it('publishes bound tokens, both certificate methods and mtls_endpoint_aliases naming the same endpoints', async () => {
    const answer = await httpsCall(`${server.url}/.well-known/oauth-authorization-server`, { method: 'GET', ca: serverCa.cert });
    const metadata = parsedAs<Record<string, unknown>>(answer.body);
    expect(metadata.tls_client_certificate_bound_access_tokens).toBe(true);
    for (const member of [
      'token_endpoint_auth_methods_supported',
      'introspection_endpoint_auth_methods_supported',
      'revocation_endpoint_auth_methods_supported',
    ]) {
      expect(metadata[member]).toEqual(expect.arrayContaining(['tls_client_auth', 'self_signed_tls_client_auth', 'client_secret_basic']));
    }
    expect(metadata.mtls_endpoint_aliases).toEqual(
      expect.objectContaining({
        token_endpoint: `${server.url}/oauth2/token`,
        introspection_endpoint: `${server.url}/oauth2/introspect`,
        revocation_endpoint: `${server.url}/oauth2/revoke`,
      }),
    );
  });

  it('keeps the SMART configuration to the three methods SMART defines', async () => {
    const answer = await httpsCall(`${server.url}/.well-known/smart-configuration`, { method: 'GET', ca: serverCa.cert });
    expect(parsedAs<Record<string, unknown>>(answer.body).token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
    ]);
  });

  it('serves clients without a certificate as before', async () => {
    const { clientId, clientSecret } = await createClient(server.app);
    const answer = await httpsCall(`${server.url}/oauth2/token`, {
      ca: serverCa.cert,
      headers: { Authorization: basic(clientId, clientSecret) },
      body: 'grant_type=client_credentials&scope=read',
    });
    expect(answer.status).toBe(200);
    expect(jwtPayload<Claims>(parsedAs<TokenBody>(answer.body).access_token).cnf).toBeUndefined();
  });
});

describe('tls_client_auth', () => {
  it('authenticates a certificate of the CA file whose subject is the registered DN', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' });
    const answer = await clientCredentials(clientId, labGateway);
    expect(answer.status).toBe(200);
    const claims = jwtPayload<Claims>(parsedAs<TokenBody>(answer.body).access_token);
    expect(claims.client_id).toBe(clientId);
    // Not certificate-bound: a plain Bearer token.
    expect(claims.cnf).toBeUndefined();
  });

  it('compares the DN as a name: case, insignificant spaces and attribute type names do not matter', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'cn=LAB-GW ,  o=example   lab,2.5.4.6=de' });
    expect((await clientCredentials(clientId, labGateway)).status).toBe(200);
  });

  it('authenticates a certificate of another CA of the file, with a DN whose value holds an escaped comma', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=gw-2,O=Laboratoire Dupont\\, SA,C=FR' });
    expect((await clientCredentials(clientId, secondNetworkGateway)).status).toBe(200);
  });

  it('authenticates a certificate issued by an intermediate CA the file holds', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=gw-3,OU=Devices,O=Laboratoire Dupont\\, SA,C=FR' });
    expect((await clientCredentials(clientId, intermediateGateway)).status).toBe(200);
  });

  it("refuses one network's certificate for a client registered with another network's subject", async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=gw-2,O=Laboratoire Dupont\\, SA,C=FR' });
    expectRefused(await clientCredentials(clientId, labGateway), 401, 'invalid_client', /does not match the registered tls_client_auth_subject_dn/);
  });

  it('refuses a DN whose RDNs are in another order, naming the rule', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'C=DE,O=Example Lab,CN=lab-gw' });
    const answer = await clientCredentials(clientId, labGateway);
    expectRefused(answer, 401, 'invalid_client', /does not match the registered tls_client_auth_subject_dn/);
    expect(answer.headers['www-authenticate']).toBeUndefined();
  });

  it('refuses a request without a certificate', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' });
    expectRefused(await clientCredentials(clientId, undefined), 401, 'invalid_client', /no client certificate was presented/);
  });

  it("refuses another CA's certificate with the same subject", async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' });
    expectRefused(await clientCredentials(clientId, otherCaGateway), 401, 'invalid_client', /does not chain to a trusted CA/);
  });

  it('refuses an expired certificate', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' });
    expectRefused(await clientCredentials(clientId, expired), 401, 'invalid_client', /validity period/);
  });

  it.each([
    ['tlsClientAuthSanDns', 'LAB-GW.example'],
    ['tlsClientAuthSanUri', 'https://lab.example/gw'],
    ['tlsClientAuthSanIp', '10.1.2.3'],
    ['tlsClientAuthSanIp', '2001:DB8:0:0::1'],
    ['tlsClientAuthSanEmail', 'gw@lab.example'],
  ])('matches %s %s', async (field, value) => {
    const clientId = await tlsClient({ [field]: value });
    expect((await clientCredentials(clientId, labGateway)).status).toBe(200);
  });

  it.each([
    ['tlsClientAuthSanDns', '*.example'],
    ['tlsClientAuthSanUri', 'https://LAB.example/gw'],
    ['tlsClientAuthSanIp', '10.1.2.4'],
    ['tlsClientAuthSanEmail', 'GW@lab.example'],
  ])('refuses %s %s, which the certificate does not carry', async (field, value) => {
    const clientId = await tlsClient({ [field]: value });
    expectRefused(await clientCredentials(clientId, labGateway), 401, 'invalid_client', /does not match the registered tls_client_auth_san_/);
  });

  it('refuses a client secret from a tls_client_auth client (the wrong method)', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'lab-gw.example' });
    const answer = await token(labGateway, { grant_type: 'client_credentials', scope: 'read', client_id: clientId, client_secret: 'x'.repeat(32) });
    expectRefused(answer, 401, 'invalid_client', /client authentication failed/);
  });

  it('authenticates a resource server at introspection and revocation the same way', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanUri: 'https://lab.example/gw' });
    const issued = parsedAs<TokenBody>((await clientCredentials(clientId, labGateway)).body).access_token;
    const call = (path: string, certificate: Issued | undefined) =>
      httpsCall(`${server.url}${path}`, { ca: serverCa.cert, client: certificate, body: `client_id=${clientId}&token=${issued}` });
    expect(parsedAs<IntrospectionBody>((await call('/oauth2/introspect', labGateway)).body).active).toBe(true);
    expect((await call('/oauth2/introspect', undefined)).status).toBe(401);
    expect((await call('/oauth2/revoke', otherCaGateway)).status).toBe(401);
    expect((await call('/oauth2/revoke', labGateway)).status).toBe(200);
    expect(parsedAs<IntrospectionBody>((await call('/oauth2/introspect', labGateway)).body).active).toBe(false);
  });

  it('works with curl --cert, binding the token to the thumbprint openssl computes', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' }, { certificateBound: true });
    const curl = await run('curl', [
      '-s',
      '--cacert',
      serverCa.certFile,
      '--cert',
      labGateway.certFile,
      '--key',
      labGateway.keyFile,
      '-d',
      `client_id=${clientId}`,
      '-d',
      'grant_type=client_credentials',
      '-d',
      'scope=read',
      `${server.url}/oauth2/token`,
    ]);
    const body = parsedAs<TokenBody>(curl.stdout);
    const pipeline = await run('sh', [
      '-c',
      `openssl x509 -in '${labGateway.certFile}' -outform der | openssl dgst -sha256 -binary | basenc --base64url | tr -d =`,
    ]);
    expect(jwtPayload<Claims>(body.access_token).cnf).toEqual({ 'x5t#S256': pipeline.stdout.trim() });
    expect(body.token_type).toBe('Bearer');
    const without = await run('curl', [
      '-s',
      '--cacert',
      serverCa.certFile,
      '-d',
      `client_id=${clientId}`,
      '-d',
      'grant_type=client_credentials',
      '-d',
      'scope=read',
      '-w',
      '%{http_code}',
      '-o',
      '/dev/null',
      `${server.url}/oauth2/token`,
    ]);
    expect(without.stdout).toBe('401');
  });

  /** openid-client's fetch over a connection that presents `certificate` and trusts the server's CA. */
  const fetchWith =
    (certificate: Issued): oidc.CustomFetch =>
    async (url, options) => {
      const answer = await httpsCall(url, {
        method: options.method,
        headers: Object.fromEntries(new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).entries()),
        body: options.body === undefined || options.body === null ? '' : String(options.body as string | URLSearchParams),
        ca: serverCa.cert,
        client: certificate,
      });
      return new Response(answer.status === 204 ? null : answer.body, {
        status: answer.status,
        headers: Object.entries(answer.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]])),
      });
    };

  it("works with openid-client's TlsClientAuth and mtls_endpoint_aliases", async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'lab-gw.example' }, { certificateBound: true });
    const fetchWithCertificate = fetchWith(labGateway);
    const configuration = await oidc.discovery(new URL(server.url), clientId, { use_mtls_endpoint_aliases: true }, oidc.TlsClientAuth(), {
      algorithm: 'oauth2',
      [oidc.customFetch]: fetchWithCertificate,
    });
    configuration[oidc.customFetch] = fetchWithCertificate;
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(jwtPayload<Claims>(tokens.access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(labGateway.cert) });
  });

  /** An initial access token issued over the admin interface, then openid-client registering `metadata` over `certificate`'s connections. */
  async function registerWithCertificate(certificate: Issued, metadata: Partial<oidc.ClientMetadata>): Promise<oidc.Configuration> {
    const issued = await patchAdmin(server, [add('initial-access-token', { attributes: { name: 'certificate holders', scopeCeiling: 'read' } })]);
    expect(issued.status).toBe(200);
    const initialAccessToken = (issued.body as { meta: { token: string } }[])[0].meta.token;
    const fetchWithCertificate = fetchWith(certificate);
    const configuration = await oidc.dynamicClientRegistration(
      new URL(server.url),
      { grant_types: ['client_credentials'], tls_client_certificate_bound_access_tokens: true, scope: 'read', ...metadata },
      oidc.TlsClientAuth(),
      { initialAccessToken, algorithm: 'oauth2', [oidc.customFetch]: fetchWithCertificate },
    );
    configuration[oidc.customFetch] = fetchWithCertificate;
    return configuration;
  }

  it("registers itself with openid-client's dynamicClientRegistration and TlsClientAuth, then gets a bound token", async () => {
    const configuration = await registerWithCertificate(labGateway, {
      token_endpoint_auth_method: 'tls_client_auth',
      tls_client_auth_san_dns: 'lab-gw.example',
    });
    expect(configuration.clientMetadata().client_id).toMatch(/^dcr-/);
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(jwtPayload<Claims>(tokens.access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(labGateway.cert) });
  });

  it("registers a self_signed_tls_client_auth client with openid-client's dynamicClientRegistration, its certificate in jwks, then gets a bound token", async () => {
    const configuration = await registerWithCertificate(selfSigned, {
      token_endpoint_auth_method: 'self_signed_tls_client_auth',
      jwks: { keys: [(await x5cJwk(selfSigned)) as oidc.JsonObject] },
    });
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(jwtPayload<Claims>(tokens.access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(selfSigned.cert) });
    // Another self-signed certificate with the same subject is not the registered one.
    configuration[oidc.customFetch] = fetchWith(anotherSelfSigned);
    await expect(oidc.clientCredentialsGrant(configuration, { scope: 'read' })).rejects.toMatchObject({ error: 'invalid_client' });
  });
});

describe('self_signed_tls_client_auth', () => {
  it('authenticates the certificate that is the first x5c of a registered key', async () => {
    const clientId = await selfSignedClient(selfSigned);
    expect((await clientCredentials(clientId, selfSigned)).status).toBe(200);
  });

  it('refuses another self-signed certificate, even with the same subject', async () => {
    const clientId = await selfSignedClient(selfSigned);
    expectRefused(await clientCredentials(clientId, anotherSelfSigned), 401, 'invalid_client', /not the first x5c certificate/);
  });

  it('refuses a certificate the CA file trusts but the key set does not hold', async () => {
    const clientId = await selfSignedClient(selfSigned);
    expectRefused(await clientCredentials(clientId, labGateway), 401, 'invalid_client', /not the first x5c certificate/);
  });
});

describe('certificate-bound tokens', () => {
  async function boundSecretClient(grantTypes = 'client_credentials refresh_token') {
    return createClient(server.app, { certificateBound: true, grantTypes, allowedScopes: 'read uma_protection' });
  }

  function withSecret(
    client: { clientId: string; clientSecret: string },
    certificate: Issued | undefined,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ) {
    return token(certificate, form, { Authorization: basic(client.clientId, client.clientSecret), ...headers });
  }

  it('binds the token of a secret-authenticated client to its certificate, and introspection answers cnf with Bearer', async () => {
    const client = await boundSecretClient();
    const answer = await withSecret(client, labGateway, { grant_type: 'client_credentials', scope: 'read' });
    expect(answer.status).toBe(200);
    const body = parsedAs<TokenBody>(answer.body);
    expect(body.token_type).toBe('Bearer');
    expect(jwtPayload<Claims>(body.access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(labGateway.cert) });
    const introspection = await httpsCall(`${server.url}/oauth2/introspect`, {
      ca: serverCa.cert,
      headers: { Authorization: basic(client.clientId, client.clientSecret) },
      body: `token=${body.access_token}`,
    });
    const answered = parsedAs<IntrospectionBody>(introspection.body);
    expect(answered).toEqual(expect.objectContaining({ active: true, token_type: 'Bearer', cnf: { 'x5t#S256': thumbprintOf(labGateway.cert) } }));
  });

  it('refuses a token request without a certificate with invalid_request, before the refresh token is used up', async () => {
    const client = await boundSecretClient();
    const first = parsedAs<TokenBody>((await withSecret(client, labGateway, { grant_type: 'client_credentials', scope: 'read' })).body);
    const refused = await withSecret(client, undefined, { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expectRefused(refused, 400, 'invalid_request', /no client certificate was presented/);
    const again = await withSecret(client, labGateway, { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(again.status).toBe(200);
  });

  it('binds the token refreshed over a rotated certificate to the new certificate', async () => {
    const client = await boundSecretClient();
    const first = parsedAs<TokenBody>((await withSecret(client, labGateway, { grant_type: 'client_credentials', scope: 'read' })).body);
    const refreshed = await withSecret(client, labGatewayRenewed, { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(refreshed.status).toBe(200);
    expect(jwtPayload<Claims>(parsedAs<TokenBody>(refreshed.body).access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(labGatewayRenewed.cert) });
  });

  it('refuses a DPoP proof from a certificate-bound client without recording its jti', async () => {
    const client = await boundSecretClient();
    const proof = await dpopProof(proofKey, `${server.url}/oauth2/token`);
    const refused = await withSecret(client, labGateway, { grant_type: 'client_credentials', scope: 'read' }, { DPoP: proof });
    expectRefused(refused, 400, 'invalid_request', /one binding/);
    // The same proof still works for a client that may use it: its jti was not used up.
    const other = await createClient(server.app);
    const accepted = await withSecret(other, labGateway, { grant_type: 'client_credentials', scope: 'read' }, { DPoP: proof });
    expect(accepted.status).toBe(200);
  });

  it('binds the token of a client that is not certificate-bound to its DPoP key only, over an mTLS connection', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'lab-gw.example' });
    const proof = await dpopProof(proofKey, `${server.url}/oauth2/token`);
    const answer = await clientCredentials(clientId, labGateway, { DPoP: proof });
    expect(answer.status).toBe(200);
    const body = parsedAs<TokenBody>(answer.body);
    expect(body.token_type).toBe('DPoP');
    expect(Object.keys(jwtPayload<Claims>(body.access_token).cnf ?? {})).toEqual(['jkt']);
  });

  it('accepts a bound PAT at the protection API only over a connection with its certificate', async () => {
    const client = await boundSecretClient('client_credentials');
    const [record] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [client.clientId]);
    await enrolDataSource(server, [], { umaClient: record.id });
    const pat = parsedAs<TokenBody>((await withSecret(client, labGateway, { grant_type: 'client_credentials', scope: 'uma_protection' })).body).access_token;
    const list = (certificate: Issued | undefined) =>
      httpsCall(`${server.url}/uma/resource_set`, { method: 'GET', ca: serverCa.cert, client: certificate, headers: { Authorization: `Bearer ${pat}` } });
    expect((await list(labGateway)).status).toBe(200);
    for (const certificate of [labGatewayRenewed, undefined]) {
      const refused = await list(certificate);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    }
  });
});

describe('refusals', () => {
  it('store nothing and use nothing up', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' });
    const before = await rowCounts(server);
    const [{ count: refreshBefore }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM refresh_token');
    for (const certificate of [undefined, otherCaGateway, expired, selfSigned]) expect((await clientCredentials(clientId, certificate)).status).toBe(401);
    expect(await rowCounts(server)).toEqual(before);
    const [{ count: refreshAfter }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM refresh_token');
    expect(refreshAfter).toBe(refreshBefore);
  });

  it('count toward the per-client limit, while the matching certificate needs no counter', async () => {
    const clientId = await tlsClient({ tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' });
    let last: HttpsAnswer | undefined;
    for (let attempt = 0; attempt < 21; attempt += 1) last = await clientCredentials(clientId, otherCaGateway);
    expect(last!.status).toBe(429);
    expect((await clientCredentials(clientId, labGateway)).status).toBe(200);
  });

  it('never log a certificate', () => {
    const logged = logLines.join('');
    for (const certificate of [labGateway, otherCaGateway, expired, selfSigned]) {
      const body = certificate.cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
      expect(logged).not.toContain(body.slice(20, 80));
      expect(logged).not.toContain(thumbprintOf(certificate.cert));
    }
  });
});

describe("certificates that are no client's", () => {
  it('takes a certificate whose RSA exponent is not 65537 for none, before any of its signatures is checked', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'exponent-3.example' });
    const answer = await clientCredentials(clientId, smallExponent);
    expect(answer.status).toBe(401);
    expect(parsedAs<OAuthErrorBody>(answer.body).error).toBe('invalid_client');
    expect(logLines.some((line) => line.includes('RSA public exponent is not 65537'))).toBe(true);
  });

  it('refuses a CA certificate of the CA file as a client certificate', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'ca-leaf.example' });
    expectRefused(await clientCredentials(clientId, caLeaf), 401, 'invalid_client', /./);
  });

  it('refuses a certificate whose extendedKeyUsage does not allow clientAuth', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'server-only.example' });
    expectRefused(await clientCredentials(clientId, serverOnly), 401, 'invalid_client', /./);
  });
});

describe('the issuer binding', () => {
  it('authenticates a certificate issued by the registered issuer, compared as a name', async () => {
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'lab-gw.example', tlsClientAuthIssuerDn: 'cn=Network CA, O=Example Health Network,C=DE' });
    expect((await clientCredentials(clientId, labGateway)).status).toBe(200);
  });

  it('refuses a certificate of another CA of the file, whatever its subject', async () => {
    // gw-2 is issued by the second network's CA, which the file trusts as well.
    const clientId = await tlsClient({ tlsClientAuthSanDns: 'gw-2.example', tlsClientAuthIssuerDn: 'CN=Network CA,O=Example Health Network,C=DE' });
    expectRefused(await clientCredentials(clientId, secondNetworkGateway), 401, 'invalid_client', /./);
  });
});

describe('the handshake rate', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ TLS_CERT_FILE: serverCertificate.certFile, TLS_KEY_FILE: serverCertificate.keyFile, MTLS: 'true', TLS_HANDSHAKE_RATE: '3' });
  }, 60_000);
  afterAll(() => limited?.close());

  /** Opens a TLS connection; answers whether its handshake completed. */
  function handshake(): Promise<boolean> {
    const { port } = new URL(limited.url);
    return new Promise((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca: serverCa.cert, servername: 'localhost' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
  }

  it('closes the new connections of an address over TLS_HANDSHAKE_RATE before their handshake, and admits it again a second later', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => handshake()));
    const completed = results.filter(Boolean).length;
    expect(completed).toBeGreaterThanOrEqual(1);
    expect(completed).toBeLessThanOrEqual(5);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await handshake()).toBe(true);
  });
});

describe('registration', () => {
  async function created(attributes: Record<string, unknown>) {
    const [recordId] = freshIds(1);
    return patchAdmin(server, [
      add('uma-client', { id: recordId, attributes: { clientId: id('reg'), clientName: 'Lab', allowedScopes: 'read', ...attributes } }),
    ]);
  }

  it('stores a tls_client_auth client with its subject value, without a secret', async () => {
    const response = await created({
      clientAuthenticationType: 'tls_client_auth',
      tlsClientAuthSanUri: 'https://lab.example/gw',
      tlsClientCertificateBoundAccessTokens: true,
    });
    expect(response.status).toBe(200);
    const [result] = response.body as { data: { attributes: Record<string, unknown> }; meta?: unknown }[];
    expect(result.data.attributes).toEqual(
      expect.objectContaining({ tlsClientAuthSanUri: 'https://lab.example/gw', tlsClientAuthSubjectDn: null, tlsClientCertificateBoundAccessTokens: true }),
    );
    expect(result.meta).toBeUndefined();
  });

  it.each([
    ['no subject value', { clientAuthenticationType: 'tls_client_auth' }, 'tlsClientAuthSubjectDn'],
    [
      'two subject values',
      { clientAuthenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'a.example', tlsClientAuthSanUri: 'https://a.example' },
      'tlsClientAuthSanUri',
    ],
    ['a subject value for another method', { tlsClientAuthSanDns: 'a.example' }, 'tlsClientAuthSanDns'],
    ['an unreadable DN', { clientAuthenticationType: 'tls_client_auth', tlsClientAuthSubjectDn: 'CN' }, 'tlsClientAuthSubjectDn'],
    ['an IP that is none', { clientAuthenticationType: 'tls_client_auth', tlsClientAuthSanIp: '10.1.2' }, 'tlsClientAuthSanIp'],
    [
      'an unreadable issuer DN',
      { clientAuthenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'lab-gw.example', tlsClientAuthIssuerDn: 'CN' },
      'tlsClientAuthIssuerDn',
    ],
    ['an issuer DN for another method', { tlsClientAuthIssuerDn: 'CN=Network CA' }, 'tlsClientAuthIssuerDn'],
    ['both bindings', { dpopBoundAccessTokens: true, tlsClientCertificateBoundAccessTokens: true }, 'tlsClientCertificateBoundAccessTokens'],
    [
      'a self-signed client without x5c keys',
      {
        clientAuthenticationType: 'self_signed_tls_client_auth',
        jwksRaw: JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] }),
      },
      'jwksRaw',
    ],
  ])('refuses %s with 422 naming the member, storing nothing', async (_case, attributes, member) => {
    const before = await rowCounts(server);
    const response = await created(attributes);
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toContain(`/value/attributes/${member}`);
    expect(await rowCounts(server)).toEqual(before);
  });

  it('cuts a certificate off as soon as the registration changes', async () => {
    const [recordId] = freshIds(1);
    const clientId = id('cut');
    await patchAdmin(server, [
      add('uma-client', {
        id: recordId,
        attributes: { clientId, clientName: 'Lab', allowedScopes: 'read', clientAuthenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'lab-gw.example' },
      }),
    ]);
    expect((await clientCredentials(clientId, labGateway)).status).toBe(200);
    const changed = await patchAdmin(server, [
      {
        op: 'replace',
        path: `/uma-client/${recordId}`,
        value: { type: 'uma-client', id: String(recordId), attributes: { tlsClientAuthSanDns: 'other.example' } },
      },
    ]);
    expect(changed.status).toBe(200);
    const { eventually } = await import('../support/processes.js');
    await eventually(async () => ((await clientCredentials(clientId, labGateway)).status === 401 ? true : undefined), 5_000, 100);
  });
});
