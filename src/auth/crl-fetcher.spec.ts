import { webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import {
  BasicConstraintsExtension,
  CRLDistributionPointsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  X509CertificateGenerator,
  X509CrlGenerator,
} from '@peculiar/x509';
import { CompactSign } from 'jose';
import type { AppConfig } from '../config/app-config.js';
import { UdapAnchors, UdapCertificateError, UdapCertificateErrorCode, UdapChainVerifier } from '../certificates/udap-chain.js';
import { CrlFetcher, CrlUnavailable, MAX_CRL_BYTES } from './crl-fetcher.js';

// A CA, a leaf and the CA's CRL (listing the leaf), served by a loopback HTTP server below the
// ephemeral port range; each test says what the server answers on which path.

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 86_400_000;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server;
let base: string;
let routes: Map<string, Handler>;
let requested: string[];
let crlDer: Uint8Array;
let leafJws: string;
let anchors: UdapAnchors;

const allowHttp = new CrlFetcher({ jwksUriAllowHttp: true } as AppConfig);
const guarded = new CrlFetcher({ jwksUriAllowHttp: false } as AppConfig);

async function listenBelowEphemeralRange(): Promise<Server> {
  for (;;) {
    const candidate = createServer((request, response) => {
      requested.push(request.url ?? '');
      const handler = routes.get(request.url ?? '');
      if (handler) handler(request, response);
      else response.writeHead(404).end();
    });
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const bound = await new Promise<boolean>((done) => {
      candidate.once('error', () => done(false));
      candidate.listen(port, '127.0.0.1', () => done(true));
    });
    if (bound) return candidate;
  }
}

const serve =
  (body: Uint8Array | string, status = 200, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/pkix-crl', ...headers }).end(body);
  };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

beforeAll(async () => {
  requested = [];
  routes = new Map();
  server = await listenBelowEphemeralRange();
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const caKeys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const ca = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'C=US, O=Loopback Community, CN=Loopback Root',
    keys: caKeys,
    signingAlgorithm: EC,
    extensions: [new BasicConstraintsExtension(true, undefined, true), new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true)],
  });
  const leafKeys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const leaf = await X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=loopback-client',
    issuer: ca.subject,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: EC,
    extensions: [new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true), new CRLDistributionPointsExtension([`${base}/ca.crl`])],
  });
  const crl = await X509CrlGenerator.create({
    issuer: ca.subject,
    thisUpdate: new Date(Date.now() - 60_000),
    nextUpdate: new Date(Date.now() + DAY),
    signingAlgorithm: EC,
    signingKey: caKeys.privateKey,
    entries: [{ serialNumber: leaf.serialNumber, revocationDate: new Date(Date.now() - 60_000) }],
  });
  crlDer = new Uint8Array(crl.rawData);
  anchors = UdapAnchors.fromPem([ca.toString('pem')]);
  leafJws = await new CompactSign(new TextEncoder().encode('{"iss":"https://loopback.test/client"}'))
    .setProtectedHeader({ alg: 'ES256', x5c: [Buffer.from(leaf.rawData).toString('base64')] })
    .sign(leafKeys.privateKey);
});

beforeEach(() => {
  requested = [];
  routes = new Map();
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
});

afterEach(() => jest.restoreAllMocks());

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('CrlFetcher', () => {
  it('fetches a DER CRL from a loopback server when JWKS_URI_ALLOW_HTTP is on', async () => {
    routes.set('/ca.crl', serve(crlDer));
    expect(Buffer.from(await allowHttp.fetch(`${base}/ca.crl`))).toEqual(Buffer.from(crlDer));
  });

  it('reads a PEM CRL into its DER', async () => {
    routes.set('/ca.pem', serve(PemConverter.encode(crlDer, 'X509 CRL'), 200, { 'content-type': 'application/x-pem-file' }));
    expect(Buffer.from(await allowHttp.fetch(`${base}/ca.pem`))).toEqual(Buffer.from(crlDer));
  });

  it('refuses a PEM block that is not a CRL', async () => {
    routes.set('/broken.pem', serve('-----BEGIN X509 CRL-----\n!!!!\n-----END X509 CRL-----\n'));
    expect(await rejection(allowHttp.fetch(`${base}/broken.pem`))).toBeInstanceOf(CrlUnavailable);
  });

  it('refuses a loopback target when JWKS_URI_ALLOW_HTTP is off, and sends it no request', async () => {
    routes.set('/ca.crl', serve(crlDer));
    expect(await rejection(guarded.fetch(`${base}/ca.crl`))).toBeInstanceOf(CrlUnavailable);
    expect(requested).toEqual([]);
  });

  it('refuses a private address when JWKS_URI_ALLOW_HTTP is off', async () => {
    expect(await rejection(guarded.fetch('http://10.0.0.7/ca.crl'))).toBeInstanceOf(CrlUnavailable);
  });

  it('refuses a distribution point that is not an http or https URL', async () => {
    expect(await rejection(allowHttp.fetch('ldap://directory.test/cn=crl'))).toBeInstanceOf(CrlUnavailable);
  });

  it('does not follow a redirect', async () => {
    routes.set('/moved.crl', serve('', 302, { location: '/ca.crl' }));
    routes.set('/ca.crl', serve(crlDer));
    expect(await rejection(allowHttp.fetch(`${base}/moved.crl`))).toBeInstanceOf(CrlUnavailable);
    expect(requested).toEqual(['/moved.crl']);
  });

  it('refuses an answer other than 200', async () => {
    routes.set('/gone.crl', serve('gone', 410));
    expect(await rejection(allowHttp.fetch(`${base}/gone.crl`))).toBeInstanceOf(CrlUnavailable);
  });

  it('refuses a CRL larger than 1 MiB', async () => {
    routes.set('/huge.crl', serve(new Uint8Array(MAX_CRL_BYTES + 1)));
    expect(await rejection(allowHttp.fetch(`${base}/huge.crl`))).toBeInstanceOf(CrlUnavailable);
  });

  it('gives up on a server that does not answer', async () => {
    routes.set('/hangs.crl', () => undefined);
    expect(await rejection(allowHttp.fetch(`${base}/hangs.crl`))).toBeInstanceOf(CrlUnavailable);
  });

  it("logs why, without the URL's userinfo, and tells the caller only that the CRL could not be fetched", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = await rejection(allowHttp.fetch(`http://user:secret@127.0.0.1:${new URL(base).port}/missing.crl`));
    expect((error as Error).message).toBe('the CRL could not be fetched');
    expect(String(warn.mock.calls[0]?.[0])).toContain('answered HTTP 404');
    expect(String(warn.mock.calls[0]?.[0])).not.toContain('secret');
  });

  it('serves UdapChainVerifier: a leaf its CRL lists is refused as revoked', async () => {
    routes.set('/ca.crl', serve(crlDer));
    const verifier = new UdapChainVerifier({ fetchCrl: allowHttp.fetchCrl });
    const error = await rejection(verifier.verify(leafJws, anchors, 'require'));
    expect(error).toBeInstanceOf(UdapCertificateError);
    expect((error as UdapCertificateError).code).toBe(UdapCertificateErrorCode.Revoked);
  });

  it('serves UdapChainVerifier: with JWKS_URI_ALLOW_HTTP off, a loopback CRL is unavailable and the leaf refused', async () => {
    routes.set('/ca.crl', serve(crlDer));
    const verifier = new UdapChainVerifier({ fetchCrl: guarded.fetchCrl });
    expect(((await rejection(verifier.verify(leafJws, anchors, 'require'))) as UdapCertificateError).code).toBe(UdapCertificateErrorCode.CrlUnavailable);
  });
});
