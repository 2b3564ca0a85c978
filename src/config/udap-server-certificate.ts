import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

/**
 * A certificate the server signs UDAP metadata with (docs/reference/trust-communities.md#discovery):
 * the server's own (UDAP_CERT_FILE, UDAP_KEY_FILE) or a community's (`serverCertificate`,
 * `serverKey`). The IG's discovery rules ask that `signed_metadata`'s `iss`, the server's base URL,
 * be a SAN URI of the leaf of its `x5c` chain; both kinds are therefore held to the same checks.
 */
export type UdapServerCertificate = {
  /** The chain, leaf first, as base64 DER: `signed_metadata`'s `x5c`. */
  x5c: string[];
  /** The leaf's RSA private key. */
  key: KeyObject;
  /** The leaf's validity, milliseconds since the epoch. */
  notBefore: number;
  notAfter: number;
};

/** RSA moduli below this are refused (RFC 7518 §3.3; as common/rsa-bounds.ts, which config/ may not import). */
export const MIN_RSA_MODULUS_BITS = 2048;

/** The most certificates a chain may hold (a leaf, intermediates, perhaps a root). */
export const MAX_CHAIN_CERTIFICATES = 10;

/** Why a certificate and key cannot sign UDAP metadata: `part` names the certificate or the key. */
export class UdapServerCertificateError extends Error {
  constructor(
    readonly part: 'certificate' | 'key',
    message: string,
  ) {
    super(message);
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Reads a PEM chain (leaf first) and the leaf's PEM private key, and checks them: every
 * certificate readable, the leaf within its validity at `now` with a SAN URI equal to `issuer`,
 * the key an RSA key of at least 2048 bits that is the leaf's. Throws a UdapServerCertificateError
 * whose message never holds the key.
 */
export function readUdapServerCertificate(chainPem: string, keyPem: string, issuer: string, now = Date.now()): UdapServerCertificate {
  const blocks = chainPem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new UdapServerCertificateError('certificate', 'holds no PEM certificate');
  if (blocks.length > MAX_CHAIN_CERTIFICATES) {
    throw new UdapServerCertificateError('certificate', `holds more than ${MAX_CHAIN_CERTIFICATES} certificates`);
  }
  const certificates = blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new UdapServerCertificateError('certificate', `certificate number ${index + 1} cannot be read`);
    }
  });
  const leaf = certificates[0];
  if (now < Date.parse(leaf.validFrom)) throw new UdapServerCertificateError('certificate', 'its first certificate (the leaf) is not yet valid');
  if (now > Date.parse(leaf.validTo)) throw new UdapServerCertificateError('certificate', 'its first certificate (the leaf) has expired');
  if (!sanUris(leaf).includes(issuer)) {
    throw new UdapServerCertificateError('certificate', `its first certificate (the leaf) has no subjectAltName URI equal to the issuer ${issuer}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new UdapServerCertificateError('key', 'is not a readable PEM private key (unencrypted PKCS#8 or PKCS#1)');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new UdapServerCertificateError('key', 'must be an RSA key (signed_metadata is signed with RS256)');
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_MODULUS_BITS) {
    throw new UdapServerCertificateError('key', `must be an RSA key of at least ${MIN_RSA_MODULUS_BITS} bits`);
  }
  if (!leaf.checkPrivateKey(key)) throw new UdapServerCertificateError('key', "is not the private key of the certificate's leaf");
  return {
    x5c: certificates.map((certificate) => certificate.raw.toString('base64')),
    key,
    notBefore: Date.parse(leaf.validFrom),
    notAfter: Date.parse(leaf.validTo),
  };
}

/**
 * The leaf's SAN URIs, from Node's `subjectAltName` text: `URI:value` entries separated by
 * `, `; a value holding a comma or a quote is written as a JSON string.
 */
export function sanUris(certificate: X509Certificate): string[] {
  const text = certificate.subjectAltName ?? '';
  const entries = text.match(/[A-Za-z ]+:(?:"(?:[^"\\]|\\.)*"|[^,]*)/g) ?? [];
  const uris: string[] = [];
  for (const entry of entries) {
    const match = /^\s*URI:(.*)$/s.exec(entry);
    if (!match) continue;
    const value = match[1];
    try {
      uris.push(value.startsWith('"') ? (JSON.parse(value) as string) : value);
    } catch {
      // An entry Node did not quote as JSON: not one this server issued, skipped.
    }
  }
  return uris;
}
