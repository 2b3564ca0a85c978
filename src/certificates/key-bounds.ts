import type { X509Certificate } from 'node:crypto';
import { MAX_RSA_MODULUS_BITS, RSA_PUBLIC_EXPONENT } from '../common/rsa-bounds.js';

/** The curves a client certificate's EC key may be on (Node's names of P-256, P-384, P-521). */
const CURVES: ReadonlySet<string> = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/**
 * Why a client certificate's key costs more to use than the server accepts, or undefined when it
 * is within bounds (docs/guides/mtls.md#bounded-handshakes): an RSA key over 4096 bits or with a
 * public exponent other than 65537, an EC key off P-256/P-384/P-521, or a key type with no cheap,
 * bounded verification (DSA, …). Ed25519 and Ed448 are fixed-cost. Read from the
 * SubjectPublicKeyInfo only: no signature is verified to answer.
 */
export function keyOutOfBounds(certificate: X509Certificate): string | undefined {
  const key = certificate.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      if ((details.modulusLength ?? Infinity) > MAX_RSA_MODULUS_BITS) return `its RSA key is over ${MAX_RSA_MODULUS_BITS} bits`;
      if (details.publicExponent !== BigInt(RSA_PUBLIC_EXPONENT)) return `its RSA public exponent is not ${RSA_PUBLIC_EXPONENT}`;
      return undefined;
    case 'ec':
      return CURVES.has(details.namedCurve ?? '') ? undefined : 'its EC key is not on P-256, P-384 or P-521';
    case 'ed25519':
    case 'ed448':
      return undefined;
    default:
      return 'its key type is not RSA, EC, Ed25519 or Ed448';
  }
}
