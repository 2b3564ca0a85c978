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
      if (client && client.authenticationType === attempt.method && client.secretHash === remembered.secretHash) return client;
    }
    return this.authenticateOnce(attempt, digest);
  }

  /**
   * An attempt that needs the slow hash. When SlowHashGate is full it is answered 503 before any
   * database work, so a flood of wrong secrets costs next to nothing; only the hash itself runs
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
    this.slowHashes.refuseIfFull();
    const client = await this.clients.find(attempt.clientId);
    const lockedFor = await this.passThrottle(attempt);
    // A private_key_jwt client has no hash (''): it costs the decoy's time, like an unknown id.
    const stored = client?.secretHash || (await decoySecretHash());
    const secretMatches = await this.slowHashes.run(() => verifyClientSecret(attempt.clientSecret, stored));
    if (!client || !secretMatches || client.authenticationType !== attempt.method) {
      await this.throttle.recordFailure(attempt.clientId, attempt.sourceAddress);
      if (lockedFor !== undefined) throw OAuthError.tooManyRequests(lockedFor);
      throw OAuthError.invalidClient('client authentication failed', attempt.method === 'client_secret_basic');
    }
    this.remember(client, digest);
    return client;
  }

  /**
   * Past the per-address limit: 429. Past the per-client limit only, one attempt per client and
   * second is still verified (docs/operations/security.md, "Brute force"), so a working client
   * gets through an attacker's lock-out; the others are 429. Returns the client's wait when this
   * attempt took that one verification (a wrong secret is then 429 too), else undefined.
   */
  private async passThrottle(attempt: AuthenticationAttempt): Promise<number | undefined> {
    const limits = await this.throttle.limitsReached(attempt.clientId, attempt.sourceAddress);
    if (limits.address !== undefined) throw OAuthError.tooManyRequests(Math.max(limits.address, limits.client ?? 0));
    if (limits.client === undefined) return undefined;
    if (!(await this.throttle.claimLockedVerification(attempt.clientId))) throw OAuthError.tooManyRequests(limits.client);
    return limits.client;
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
