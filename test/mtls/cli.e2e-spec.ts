import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { parsedAs, jwtPayload, type TokenBody } from '../support/bodies.js';
import { CertificateFactory, thumbprintOf, x5cJwk, type Issued } from '../support/certificates.js';
import { runCli } from '../support/processes.js';

import { testDatabaseUrl, type TestApp, startTestApp } from '../support/test-app.js';

// `client create --auth-method tls_client_auth --tls-…` and `self_signed_tls_client_auth` (docs/guides/mtls.md#registering-a-client).

const HEADER = 'ssl-client-cert';
let dir: string;
let caFile: string;
let server: TestApp;
let gateway: Issued;
let device: Issued;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
const ISSUER_DN = 'CN=Network CA,O=Example Health Network';

const mtlsEnvironment = () => ({
  DATABASE_URL: testDatabaseUrl(),
  MTLS: 'true',
  MTLS_CLIENT_CERT_HEADER: HEADER,
  TRUST_PROXY: 'loopback',
  TLS_CLIENT_CA_FILE: caFile,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-cli-'));
  const make = new CertificateFactory(dir);
  const ca = await make.ca('network-ca', '/O=Example Health Network/CN=Network CA');
  gateway = await make.leaf('lab-gw', ca, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'IP:192.0.2.10' });
  device = await make.selfSigned('device', '/CN=device-9');
  caFile = join(dir, 'cas.pem');
  writeFileSync(caFile, ca.cert);
  server = await startTestApp({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: HEADER, TRUST_PROXY: 'loopback', TLS_CLIENT_CA_FILE: caFile });
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `client create` of a client named Lab with scope read, then `extra` (its method and certificate options). */
const createLabClient = (clientId: string, extra: string[], environment: Record<string, string> = mtlsEnvironment()) =>
  runCli(['client', 'create', '--client-id', clientId, '--name', 'Lab', '--scopes', 'read', ...extra], environment);

const token = (clientId: string, certificate: Issued) =>
  request(server.url)
    .post('/oauth2/token')
    .set(HEADER, encodeURIComponent(certificate.cert))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read', client_id: clientId });

it('registers a certificate-bound tls_client_auth client with --tls-subject-dn, printing no secret', async () => {
  const clientId = unique('cli-lab');
  const result = await createLabClient(clientId, [
    '--auth-method',
    'tls_client_auth',
    '--tls-subject-dn',
    'CN=lab-gw,O=Example Lab,C=DE',
    '--cert-bound',
    '--json',
  ]);
  expect(result.stderr).toBe('');
  expect(parsedAs<Record<string, unknown>>(result.stdout)).toEqual({ client_id: clientId });
  const response = await token(clientId, gateway);
  expect(response.status).toBe(200);
  expect(jwtPayload<{ cnf?: unknown }>((response.body as TokenBody).access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(gateway.cert) });
});

it('registers a client bound to its issuer with --tls-issuer-dn: another issuer does not match', async () => {
  const [bound, elsewhere] = [unique('cli-issuer'), unique('cli-issuer-other')];
  const subject = ['--auth-method', 'tls_client_auth', '--tls-subject-dn', 'CN=lab-gw,O=Example Lab,C=DE'];
  expect((await createLabClient(bound, [...subject, '--tls-issuer-dn', ISSUER_DN])).code).toBe(0);
  expect((await createLabClient(elsewhere, [...subject, '--tls-issuer-dn', 'CN=Another CA'])).code).toBe(0);
  expect((await token(bound, gateway)).status).toBe(200);
  expect((await token(elsewhere, gateway)).status).toBe(401);
});

it('registers a client matched by --tls-san-ip', async () => {
  const clientId = unique('cli-ip');
  const result = await createLabClient(clientId, ['--auth-method', 'tls_client_auth', '--tls-san-ip', '192.0.2.10']);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('authenticates with tls_client_auth (no secret)');
  expect((await token(clientId, gateway)).status).toBe(200);
});

it('registers a self_signed_tls_client_auth client from a JWKS file with x5c', async () => {
  const clientId = unique('cli-device');
  const jwksFile = join(dir, `${clientId}.json`);
  writeFileSync(jwksFile, JSON.stringify({ keys: [await x5cJwk(device)] }));
  const result = await runCli(
    [
      'client',
      'create',
      '--client-id',
      clientId,
      '--name',
      'Device',
      '--scopes',
      'read',
      '--auth-method',
      'self_signed_tls_client_auth',
      '--jwks-file',
      jwksFile,
    ],
    mtlsEnvironment(),
  );
  expect(result.code).toBe(0);
  expect((await token(clientId, device)).status).toBe(200);
});

it('refuses tls_client_auth with two subject values, in one line', async () => {
  const result = await createLabClient(unique('cli-two'), [
    '--auth-method',
    'tls_client_auth',
    '--tls-san-dns',
    'a.example',
    '--tls-san-uri',
    'https://a.example',
  ]);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^error: a tls_client_auth client registers exactly one of/);
});

it('refuses tls_client_auth on a server without mutual TLS', async () => {
  const result = await createLabClient(unique('cli-off'), ['--auth-method', 'tls_client_auth', '--tls-san-dns', 'a.example'], {
    DATABASE_URL: testDatabaseUrl(),
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/tls_client_auth needs mutual TLS/);
});

it('registers a tls_client_auth client with MTLS=true alone, without the listener’s TLS files or proxy header, and the server authenticates it', async () => {
  const clientId = unique('cli-lab-plain');
  const result = await createLabClient(clientId, ['--auth-method', 'tls_client_auth', '--tls-san-ip', '192.0.2.10'], {
    DATABASE_URL: testDatabaseUrl(),
    MTLS: 'true',
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect((await token(clientId, gateway)).status).toBe(200);
});

it('registers a self_signed_tls_client_auth client with MTLS=true alone', async () => {
  const clientId = unique('cli-device-plain');
  const jwks = join(dir, `${clientId}.json`);
  writeFileSync(jwks, JSON.stringify({ keys: [await x5cJwk(device)] }));
  const result = await createLabClient(clientId, ['--auth-method', 'self_signed_tls_client_auth', '--jwks-file', jwks], {
    DATABASE_URL: testDatabaseUrl(),
    MTLS: 'true',
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect((await token(clientId, device)).status).toBe(200);
});

it('says it needs MTLS=true when a certificate method is asked without it, naming the variable', async () => {
  const result = await createLabClient(unique('cli-lab-off'), ['--auth-method', 'tls_client_auth', '--tls-san-ip', '192.0.2.10'], {
    DATABASE_URL: testDatabaseUrl(),
  });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('MTLS=true');
});
