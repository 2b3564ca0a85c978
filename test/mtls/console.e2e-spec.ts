import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { bodyOf, jwtPayload, type TokenBody } from '../support/bodies.js';
import { browserSuite } from '../support/browser.js';
import { CertificateFactory, thumbprintOf, type Issued } from '../support/certificates.js';
import { expect as expectPage } from '../support/page-expect.js';

// The console's client form with mutual TLS on (docs/guides/mtls.md#registering-a-client): the
// certificate methods, the subject value they match, certificate-bound tokens.

const HEADER = 'ssl-client-cert';
let dir: string;
let caFile: string;
let gateway: Issued;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-console-'));
  const make = new CertificateFactory(dir);
  const ca = await make.ca('network-ca', '/CN=Network CA');
  gateway = await make.leaf('lab-gw', ca, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  caFile = join(dir, 'cas.pem');
  writeFileSync(caFile, ca.cert);
}, 60_000);

const suite = browserSuite(() => ({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: HEADER, TRUST_PROXY: 'loopback', TLS_CLIENT_CA_FILE: caFile }));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('offers both certificate methods and certificate-bound tokens, as the metadata lists them', async () => {
  const { page } = await suite.signedInTab('Clients');
  const methods = page.getByLabel('Authentication method').locator('option');
  await expectPage(methods).toHaveCount(5);
  const values = await methods.evaluateAll((options: unknown[]) => options.map((option) => (option as { value: string }).value));
  expect(values).toEqual(expect.arrayContaining(['tls_client_auth', 'self_signed_tls_client_auth']));
  await expectPage(page.getByLabel('Certificate-bound access tokens')).toBeVisible();
});

it('enrols a certificate-bound tls_client_auth client matched by its SAN DNS name, without a secret', async () => {
  const { page } = await suite.signedInTab('Clients');
  const clientId = `lab-${randomBytes(4).toString('hex')}`;
  await page.getByLabel('Client ID').fill(clientId);
  await page.getByLabel('Client name').fill('Lab gateway');
  await page.getByLabel('Authentication method').selectOption('tls_client_auth');
  await page.getByLabel('Matched by').selectOption('tlsClientAuthSanDns');
  await page.getByLabel('Registered value').fill('lab-gw.example');
  await page.getByLabel('Allowed scopes').fill('read');
  await page.getByLabel('Certificate-bound access tokens').check();
  await page.getByRole('button', { name: 'Enrol client' }).click();
  await expectPage(page.getByRole('status')).toContainText(`Client ${clientId} enrolled.`);
  await expectPage(page.getByLabel('Client secret')).toHaveCount(0);
  await expectPage(page.getByRole('button', { name: `Rotate secret of ${clientId}` })).toHaveCount(0);
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: clientId }) });
  await expectPage(row).toContainText('tls_client_auth, certificate-bound tokens');
  const response = await request(suite.server.url)
    .post('/oauth2/token')
    .set(HEADER, encodeURIComponent(gateway.cert))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read', client_id: clientId })
    .expect(200);
  expect(jwtPayload<{ cnf?: unknown }>(bodyOf<TokenBody>(response).access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(gateway.cert) });
});

it('shows the refusal of a tls_client_auth client without a registered value beside that field', async () => {
  const { page } = await suite.signedInTab('Clients');
  await page.getByLabel('Client ID').fill(`lab-${randomBytes(4).toString('hex')}`);
  await page.getByLabel('Client name').fill('Lab gateway');
  await page.getByLabel('Authentication method').selectOption('tls_client_auth');
  await page.getByLabel('Allowed scopes').fill('read');
  await page.getByRole('button', { name: 'Enrol client' }).click();
  await expectPage(page.getByLabel('Registered value')).toHaveAttribute('aria-invalid', 'true');
});
