import { X509Certificate } from 'node:crypto';

const KEY_MEMBERS: Record<string, string[]> = { RSA: ['n', 'e'], EC: ['crv', 'x', 'y'], OKP: ['crv', 'x'] };

/**
 * `self_signed_tls_client_auth` (RFC 8705 §2.2, docs/guides/mtls.md#self-signed-certificates):
 * the DER of the first `x5c` certificate of each key whose certificate carries that very key
 * (RFC 7517 §4.7); keys without `x5c`, or whose certificate holds another key, give none.
 */
export function selfSignedCertificates(keys: readonly Record<string, unknown>[]): Buffer[] {
  const found: Buffer[] = [];
  for (const jwk of keys) {
    const der = firstCertificateOf(jwk);
    if (der !== undefined) found.push(der);
  }
  return found;
}

/** The key's first x5c certificate when it is well-formed and carries the key, else undefined. */
export function firstCertificateOf(jwk: Record<string, unknown>): Buffer | undefined {
  const chain = jwk.x5c;
  if (!Array.isArray(chain) || typeof chain[0] !== 'string') return undefined;
  try {
    const certificate = new X509Certificate(Buffer.from(chain[0], 'base64'));
    const carried = certificate.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    const members = KEY_MEMBERS[String(jwk.kty)];
    if (!members || carried.kty !== jwk.kty || members.some((member) => carried[member] !== jwk[member])) return undefined;
    return Buffer.from(certificate.raw);
  } catch {
    return undefined;
  }
}
