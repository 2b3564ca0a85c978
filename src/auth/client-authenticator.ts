import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { ClientAuthenticationType } from '../clients/client-metadata.entity.js';
import { ClientDirectory } from '../clients/client-directory.js';
import type { ClientRecord } from '../clients/client-record.js';
import { decoySecretHash, verifyClientSecret } from '../clients/client-secrets.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { AuthThrottle } from './auth-throttle.js';
import { SlowHashGate } from './slow-hash-gate.js';

export type AuthenticationAttempt = {
  clientId: string;
  clientSecret: string;
  method: ClientAuthenticationType;
  sourceAddress: string;
};

type Verified = { secretHash: string; digest: Buffer };

const MAX_VERIFIED = 100_000;

/**
 * Authenticates clients. A secret that passed the slow hash is remembered as a keyed digest,
 * tied to the stored hash it matched: later requests pay one SHA-256, and a rotated secret
 * (a new stored hash) no longer matches. Failures are throttled before the slow hash runs.
 */
@Injectable()
export class ClientAuthenticator {
  // Per-process key: the digests are useless outside this process's memory.
  private readonly digestKey = randomBytes(32).toString('base64');
  private readonly verified = new Map<string, Verified>();
  private readonly inFlight = new Map<string, Promise<ClientRecord>>();

  constructor(
    private readonly clients: ClientDirectory,
    private readonly throttle: AuthThrottle,
    private readonly slowHashes: SlowHashGate,
  ) {}

  async authenticate(attempt: AuthenticationAttempt): Promise<ClientRecord> {
    const basicTried = attempt.method === 'client_secret_basic';
    // Never reaches PostgreSQL (which cannot store NUL) nor scrypt (which would take "secret\0" for "secret").
    if (attempt.clientId.includes('\0') || attempt.clientSecret.includes('\0')) {
      throw OAuthError.invalidClient('client credentials must not contain a NUL character', basicTried);
    }
    const digest = this.digest(attempt.clientSecret);
    const remembered = this.rememberedMatch(attempt.clientId, digest);
    if (remembered) {
      const client = await this.clients.find(attempt.clientId);
      // A rotated secret (a new stored hash) no longer matches what was remembered.
      if (client && client.authenticationType === attempt.method && client.secretHash === remembered.secretHash) {
        this.throttle.rememberSuccess(client.clientId, attempt.sourceAddress);
        return client;
      }
    }
    return this.authenticateOnce(attempt, digest);
  }

  /**
   * An attempt that needs the slow hash. After one read of the throttle's counts (so that the
   * attempts of a failing address are 429 and count toward it, whether or not the gate is full),
   * a full SlowHashGate answers 503 before the client is looked up; only the hash itself runs
   * inside the gate (lookups are not serialised behind it). Concurrent identical attempts (a
   * burst of first requests from one client) share one run.
   */
  private authenticateOnce(attempt: AuthenticationAttempt, digest: Buffer): Promise<ClientRecord> {
    const key = `${attempt.method}\u0000${attempt.clientId}\u0000${digest.toString('base64')}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.authenticateSlowly(attempt, digest);
      this.inFlight.set(key, pending);
      void pending.finally(() => this.inFlight.delete(key)).catch(() => undefined);
    }
    return pending;
  }

  private async authenticateSlowly(attempt: AuthenticationAttempt, digest: Buffer): Promise<ClientRecord> {
    try {
      return await this.verifySlowly(attempt, digest);
    } catch (error) {
      // The slow-hash bound's 503 does not know whose secret it refused: its warn line does.
      if (error instanceof OAuthError && error.refusal && error.refusal.clientId === undefined) error.refusal.clientId = attempt.clientId;
      throw error;
    }
  }

  /**
   * The throttle first (docs/operations/security.md, "Lock-out under a flood"): an address over
   * its limit, or failing for a client over its limit, is 429 before any lookup or hash, and the
   * refusal counts toward the address. A client over its limit still gets one attempt per second
   * verified, from an address that has not failed for it; a wrong secret is then 429 too.
   */
  private async verifySlowly(attempt: AuthenticationAttempt, digest: Buffer): Promise<ClientRecord> {
    const admission = await this.throttle.admit(attempt.clientId, attempt.sourceAddress, { beforeClaim: () => this.slowHashes.refuseIfFull() });
    let provedWrong = false;
    let succeeded = false;
    try {
      if (admission.lockedFor === undefined) this.slowHashes.refuseIfFull();
      const client = await this.clients.find(attempt.clientId);
      // A private_key_jwt client has no hash (''): it costs the decoy's time, like an unknown id.
      const stored = client?.secretHash || (await decoySecretHash());
      // An address that has failed for this client never waits in the queue: the queue's places are
      // kept for clean addresses, whatever the flood's rate (no await between this and run()).
      if (admission.failing && !this.slowHashes.hasFreeSlot()) {
        await this.throttle.countRefusal(attempt.sourceAddress);
        throw OAuthError.tooManyRequests(1).refusing(attempt.clientId, 'address failing for this client');
      }
      const secretMatches = await this.slowHashes.run(() => verifyClientSecret(attempt.clientSecret, stored));
      if (!client || !secretMatches || client.authenticationType !== attempt.method) {
        provedWrong = true;
        await this.throttle.recordFailure(attempt.clientId, attempt.sourceAddress);
        if (admission.lockedFor !== undefined) throw OAuthError.tooManyRequests(admission.lockedFor).refusing(attempt.clientId, 'client over its limit');
        // The response says only 'client authentication failed'; the log line names the check.
        throw OAuthError.invalidClient(failedCheck(client, attempt.method, secretMatches), attempt.method === 'client_secret_basic');
      }
      this.remember(client, digest);
      this.throttle.rememberSuccess(client.clientId, attempt.sourceAddress);
      succeeded = true;
      return client;
    } finally {
      // The right secret from an address that had failed for this client makes it clean again; so
      // does the end of a claim that did not prove wrong (a 503 of the slow-hash bound, say).
      if ((succeeded && admission.failing) || (admission.claimed && !provedWrong)) await this.throttle.clearFailing(attempt.clientId, attempt.sourceAddress);
    }
  }

  /**
   * SHA-256 of the per-process key followed by the secret: a keyed digest compared only for
   * equality inside this process, so HMAC's extra pass buys nothing here. One-shot `hash`
   * costs a quarter of `createHmac` (an object per request) on the token path.
   */
  private digest(secret: string): Buffer {
    return hash('sha256', this.digestKey + secret, 'buffer');
  }

  /** What is remembered of this client id, when this secret is the one that passed the slow hash lately. */
  private rememberedMatch(clientId: string, digest: Buffer): Verified | undefined {
    const entry = this.verified.get(clientId);
    return entry !== undefined && timingSafeEqual(entry.digest, digest) ? entry : undefined;
  }

  private remember(client: ClientRecord, digest: Buffer): void {
    if (this.verified.size >= MAX_VERIFIED) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(client.clientId, { secretHash: client.secretHash, digest });
  }
}

/** Which check a failed secret authentication failed, for the log line (docs/operations/security.md, "One message before authentication"). */
function failedCheck(client: ClientRecord | null, method: string, secretMatches: boolean): string {
  if (!client) return 'no client has this client_id';
  if (client.authenticationType !== method) return `the client is registered for ${client.authenticationType}, not ${method}`;
  return secretMatches ? 'client authentication failed' : 'the client secret is wrong';
}
