import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createClient } from '../support/factories.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';
import { CertificateFactory, x5cJwk, type Issued } from '../support/certificates.js';
import { JwksServer } from '../support/jwks-server.js';

import { startTestApp, type TestApp } from '../support/test-app.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';

// self_signed_tls_client_auth with a jwks_uri (docs/guides/mtls.md#self-signed-certificates): a
// certificate the cached key set does not hold fetches it again, at most once a minute.

const HEADER = 'x-client-cert';
let dir: string;
let server: TestApp;
let keys: JwksServer;
let first: Issued;
let second: Issued;
let third: Issued;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-jwks-uri-'));
  const make = new CertificateFactory(dir);
  [first, second, third] = await Promise.all([
    make.selfSigned('one', '/CN=device-1'),
    make.selfSigned('two', '/CN=device-1'),
    make.selfSigned('three', '/CN=device-1'),
  ]);
  keys = new JwksServer();
  await keys.start();
  server = await startTestApp({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: HEADER, TRUST_PROXY: 'loopback', JWKS_URI_ALLOW_HTTP: 'true' });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await keys?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const token = (clientId: string, certificate: Issued) =>
  request(server.url)
    .post('/oauth2/token')
    .set(HEADER, encodeURIComponent(certificate.cert))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read', client_id: clientId });

it('fetches the key set again for a new certificate, once a minute at most', async () => {
  const path = keys.nextPath();
  const jwksUri = keys.serve(path, { keys: [await x5cJwk(first)] });
  const clientId = `device-${randomBytes(4).toString('hex')}`;
  await createClient(server.app, { clientId, authenticationType: 'self_signed_tls_client_auth', jwksUri, allowedScopes: 'read' });
  expect((await token(clientId, first)).status).toBe(200);
  expect(keys.fetches(path)).toBe(1);
  // The client publishes its next certificate: the first request with it fetches the set again.
  keys.serve(path, { keys: [await x5cJwk(first), await x5cJwk(second)] });
  expect((await token(clientId, second)).status).toBe(200);
  expect(keys.fetches(path)).toBe(2);
  // Within the minute, an unknown certificate does not fetch again.
  const refused = await token(clientId, third);
  expect(refused.status).toBe(401);
  expect(bodyOf<OAuthErrorBody>(refused).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
  expect(keys.fetches(path)).toBe(2);
});

it('answers a self-signed client over its failure limit 429 before its no-store key set is fetched', async () => {
  const path = keys.nextPath();
  const jwksUri = keys.serve(path, { keys: [await x5cJwk(first)] }, { 'Cache-Control': 'no-store' });
  const clientId = `device-${randomBytes(4).toString('hex')}`;
  await createClient(server.app, { clientId, authenticationType: 'self_signed_tls_client_auth', jwksUri, allowedScopes: 'read' });
  // Certificates the key set does not hold, as the probe sent them: each failure fetched the set.
  const statuses: number[] = [];
  for (let index = 0; index < 40; index += 1) statuses.push((await token(clientId, third)).status);
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(15);
  // At most one fetch per verified attempt (two for the refetch of an unknown certificate), none for a refusal.
  expect(keys.fetches(path)).toBeLessThanOrEqual(2 * statuses.filter((status) => status === 401).length + 2);
  expect(keys.fetches(path)).toBeLessThan(statuses.length);
});
