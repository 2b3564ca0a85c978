import { webcrypto } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import 'reflect-metadata';
import {
  BasicConstraintsExtension,
  CRLDistributionPointsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509Certificate,
  X509CertificateGenerator,
  X509CrlGenerator,
} from '@peculiar/x509';
import { CompactSign } from 'jose';

const DAY = 86_400_000;
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
let serial = 0x2000 + Math.floor(Math.random() * 0x10000);

/** A self-signed PEM certificate for a trust community's anchors: a CA (basicConstraints CA:TRUE) or not, valid until `notAfter`. */
export async function selfSignedCertificate(name: string, ca: boolean, notAfter = Date.now() + 365 * DAY): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const issued = await X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16),
    name,
    keys,
    notBefore: new Date(Math.min(Date.now(), notAfter) - 30 * DAY),
    notAfter: new Date(notAfter),
    signingAlgorithm: EC_P256,
    extensions: [
      new BasicConstraintsExtension(ca, undefined, true),
      new KeyUsagesExtension(ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature, true),
    ],
  });
  return issued.toString('pem');
}

const RSA_2048 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]) };

export type UdapServerFiles = {
  /** The chain, leaf first (leaf, then its CA), PEM. */
  chain: string;
  /** The leaf's private key, PKCS#8 PEM. */
  key: string;
  /** The CA's certificate, PEM (the chain's second certificate). */
  ca: string;
};

/**
 * A server certificate for UDAP discovery: an RSA leaf with subjectAltName URIs `uris`, issued by
 * a fresh RSA CA, and the leaf's key. `bits` sizes the leaf's key; `notBefore` and `notAfter` its validity.
 */
export async function udapServerCertificate(
  uris: string[],
  options: { bits?: number; notBefore?: number; notAfter?: number; name?: string } = {},
): Promise<UdapServerFiles> {
  const { webcrypto: crypto } = await import('node:crypto');
  const { SubjectAlternativeNameExtension, cryptoProvider } = await import('@peculiar/x509');
  cryptoProvider.set(crypto as unknown as Parameters<typeof cryptoProvider.set>[0]);
  const caKeys = await crypto.subtle.generateKey({ ...RSA_2048, modulusLength: 2048 }, true, ['sign', 'verify']);
  const leafKeys = await crypto.subtle.generateKey({ ...RSA_2048, modulusLength: options.bits ?? 2048 }, true, ['sign', 'verify']);
  const name = options.name ?? 'UDAP server';
  const ca = await X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16),
    name: `CN=${name} CA`,
    keys: caKeys,
    notBefore: new Date(Date.now() - 30 * DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    signingAlgorithm: RSA_2048,
    extensions: [new BasicConstraintsExtension(true, undefined, true), new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true)],
  });
  const leaf = await X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16),
    subject: `CN=${name}`,
    issuer: ca.subject,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore: new Date(options.notBefore ?? Date.now() - DAY),
    notAfter: new Date(options.notAfter ?? Date.now() + 365 * DAY),
    signingAlgorithm: RSA_2048,
    extensions: [
      new BasicConstraintsExtension(false, undefined, true),
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
      new SubjectAlternativeNameExtension(uris.map((value) => ({ type: 'url' as const, value }))),
    ],
  });
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey)).toString('base64');
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { chain: `${leaf.toString('pem')}\n${ca.toString('pem')}\n`, key, ca: ca.toString('pem') };
}

/** Writes a UDAP server certificate's chain and key into `dir`: the UDAP_CERT_FILE and UDAP_KEY_FILE of a test server. */
export async function writeUdapServerFiles(dir: string, issuer: string): Promise<{ UDAP_CERT_FILE: string; UDAP_KEY_FILE: string; files: UdapServerFiles }> {
  mkdirSync(dir, { recursive: true });
  const files = await udapServerCertificate([issuer]);
  writeFileSync(join(dir, 'udap-server.pem'), files.chain);
  writeFileSync(join(dir, 'udap-server.key'), files.key, { mode: 0o600 });
  return { UDAP_CERT_FILE: join(dir, 'udap-server.pem'), UDAP_KEY_FILE: join(dir, 'udap-server.key'), files };
}

// A UDAP test PKI (docs/reference/trust-communities.md#certificate-checks): community roots, an
// intermediate, leaves with SAN URIs (current, expired, not yet valid, revoked) whose
// cRLDistributionPoints name CRLs served on loopback by `startCrlServer`, and JWTs signed by a
// leaf with its chain in x5c.

const CRL_LIFETIME_MS = 1_000;
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };

/** A certificate with its key pair; `crlUrl`: where its own CRL (of what it issued) is served, for a CA. */
export type TestIssued = { certificate: X509Certificate; keys: webcrypto.CryptoKeyPair; pem: string; der: string; crlUrl?: string };

