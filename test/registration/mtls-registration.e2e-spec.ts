import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { JSON_API } from '../support/admin.js';
import { bodyOf, jwtPayload, type TokenBody } from '../support/bodies.js';
import { CertificateFactory, thumbprintOf, x5cJwk, type Issued } from '../support/certificates.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// Mutual TLS clients registering themselves (docs/guides/dynamic-registration.md, docs/guides/mtls.md),
// behind a trusted proxy that forwards the certificate in a header.

const HEADER = 'ssl-client-cert';
type Claims = { cnf?: Record<string, string> };
/** What the tests read of an RFC 7591 answer (or of an error). */
type Registered = Record<string, unknown> & { client_id: string; registration_access_token: string; error?: string };

let dir: string;
let server: TestApp;
let gateway: Issued;
let renewed: Issued;
let selfSigned: Issued;
let iat: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-registration-test-'));
  const make = new CertificateFactory(dir);
  const networkCa = await make.ca('network-ca', '/C=DE/O=Example Health Network/CN=Network CA');
  gateway = await make.leaf('lab-gw', networkCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  renewed = await make.leaf('lab-gw-2', networkCa, '/C=DE/O=Example Lab/CN=lab-gw-2', { san: 'DNS:lab-gw-2.example' });
  selfSigned = await make.selfSigned('device', '/CN=device-7');
  const caFile = join(dir, 'client-cas.pem');
  writeFileSync(caFile, networkCa.cert);
  server = await startTestApp({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: HEADER, TLS_CLIENT_CA_FILE: caFile, TRUST_PROXY: 'loopback' });
  const created = await request(server.adminUrl)
    .post('/admin/initial-access-token')
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'initial-access-token', attributes: { name: 'lab gateways', scopeCeiling: 'read', maxUses: 100 } } }));
  expect(created.status).toBe(201);
  iat = bodyOf<{ data: { meta: { token: string } } }>(created).data.meta.token;
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function register(body: Record<string, unknown>): Promise<{ status: number; body: Registered }> {
  const response = await request(server.url)
    .post('/oauth2/register')
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${iat}`)
    .send(JSON.stringify(body));
  return { status: response.status, body: bodyOf<Registered>(response) };
}

async function update(registered: Registered, body: Record<string, unknown>): Promise<{ status: number; body: Registered }> {
  const response = await request(server.url)
    .put(`/oauth2/register/${registered.client_id}`)
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${registered.registration_access_token}`)
    .send(JSON.stringify({ client_id: registered.client_id, ...body }));
  return { status: response.status, body: bodyOf<Registered>(response) };
}

function token(clientId: string, certificate?: Issued) {
  const pending = request(server.url).post('/oauth2/token').type('form');
  if (certificate) pending.set(HEADER, encodeURIComponent(certificate.cert));
  return pending.send({ grant_type: 'client_credentials', scope: 'read', client_id: clientId });
}

const TLS_CLIENT = {
  token_endpoint_auth_method: 'tls_client_auth',
  tls_client_auth_san_dns: 'lab-gw.example',
  tls_client_certificate_bound_access_tokens: true,
};

it('registers a tls_client_auth client whose certificate gets it bound tokens', async () => {
  const registered = await register(TLS_CLIENT);
  expect(registered.status).toBe(201);
  expect(registered.body).toMatchObject(TLS_CLIENT);
  expect(registered.body.client_secret).toBeUndefined();
  const response = await token(registered.body.client_id, gateway);
  expect(response.status).toBe(200);
  expect(bodyOf<TokenBody>(response).token_type).toBe('Bearer');
  expect(jwtPayload<Claims>(bodyOf<TokenBody>(response).access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(gateway.cert) });
  expect((await token(registered.body.client_id)).status).toBe(401);
});

it('registers a self_signed_tls_client_auth client with its certificate in jwks', async () => {
  const registered = await register({ token_endpoint_auth_method: 'self_signed_tls_client_auth', jwks: { keys: [await x5cJwk(selfSigned)] } });
  expect(registered.status).toBe(201);
  expect((await token(registered.body.client_id, selfSigned)).status).toBe(200);
  expect((await token(registered.body.client_id, gateway)).status).toBe(401);
});

it('moves a tls_client_auth client to the subject value of an update: the new certificate works, the old one not', async () => {
  const registered = await register(TLS_CLIENT);
  const updated = await update(registered.body, { ...TLS_CLIENT, tls_client_auth_san_dns: 'lab-gw-2.example' });
  expect(updated.status).toBe(200);
  expect(updated.body.tls_client_auth_san_dns).toBe('lab-gw-2.example');
  expect((await token(registered.body.client_id, renewed)).status).toBe(200);
  expect((await token(registered.body.client_id, gateway)).status).toBe(401);
});

it('returns certificate binding to its default when an update omits it', async () => {
  const registered = await register(TLS_CLIENT);
  const rest: Record<string, unknown> = { ...TLS_CLIENT };
  delete rest.tls_client_certificate_bound_access_tokens;
  const updated = await update(registered.body, rest);
  expect(updated.status).toBe(200);
  expect(updated.body.tls_client_certificate_bound_access_tokens).toBe(false);
  const response = await token(registered.body.client_id, gateway);
  expect(response.status).toBe(200);
  expect(jwtPayload<Claims>(bodyOf<TokenBody>(response).access_token).cnf).toBeUndefined();
});

it('refuses DPoP and certificate binding together, storing nothing', async () => {
  const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
  const refused = await register({ ...TLS_CLIENT, dpop_bound_access_tokens: true });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('invalid_client_metadata');
  const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
  expect(after).toBe(before);
});

it('registers a tls_client_auth client bound to its issuer with tls_client_auth_issuer_dn: another issuer does not match', async () => {
  const bound = await register({ ...TLS_CLIENT, tls_client_auth_issuer_dn: 'CN=Network CA,O=Example Health Network,C=DE' });
  expect(bound.status).toBe(201);
  expect(bound.body).toMatchObject({ tls_client_auth_issuer_dn: 'CN=Network CA,O=Example Health Network,C=DE' });
  expect((await token(bound.body.client_id, gateway)).status).toBe(200);
  const elsewhere = await register({ ...TLS_CLIENT, tls_client_auth_issuer_dn: 'CN=Other CA' });
  expect(elsewhere.status).toBe(201);
  expect((await token(elsewhere.body.client_id, gateway)).status).toBe(401);
});

it('refuses tls_client_auth_issuer_dn that is no DN, or for another method, with 400 invalid_client_metadata naming it', async () => {
  for (const body of [
    { ...TLS_CLIENT, tls_client_auth_issuer_dn: 'CN' },
    { token_endpoint_auth_method: 'self_signed_tls_client_auth', jwks: { keys: [await x5cJwk(selfSigned)] }, tls_client_auth_issuer_dn: 'CN=Network CA' },
  ]) {
    const refused = await register(body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_client_metadata' });
    expect(JSON.stringify(refused.body)).toContain('tls_client_auth_issuer_dn');
  }
});
