import { webcrypto } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import 'reflect-metadata';
import { BasicConstraintsExtension, KeyUsageFlags, KeyUsagesExtension, X509CertificateGenerator } from '@peculiar/x509';

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
