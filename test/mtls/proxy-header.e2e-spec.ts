import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createClient } from '../support/factories.js';
import { add, patchAdmin, freshIds } from '../support/admin.js';
import { bodyOf, jwtPayload, type TokenBody, type OAuthErrorBody } from '../support/bodies.js';
import { CertificateFactory, derOf, thumbprintOf, type Issued } from '../support/certificates.js';
import { eventually } from '../support/processes.js';

import { redeem, registeredResource, ticketFor, umaWorld } from '../support/uma.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';

// Behind a TLS-terminating proxy (docs/guides/mtls.md#behind-nginx): MTLS_CLIENT_CERT_HEADER
// carries the certificate, believed only from the proxies TRUST_PROXY names. Two instances share
// one database: a client registered on one authenticates on the other, and a change cuts it off there.

const HEADER = 'ssl-client-cert';
type Claims = { cnf?: Record<string, string> };

let dir: string;
let trusted: TestApp;
let second: TestApp;
let untrusted: TestApp;
let gateway: Issued;
let otherCa: Issued;
const logLines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-proxy-test-'));
  const make = new CertificateFactory(dir);
  const networkCa = await make.ca('network-ca', '/C=DE/O=Example Health Network/CN=Network CA');
  const foreignCa = await make.ca('other-ca', '/CN=Other CA');
  gateway = await make.leaf('lab-gw', networkCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  otherCa = await make.leaf('lab-gw-other', foreignCa, '/C=DE/O=Example Lab/CN=lab-gw', { san: 'DNS:lab-gw.example' });
  const caFile = join(dir, 'client-cas.pem');
  writeFileSync(caFile, networkCa.cert);
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const environment = { MTLS: 'true', MTLS_CLIENT_CERT_HEADER: HEADER, TLS_CLIENT_CA_FILE: caFile, TRUST_PROXY: 'loopback', LOG_LEVEL: 'debug' };
  trusted = await startTestApp(environment, { logs });
  second = await startTestApp(environment);
  // This instance trusts the proxy at 127.0.0.1 alone: a peer at 127.0.0.2 is not it.
  untrusted = await startTestApp({ ...environment, TRUST_PROXY: '127.0.0.1' }, { logs });
}, 120_000);

afterAll(async () => {
  await Promise.all([trusted?.close(), second?.close(), untrusted?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const escaped = (issued: Issued) => encodeURIComponent(issued.cert);
const rfc9440 = (issued: Issued) => `:${derOf(issued.cert).toString('base64')}:`;

async function labClient(server: TestApp, overrides: Record<string, unknown> = {}): Promise<string> {
  const clientId = `lab-${randomBytes(5).toString('hex')}`;
  await createClient(server.app, {
    clientId,
    authenticationType: 'tls_client_auth',
    tlsClientAuthSanDns: 'lab-gw.example',
    certificateBound: true,
    ...overrides,
  });
  return clientId;
}

function tokenVia(server: TestApp, clientId: string, header?: string) {
  const pending = request(server.url).post('/oauth2/token').type('form');
  if (header !== undefined) pending.set(HEADER, header);
  return pending.send({ grant_type: 'client_credentials', scope: 'read', client_id: clientId });
}

it('believes a URL-encoded PEM (NGINX $ssl_client_escaped_cert) from a trusted proxy', async () => {
  const clientId = await labClient(trusted);
  const response = await tokenVia(trusted, clientId, escaped(gateway));
  expect(response.status).toBe(200);
  expect(jwtPayload<Claims>(bodyOf<TokenBody>(response).access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(gateway.cert) });
});

it('believes an RFC 9440 byte sequence from a trusted proxy', async () => {
  const clientId = await labClient(trusted);
  expect((await tokenVia(trusted, clientId, rfc9440(gateway))).status).toBe(200);
});

it('refuses a certificate of another CA forwarded by a trusted proxy', async () => {
  const clientId = await labClient(trusted);
  const response = await tokenVia(trusted, clientId, escaped(otherCa));
  expect(response.status).toBe(401);
  expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
  await eventually(() =>
    logLines.some((line) => line.includes(response.headers['x-request-id']) && /does not chain to a trusted CA/.test(line)) ? true : undefined,
  );
});

/** A token request from another loopback address (127.0.0.2), as the probe sent it with curl --interface. */
function tokenFromAnotherPeer(server: TestApp, clientId: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'read', client_id: clientId }).toString();
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const pending = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress: '127.0.0.2',
        method: 'POST',
        path: '/oauth2/token',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    pending.on('error', reject);
    pending.end(body);
  });
}

