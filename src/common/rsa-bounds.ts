/**
 * The RSA keys the server verifies signatures with before it knows who is asking
 * (docs/operations/security.md#bounded-key-cost): a client's JWKs, a DPoP proof's key and a
 * client certificate's key are held to the same bounds, since a verification's cost grows with
 * the modulus and the public exponent.
 */
/** RSA moduli outside these bounds are refused (RFC 7518 §3.3 asks for at least 2048 bits). */
export const MIN_RSA_MODULUS_BITS = 2048;
export const MAX_RSA_MODULUS_BITS = 4096;
/** The one RSA public exponent accepted: 65537, the one every library uses. */
export const RSA_PUBLIC_EXPONENT = 65537;
