// The cipher suites the public listener may offer (docs/operations/tls.md#cipher-suites). No imports:
// env.validation.ts names them in its descriptions while tls-files.ts, which it imports, uses them.

/** TLS 1.3 suites: those Node offers by default (docs/operations/tls.md#cipher-suites). */
export const TLS13_CIPHERS: readonly string[] = ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'];

/** TLS 1.2 suites: AEAD (AES-GCM, ChaCha20-Poly1305) with forward secrecy (ECDHE) only; strongest first. */
export const TLS12_CIPHERS: readonly string[] = [
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
];
