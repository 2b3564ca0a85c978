import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt with N=2^15, r=8, p=1 (RFC 7914; OWASP's minimum is N=2^17 with r=8 for ~64 MiB, but
// client secrets are 256-bit random strings, not passwords: the slow hash guards the few
// operator-chosen ones, while generated secrets are unguessable anyway).
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const MAX_MEMORY = 64 * 1024 * 1024;

/** A new client secret: 256 random bits, base64url. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { ...options, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url; parameters kept so they can be raised later. */
export async function hashClientSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(secret, salt, { N: COST, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Runs the slow hash on the thread pool; false for a malformed stored hash rather than a throw. */
export async function verifyClientSecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let decoy: Promise<string> | undefined;

/** A stored hash of a random secret nobody knows: unknown clients cost the same time as known ones. */
export function decoySecretHash(): Promise<string> {
  decoy ??= hashClientSecret(generateClientSecret());
  return decoy;
}
