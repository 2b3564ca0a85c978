import { Inject, Injectable } from '@nestjs/common';
import { compactJwsTooDeep, exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import {
  DPOP_ALGORITHMS,
  MAX_PROOF_AHEAD_SECONDS,
  MAX_PROOF_AGE_SECONDS,
  checkProofClaims,
  checkProofHeader,
  invalidProof,
} from '../oauth/dpop-proof-claims.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { DpopKeys } from './dpop-keys.js';
import { DpopNonces } from './dpop-nonces.js';
import { ReplayStore, type SingleUse } from './replay-store.js';

/**
 * A proof that passed every check but the replay one: the RFC 7638 thumbprint of its key (for
 * `cnf.jkt`) and its jti, used up once the client is authenticated (consume, or together with
 * a client assertion's jti in one statement).
 */
export type DpopProof = { jkt: string; use: SingleUse };

const ALGORITHMS = [...DPOP_ALGORITHMS];

/**
 * Checks a DPoP proof at the token endpoint (RFC 9449 §4.3,
 * docs/reference/token-endpoint.md#dpop-proofs). `htu` is the token endpoint URL derived from
 * ISSUER, never from the request's Host or X-Forwarded-* headers. The jti is used up (on every
 * instance) only after the client is authenticated.
 */
@Injectable()
export class DpopProofs {
  private readonly tokenEndpoint: string;
  private readonly keys = new DpopKeys();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly nonces: DpopNonces,
    private readonly replays: ReplayStore,
  ) {
    this.tokenEndpoint = `${config.issuer}/oauth2/token`;
  }

  get noncesRequired(): boolean {
    return this.config.dpopNonce;
  }

  async check(headerValue: string | string[], method: string): Promise<DpopProof> {
    try {
      return await this.checkProof(headerValue, method);
    } catch (error) {
      // A client refused while nonces are on learns the current one at once.
      if (this.config.dpopNonce && error instanceof OAuthError) error.headers['DPoP-Nonce'] = await this.nonces.current();
      throw error;
    }
  }

  /** Uses up the proof's jti (secret-authenticated clients; assertions use it up with theirs). */
  async consume(proof: DpopProof): Promise<void> {
    if ((await this.replays.useOnce([proof.use])) !== -1) throw await this.replayed();
  }

  /** The refusal of a replayed proof, with a fresh nonce when nonces are on. */
  async replayed(): Promise<OAuthError> {
    const error = invalidProof('the proof\'s "jti" has already been used');
    if (this.config.dpopNonce) error.headers['DPoP-Nonce'] = await this.nonces.current();
    return error;
  }

  /** The nonce to hand out with every token response when DPOP_NONCE is on. */
  freshNonce(): Promise<string> {
    return this.nonces.current();
  }

  private async checkProof(headerValue: string | string[], method: string): Promise<DpopProof> {
    // Node joins repeated headers with ", "; a JWT never contains a comma.
    if (Array.isArray(headerValue) || headerValue.includes(',')) throw invalidProof('send exactly one DPoP header');
    if (compactJwsTooDeep(headerValue)) throw invalidProof(`the proof's header or payload is ${TOO_DEEP}`);
    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(headerValue);
    } catch {
      throw invalidProof('the DPoP header is not a JWT');
    }
    checkProofHeader(header);
    const { key, jkt } = await this.keys.resolve(header.jwk as Record<string, unknown>, header.alg as string);
    let payloadBytes: Uint8Array;
    try {
      ({ payload: payloadBytes } = await compactVerify(headerValue, key, { algorithms: ALGORITHMS }));
    } catch {
      throw invalidProof('the proof\'s signature does not verify with its "jwk"');
    }
    const payload = parseObject(payloadBytes);
    const now = Math.floor(Date.now() / 1000);
    const claims = checkProofClaims(payload, { htm: method, htu: this.tokenEndpoint, now });
    if (this.config.dpopNonce && (claims.nonce === undefined || !(await this.nonces.isValid(claims.nonce)))) {
      throw new OAuthError(
        'use_dpop_nonce',
        claims.nonce === undefined ? 'DPoP: a server nonce is required' : 'DPoP: the nonce is stale or unknown: use the one in the DPoP-Nonce header',
      );
    }
    // Seen once per key within the window its iat allows.
    const expiresAt = Math.max(claims.iat, now) + MAX_PROOF_AGE_SECONDS + MAX_PROOF_AHEAD_SECONDS;
    return { jkt, use: { kind: 'dpop', namespace: jkt, jti: claims.jti, expiresAt } };
  }
}

function parseObject(bytes: Uint8Array): Record<string, unknown> {
  const text = new TextDecoder().decode(bytes);
  if (exceedsJsonDepth(text)) throw invalidProof(`the proof's payload is ${TOO_DEEP}`);
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Refused below.
  }
  throw invalidProof("the proof's payload is not a JSON object");
}
