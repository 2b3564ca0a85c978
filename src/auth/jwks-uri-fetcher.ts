import { Inject, Injectable } from '@nestjs/common';
import { createLocalJWKSet } from 'jose';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JwksError, validateJwks } from '../clients/client-jwks.js';

export type KeySet = ReturnType<typeof createLocalJWKSet>;

// API.md §9: the limits of a jwks_uri fetch and of its cache.
export const FETCH_TIMEOUT_MS = 3_000;
export const MAX_JWKS_BYTES = 64 * 1024;
const DEFAULT_FRESH_MS = 5 * 60_000;
const MAX_FRESH_MS = 24 * 3600_000;
const REFETCH_INTERVAL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** A jwks_uri that could not serve usable keys; the message says why, without secrets. */
export class JwksUnavailable extends Error {}

type Entry = {
  keys?: KeySet;
  freshUntil: number;
  /** When an unknown kid last caused a fetch (regular fetches do not count). */
  refetchedAt: number;
  pending?: Promise<KeySet>;
};

/**
 * Fetches clients' jwks_uri documents: https only (unless JWKS_URI_ALLOW_HTTP), 3 s for the
 * whole exchange, 64 KiB, no redirects. Kept per client for 5 minutes or the response's
 * max-age (at most 24 h); concurrent requests share one fetch; an unknown kid fetches again at
 * most once a minute per client. Everything is asynchronous I/O: a slow jwks_uri holds only the
 * requests of its own client.
 */
@Injectable()
export class JwksUriFetcher {
  private readonly entries = new Map<string, Entry>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The client's keys, from the cache while fresh. */
  keys(clientId: string, uri: string): Promise<KeySet> {
    const entry = this.entries.get(cacheKey(clientId, uri));
    if (entry?.keys && entry.freshUntil > Date.now()) return Promise.resolve(entry.keys);
    return this.fetchShared(clientId, uri);
  }

  /** Keys fetched again for an unknown kid, or undefined when the last fetch is under a minute old. */
  async refetched(clientId: string, uri: string): Promise<KeySet | undefined> {
    const entry = this.entries.get(cacheKey(clientId, uri));
    if (entry?.pending) return entry.pending;
    if (entry && Date.now() - entry.refetchedAt < REFETCH_INTERVAL_MS) return undefined;
    if (entry) entry.refetchedAt = Date.now();
    return this.fetchShared(clientId, uri);
  }

  private fetchShared(clientId: string, uri: string): Promise<KeySet> {
    const key = cacheKey(clientId, uri);
    let entry = this.entries.get(key);
    if (entry?.pending) return entry.pending;
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      entry = { freshUntil: 0, refetchedAt: 0 };
      this.entries.set(key, entry);
    }
    const current = entry;
    const pending = this.download(uri).then(
      ({ keys, freshForMs }) => {
        current.keys = keys;
        current.freshUntil = Date.now() + freshForMs;
        current.pending = undefined;
        return keys;
      },
      (error: unknown) => {
        current.pending = undefined;
        throw error;
      },
    );
    current.pending = pending;
    return pending;
  }

  private async download(uri: string): Promise<{ keys: KeySet; freshForMs: number }> {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new JwksUnavailable('the registered jwks_uri is not a URL');
    }
    const allowed = this.config.jwksUriAllowHttp ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol)) throw new JwksUnavailable('the registered jwks_uri must use https');
    let response: Response;
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    try {
      response = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'application/json, application/jwk-set+json' } });
    } catch {
      throw new JwksUnavailable('the jwks_uri could not be fetched (unreachable or slower than 3 s)');
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new JwksUnavailable(`the jwks_uri answered HTTP ${response.status} (redirects are not followed)`);
    }
    const text = await readLimited(response);
    let keys: KeySet;
    try {
      keys = createLocalJWKSet(validateJwks(text));
    } catch (error) {
      throw new JwksUnavailable(`the jwks_uri document is not a usable JWKS${error instanceof JwksError ? `: ${error.message}` : ''}`);
    }
    return { keys, freshForMs: freshness(response.headers.get('cache-control')) };
  }
}

async function readLimited(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_JWKS_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new JwksUnavailable('the jwks_uri document is larger than 64 KiB');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > MAX_JWKS_BYTES) {
        await response.body?.cancel().catch(() => undefined);
        throw new JwksUnavailable('the jwks_uri document is larger than 64 KiB');
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof JwksUnavailable) throw error;
    throw new JwksUnavailable('the jwks_uri document could not be read (cut off or slower than 3 s)');
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** 5 minutes, or longer when Cache-Control max-age says so (at most 24 h). */
export function freshness(cacheControl: string | null): number {
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl ?? '')?.[1];
  const requested = maxAge === undefined ? 0 : Number(maxAge) * 1000;
  return Math.min(MAX_FRESH_MS, Math.max(DEFAULT_FRESH_MS, requested));
}

function cacheKey(clientId: string, uri: string): string {
  return `${clientId}\u0000${uri}`;
}
