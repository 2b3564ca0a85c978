import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from '../support/factories.js';
import { parsedAs, type TokenBody } from '../support/bodies.js';
import { CertificateFactory, httpsCall, run, type Issued } from '../support/certificates.js';
import { eventually } from '../support/processes.js';

import { freePort, type TestApp, startTestApp } from '../support/test-app.js';

// Apache's mod_oauth2 (Debian's libapache2-mod-oauth2, liboauth2) as a resource server checking
// our certificate-bound tokens (docs/guides/mtls.md#certificate-bound-tokens): it verifies the JWT
// with our jwks_uri and, with type=mtls, compares cnf["x5t#S256"] with the certificate of the
// connection the token arrives on (SSLVerifyClient optional_no_ca, SSLOptions +ExportCertData).

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';

let dir: string;
let server: TestApp;
let apache: ChildProcess | undefined;
let apachePort: number;
let serverCa: Issued;
let gateway: Issued;
let otherGateway: Issued;

function apacheConfig(root: string, port: number, serverCert: Issued, jwksUri: string): string {
  // unixd is built into Debian's Apache.
  const modules = ['mpm_event', 'authn_core', 'authz_core', 'authz_user', 'ssl', 'oauth2'];
  return [
    ...modules.map((name) => `LoadModule ${name}_module ${MODULES}/mod_${name}.so`),
    `ServerRoot ${root}`,
    `PidFile ${root}/httpd.pid`,
    `ErrorLog ${root}/error.log`,
    'LogLevel warn',
    `Listen 127.0.0.1:${port}`,
    'ServerName localhost',
    `DocumentRoot ${root}/htdocs`,
    'User nobody',
    'Group nogroup',
    `Mutex file:${root} default`,
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
  if (!existsSync(APACHE) || !existsSync(`${MODULES}/mod_oauth2.so`)) {
    throw new Error('this test needs Apache and mod_oauth2: apt-get install -y apache2 libapache2-mod-oauth2');
  }
  dir = mkdtempSync(join(tmpdir(), 'mod-oauth2-mtls-'));
  const make = new CertificateFactory(dir);
  serverCa = await make.ca('server-ca', '/CN=Test Server CA');
  const serverCert = await make.leaf('server', serverCa, '/CN=localhost', { san: 'DNS:localhost,IP:127.0.0.1' });
  const networkCa = await make.ca('network-ca', '/O=Example Health Network/CN=Network CA');
  gateway = await make.leaf('lab-gw', networkCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  otherGateway = await make.leaf('lab-gw-2', networkCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  const caFile = join(dir, 'cas.pem');
  writeFileSync(caFile, networkCa.cert);
  server = await startTestApp({ TLS_CERT_FILE: serverCert.certFile, TLS_KEY_FILE: serverCert.keyFile, MTLS: 'true', TLS_CLIENT_CA_FILE: caFile });

  const root = join(dir, 'apache');
  mkdirSync(join(root, 'htdocs'), { recursive: true });
  writeFileSync(join(root, 'htdocs', 'api'), 'protected\n');
  apachePort = await freePort();
  writeFileSync(join(root, 'httpd.conf'), apacheConfig(root, apachePort, serverCert, `${server.url}/oauth2/jwks`));
  // Apache reads ServerRoot's folder as the user it drops to; the temp folder must let it through.
  await run('chmod', ['-R', 'a+rX', dir]);
  apache = spawn(APACHE, ['-f', join(root, 'httpd.conf'), '-DFOREGROUND'], { stdio: 'ignore', env: { ...process.env, APACHE_RUN_DIR: root } });
  await eventually(
    async () => ((await httpsCall(`https://127.0.0.1:${apachePort}/`, { method: 'GET', ca: serverCa.cert })).status > 0 ? true : undefined),
    20_000,
    200,
  ).catch((error: unknown) => {
    const log = existsSync(join(root, 'error.log')) ? readFileSync(join(root, 'error.log'), 'utf8') : '';
    throw new Error(`Apache did not start: ${String(error)}\n${log}`);
  });
}, 180_000);

afterAll(async () => {
  if (apache && apache.exitCode === null) {
    const exited = new Promise((resolve) => apache!.once('exit', resolve));
    apache.kill('SIGTERM');
    await exited;
  }
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