/** Serves the CRLs of the CAs it is told about, on 127.0.0.1; `revoke` adds a certificate to its issuer's next CRL. */
export class CrlServer {
  private readonly revoked = new Map<string, TestIssued[]>();
  private readonly issuers = new Map<string, TestIssued>();
  private readonly lastServed = new Map<string, number>();
  fetches = 0;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<CrlServer> {
    let handler: (path: string) => Promise<Uint8Array | undefined> = () => Promise.resolve(undefined);
    const server = createServer((request, response) => {
      void handler(request.url ?? '/').then(
        (body) => {
          if (!body) {
            response.writeHead(404).end();
            return;
          }
          response.writeHead(200, { 'Content-Type': 'application/pkix-crl' }).end(Buffer.from(body));
        },
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const crls = new CrlServer(server, `http://127.0.0.1:${port}`);
    handler = (path) => crls.crlAt(path);
    return crls;
  }

  /** The CRL URL of a CA named `name` (its certificates' cRLDistributionPoints). */
  urlFor(name: string): string {
    return `${this.baseUrl}/${encodeURIComponent(name)}.crl`;
  }

  register(ca: TestIssued): void {
    this.issuers.set(new URL(ca.crlUrl!).pathname, ca);
  }

  /**
   * Adds `certificate` to its issuer's CRL; resolves once every copy of that CRL served before
   * has passed its nextUpdate (a second), so that the server fetches the new one at its next check.
   */
  async revoke(issuer: TestIssued, certificate: TestIssued): Promise<void> {
    const path = new URL(issuer.crlUrl!).pathname;
    this.revoked.set(path, [...(this.revoked.get(path) ?? []), certificate]);
    const wait = (this.lastServed.get(path) ?? 0) + CRL_LIFETIME_MS + 50 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  private async crlAt(path: string): Promise<Uint8Array | undefined> {
    const issuer = this.issuers.get(path);
    if (!issuer) return undefined;
    this.fetches += 1;
    this.lastServed.set(path, Date.now());
    const crl = await X509CrlGenerator.create({
      issuer: issuer.certificate.subject,
      thisUpdate: new Date(Date.now() - 60_000),
      // Kept by the server for a second: a revocation shows a second later at most.
      nextUpdate: new Date(Date.now() + CRL_LIFETIME_MS),
      signingAlgorithm: EC_P256,
      signingKey: issuer.keys.privateKey,
      entries: (this.revoked.get(path) ?? []).map((entry) => ({ serialNumber: entry.certificate.serialNumber, revocationDate: new Date(Date.now() - DAY) })),
    });
    return new Uint8Array(crl.rawData);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function issued(certificate: X509Certificate, keys: webcrypto.CryptoKeyPair, crlUrl?: string): TestIssued {
  return { certificate, keys, pem: certificate.toString('pem'), der: Buffer.from(certificate.rawData).toString('base64'), crlUrl };
}

/** A community root (EC P-256), its CRL served by `crls`. */
export async function testRoot(name: string, crls: CrlServer): Promise<TestIssued> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16),
    name,
    keys,
    notBefore: new Date(Date.now() - 365 * DAY),
    notAfter: new Date(Date.now() + 3650 * DAY),
    signingAlgorithm: EC_P256,
    extensions: [new BasicConstraintsExtension(true, undefined, true), new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true)],
  });
  const root = issued(certificate, keys, crls.urlFor(name));
  crls.register(root);
  return root;
}

/** An intermediate CA under `issuer`, its own CRL served by `crls`. */
export async function testIntermediate(name: string, issuer: TestIssued, crls: CrlServer): Promise<TestIssued> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const certificate = await X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16),
    subject: name,
    issuer: issuer.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: EC_P256,
    notBefore: new Date(Date.now() - 30 * DAY),
    notAfter: new Date(Date.now() + 1000 * DAY),
    extensions: [
      new BasicConstraintsExtension(true, 0, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      new CRLDistributionPointsExtension([issuer.crlUrl!]),
    ],
  });
  const intermediate = issued(certificate, keys, crls.urlFor(name));
  crls.register(intermediate);
  return intermediate;
}

/** A member's leaf (RSA 2048, RS256) under `issuer`, with `sanUri` as its subjectAltName URI; `notBefore`/`notAfter` in ms. */
export async function testLeaf(
  subject: string,
  sanUri: string,
  issuer: TestIssued,
  validity: { notBefore?: number; notAfter?: number } = {},
): Promise<TestIssued> {
  const keys = await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const certificate = await X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16),
    subject,
    issuer: issuer.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: EC_P256,
    notBefore: new Date(validity.notBefore ?? Date.now() - DAY),
    notAfter: new Date(validity.notAfter ?? Date.now() + 365 * DAY),
    extensions: [
      new BasicConstraintsExtension(false),
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
      new SubjectAlternativeNameExtension([{ type: 'url', value: sanUri }]),
      new CRLDistributionPointsExtension([issuer.crlUrl!]),
    ],
  });
  return issued(certificate, keys);
}

/** A JWT signed RS256 by `leaf`, x5c = the leaf and `chain` (intermediates, leaf's issuer first). */
export async function udapJwt(leaf: TestIssued, chain: TestIssued[], claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'RS256', x5c: [leaf, ...chain].map((certificate) => certificate.der), ...header })
    .sign(leaf.keys.privateKey);
}