it('ignores the header from a peer TRUST_PROXY does not name, whatever X-Forwarded-For says, with a warning that holds no certificate', async () => {
  const clientId = await labClient(untrusted);
  // The client's public certificate alone, handed in by a peer that claims to come through the proxy.
  const response = await tokenFromAnotherPeer(untrusted, clientId, { [HEADER]: escaped(gateway), 'x-forwarded-for': '127.0.0.1' });
  expect(response.status).toBe(401);
  expect((JSON.parse(response.body) as OAuthErrorBody).error).toBe('invalid_client');
  expect(response.body).not.toContain('access_token');
  expect((JSON.parse(response.body) as OAuthErrorBody).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
  await eventually(() => (logLines.some((line) => line.includes('TRUST_PROXY does not trust')) ? true : undefined));
});

it('takes an unparsable header for no certificate, with a warning that holds no value', async () => {
  const clientId = await labClient(trusted);
  const response = await tokenVia(trusted, clientId, escaped(gateway).slice(0, 200));
  expect(response.status).toBe(401);
  expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
  await eventually(() =>
    logLines.some((line) => line.includes(response.headers['x-request-id']) && /no client certificate was presented/.test(line)) ? true : undefined,
  );
  await eventually(() => (logLines.some((line) => line.includes('forwarded client certificate was ignored')) ? true : undefined));
});

it('never logs the forwarded value', () => {
  const logged = logLines.join('');
  expect(logged).not.toContain(escaped(gateway).slice(40, 100));
  expect(logged).not.toContain(derOf(gateway.cert).toString('base64').slice(20, 80));
});

it("authenticates on a second instance a client registered on the first, and the first one's change cuts it off there", async () => {
  const [recordId] = freshIds(1);
  const clientId = `lab-${recordId}`;
  const created = await patchAdmin(trusted, [
    add('uma-client', {
      id: recordId,
      attributes: { clientId, clientName: 'Lab', allowedScopes: 'read', clientAuthenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'lab-gw.example' },
    }),
  ]);
  expect(created.status).toBe(200);
  await eventually(async () => ((await tokenVia(second, clientId, escaped(gateway))).status === 200 ? true : undefined), 5_000, 100);
  const changed = await patchAdmin(trusted, [
    {
      op: 'replace',
      path: `/uma-client/${recordId}`,
      value: { type: 'uma-client', id: String(recordId), attributes: { tlsClientAuthSubjectDn: 'CN=someone-else' } },
    },
  ]);
  expect(changed.status).toBe(200);
  await eventually(async () => ((await tokenVia(second, clientId, escaped(gateway))).status === 401 ? true : undefined), 5_000, 100);
});

it('binds the RPT of a certificate-bound client, and a redemption without the certificate does not use the ticket up', async () => {
  const world = await umaWorld(trusted);
  const bound = await patchAdmin(trusted, [
    {
      op: 'replace',
      path: `/uma-client/${world.client}`,
      value: { type: 'uma-client', id: String(world.client), attributes: { tlsClientCertificateBoundAccessTokens: true } },
    },
  ]);
  expect(bound.status).toBe(200);
  const ticket = await ticketFor(trusted, world, await registeredResource(trusted, world));
  await eventually(async () => {
    const refused = await redeem(trusted, world, { ticket });
    return refused.status === 400 && bodyOf<OAuthErrorBody>(refused).error === 'invalid_request' ? true : undefined;
  });
  const redeemed = await redeem(trusted, world, { ticket }, { [HEADER]: escaped(gateway) });
  expect(redeemed.status).toBe(200);
  expect(jwtPayload<Claims>(bodyOf<TokenBody>(redeemed).access_token).cnf).toEqual({ 'x5t#S256': thumbprintOf(gateway.cert) });
});
