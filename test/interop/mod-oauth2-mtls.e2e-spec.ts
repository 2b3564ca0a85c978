import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from '../support/factories.js';
import { parsedAs, type TokenBody } from '../support/bodies.js';
import { apacheHead, requireModOauth2, startApache, type Apache } from '../support/apache.js';
import { CertificateFactory, httpsCall, type Issued } from '../support/certificates.js';

import { freePort, type TestApp, startTestApp } from '../support/test-app.js';

// Apache's mod_oauth2 (Debian's libapache2-mod-oauth2, liboauth2) as a resource server checking
// our certificate-bound tokens (docs/guides/mtls.md#certificate-bound-tokens): it verifies the JWT
// with our jwks_uri and, with type=mtls, compares cnf["x5t#S256"] with the certificate of the
// connection the token arrives on (SSLVerifyClient optional_no_ca, SSLOptions +ExportCertData).

let dir: string;
let server: TestApp;
let apache: Apache | undefined;
let apachePort: number;
let serverCa: Issued;
let gateway: Issued;
let otherGateway: Issued;

function apacheConfig(root: string, port: number, serverCert: Issued, jwksUri: string): string {
  // unixd is built into Debian's Apache.
  return [
    ...apacheHead(root, port, ['mpm_event', 'authn_core', 'authz_core', 'authz_user', 'ssl', 'oauth2']),
    'SSLEngine on',
    `SSLCertificateFile ${serverCert.certFile}`,
    `SSLCertificateKeyFile ${serverCert.keyFile}`,
    'SSLVerifyClient optional_no_ca',
    'SSLOptions +ExportCertData',
    '<Location /api>',
    '  AuthType oauth2',
    // Every test presents a token of its own, so liboauth2's result cache (keyed by the token) never answers for another.
    `  OAuth2TokenVerify jwks_uri ${jwksUri} "type=mtls&mtls.policy=required&jwks_uri.ssl_verify=false"`,
    '  Require valid-user',
    '</Location>',
  ].join('\n');
}

beforeAll(async () => {
  requireModOauth2();
  dir = mkdtempSync(join(tmpdir(), 'mod-oauth2-mtls-'));
  const make = new CertificateFactory(dir);
  serverCa = await make.ca('server-ca', '/CN=Test Server CA');
  const serverCert = await make.leaf('server', serverCa, '/CN=localhost', { san: 'DNS:localhost,IP:127.0.0.1' });
  const networkCa = await make.ca('network-ca', '/O=Example Health Network/CN=Network CA');
  gateway = await make.leaf('lab-gw', networkCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  otherGateway = await make.leaf('lab-gw-2', networkCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  const caFile = join(dir, 'cas.pem');
  writeFileSync(caFile, networkCa.cert);
  // The Apache module opens a TLS connection per introspection: more than TLS_HANDSHAKE_RATE's default of 20 a second from one address.
  server = await startTestApp({
    TLS_CERT_FILE: serverCert.certFile,
    TLS_KEY_FILE: serverCert.keyFile,
    MTLS: 'true',
    TLS_CLIENT_CA_FILE: caFile,
    TLS_HANDSHAKE_RATE: '1000',
  });

  const root = join(dir, 'apache');
  apachePort = await freePort();
  apache = await startApache(
    root,
    apacheConfig(root, apachePort, serverCert, `${server.url}/oauth2/jwks`),
    { api: 'protected\n' },
    async () => (await httpsCall(`https://127.0.0.1:${apachePort}/`, { method: 'GET', ca: serverCa.cert })).status > 0,
  );
}, 180_000);

afterAll(async () => {
  await apache?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function boundToken(): Promise<string> {
  const clientId = `lab-${randomBytes(4).toString('hex')}`;
  await createClient(server.app, {
    clientId,
    authenticationType: 'tls_client_auth',
    tlsClientAuthSanDns: 'lab-gw.example',
    certificateBound: true,
    allowedScopes: 'read',
  });
  const answer = await httpsCall(`${server.url}/oauth2/token`, {
    ca: serverCa.cert,
    client: gateway,
    body: `grant_type=client_credentials&scope=read&client_id=${clientId}`,
  });
  expect(answer.status).toBe(200);
  return parsedAs<TokenBody>(answer.body).access_token;
}

const callApi = (token: string, certificate?: Issued) =>
  httpsCall(`https://127.0.0.1:${apachePort}/api`, { method: 'GET', ca: serverCa.cert, client: certificate, headers: { Authorization: `Bearer ${token}` } });

it('accepts the bound token over a connection with its certificate', async () => {
  const token = await boundToken();
  expect((await callApi(token, gateway)).status).toBe(200);
});

it('refuses the bound token with another certificate of the same CA and subject', async () => {
  const token = await boundToken();
  expect((await callApi(token, otherGateway)).status).toBe(401);
});

it('refuses the bound token without a certificate', async () => {
  const token = await boundToken();
  expect((await callApi(token)).status).toBe(401);
});
