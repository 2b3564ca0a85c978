import { calculateJwkThumbprint, importJWK, type CryptoKey, type JWK } from 'jose';
import { invalidProof } from '../oauth/dpop-proof-claims.js';
import { keyOutOfBounds } from '../oauth/key-bounds.js';

/** A proof's public key, imported, and its RFC 7638 thumbprint (the token's `cnf.jkt`). */
export type ProofKey = { key: CryptoKey; jkt: string };

const MAX_KEYS = 1_000;
const MAX_ENTRY_LENGTH = 2_048;

/**
 * The public keys of DPoP proofs, imported by jose once per key rather than once per request
 * (what jose's EmbeddedJWK does): a client signs its proofs with one key for a long while, and
 * the import and the thumbprint were a tenth of a proof-of-possession request's CPU. The rules
 * are EmbeddedJWK's: `use` (if any) `sig`, `alg` (if any) the header's, a public key. Bounded,
 * and only small JWKs are kept, so made-up keys cannot grow it. A key out of bounds (an RSA
 * modulus over 4096 or under 2048 bits, an exponent other than 65537, a type or curve `alg` does
 * not name: docs/operations/security.md#bounded-key-cost) is refused before it is imported or
 * looked up, so no signature work is ever done with it.
 */
export class DpopKeys {
  private readonly keys = new Map<string, Promise<ProofKey>>();

  resolve(jwk: Record<string, unknown>, alg: string): Promise<ProofKey> {
    const outOfBounds = keyOutOfBounds(jwk, alg);
    if (outOfBounds !== undefined) return Promise.reject(invalidProof(`the proof's "jwk" is refused: ${outOfBounds}`));
    const id = `${alg}\u0000${JSON.stringify(jwk)}`;
    const cached = this.keys.get(id);
    if (cached) return cached;
    const imported = importProofKey(jwk, alg);
    if (id.length <= MAX_ENTRY_LENGTH) {
      if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(id, imported);
      imported.catch(() => this.keys.delete(id));
    }
    return imported;
  }
}

async function importProofKey(jwk: Record<string, unknown>, alg: string): Promise<ProofKey> {
  if (jwk.use !== undefined && jwk.use !== 'sig') throw invalidProof('the proof\'s "jwk" must have "use" sig when it has one');
  if (jwk.alg !== undefined && jwk.alg !== alg) throw invalidProof('the proof\'s "jwk" has another "alg" than the proof');
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK(jwk as JWK, alg);
  } catch {
    throw invalidProof(`the proof's "jwk" is not a valid public key for ${alg}`);
  }
  if (key instanceof Uint8Array || key.type !== 'public') throw invalidProof('the proof\'s "jwk" must be a public key');
  return { key, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}
