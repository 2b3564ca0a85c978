import type { Server } from 'node:net';
import type { Socket } from 'node:net';

const MAX_ADDRESSES = 10_000;

/**
 * New TLS connections a second per source address (TLS_HANDSHAKE_RATE; docs/guides/mtls.md#bounded-handshakes):
 * a token bucket per address, as many tokens as the rate, refilled at the rate. A connection
 * that finds its address's bucket empty is closed as it arrives, before the TLS layer reads a
 * byte of it, so no handshake work (key exchange, the client certificate's proof of possession)
 * is spent on it. Kept in memory per process: the bound is per address and per worker.
 */
export class HandshakeRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly perSecond: number) {}

  /** Whether a new connection from `address` may go on; takes one token when it may. */
  admit(address: string, now = Date.now()): boolean {
    const bucket = this.buckets.get(address);
    if (bucket === undefined) {
      if (this.buckets.size >= MAX_ADDRESSES) this.evict(now);
      this.buckets.set(address, { tokens: this.perSecond - 1, at: now });
      return true;
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Closes every connection over the rate before the server's own 'connection' listener (the TLS layer) sees it. */
  guard(server: Server): void {
    server.prependListener('connection', (socket: Socket) => {
      if (!this.admit(socket.remoteAddress ?? 'unknown')) socket.destroy();
    });
  }

  // Full buckets hold nothing worth keeping: drop them, else the oldest entry.
  private evict(now: number): void {
    for (const [address, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.perSecond) this.buckets.delete(address);
    }
    if (this.buckets.size >= MAX_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
