import { OAuthError } from './oauth-error.js';

export const DPOP_ALGORITHMS = ['ES256', 'PS256', 'EdDSA', 'RS256'] as const;
/** docs/reference/token-endpoint.md#dpop-proofs: a proof's iat may be at most 60 s old and 10 s ahead. */
export const MAX_PROOF_AGE_SECONDS = 60;
export const MAX_PROOF_AHEAD_SECONDS = 10;
const MAX_JTI_LENGTH = 256;
// RFC 7518 and RFC 8037: members only private or symmetric keys carry.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export type ProofClaims = { jti: string; iat: number; nonce?: string };

/** RFC 9449 §4.3 checks 4–6 on the protected header: typ, alg, a public jwk. */
export function checkProofHeader(header: Record<string, unknown>): void {
  if (header.typ !== 'dpop+jwt') throw invalidProof('the proof\'s "typ" must be dpop+jwt');
  if (typeof header.alg !== 'string' || !(DPOP_ALGORITHMS as readonly string[]).includes(header.alg)) {
    throw invalidProof(`the proof's "alg" is not accepted (use ${DPOP_ALGORITHMS.join(', ')})`);
  }
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw invalidProof('the proof has no "jwk" header holding its public key');
  const privateMember = PRIVATE_MEMBERS.find((member) => member in jwk);
  if (privateMember !== undefined) throw invalidProof(`the proof's "jwk" must be a public key (it has the private member "${privateMember}")`);
}

/**
 * RFC 9449 §4.3 checks 7–11 on the verified payload: htm, htu (query and fragment ignored), iat
 * within the windows of docs/reference/token-endpoint.md#dpop-proofs, and a jti. The nonce is
 * checked by the caller.
 */
export function checkProofClaims(payload: Record<string, unknown>, expected: { htm: string; htu: string; now: number }): ProofClaims {
  if (payload.htm !== expected.htm) throw invalidProof(`the proof's "htm" must be ${expected.htm}`);
  if (typeof payload.htu !== 'string' || withoutQuery(payload.htu) !== withoutQuery(expected.htu)) {
    throw invalidProof(`the proof's "htu" must be ${expected.htu}`);
  }
  const iat = payload.iat;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalidProof('the proof has no numeric "iat"');
  if (iat < expected.now - MAX_PROOF_AGE_SECONDS) throw invalidProof(`the proof is stale ("iat" more than ${MAX_PROOF_AGE_SECONDS} s old)`);
  if (iat > expected.now + MAX_PROOF_AHEAD_SECONDS) throw invalidProof('the proof\'s "iat" is in the future');
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
    throw invalidProof(`the proof's "jti" must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  if (payload.nonce !== undefined && typeof payload.nonce !== 'string') throw invalidProof('the proof\'s "nonce" must be a string');
  return { jti, iat, nonce: payload.nonce };
}

/** A URL without query and fragment, normalised (RFC 9449 §4.3 point 9, RFC 3986 §6). */
export function withoutQuery(value: string): string | undefined {
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

export function invalidProof(description: string): OAuthError {
  return new OAuthError('invalid_dpop_proof', `DPoP: ${description}`);
}
