import { Inject, Injectable, Logger } from '@nestjs/common';
import { createLocalJWKSet } from 'jose';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JwksError, validateJwks } from '../clients/client-jwks.js';
import { guardedGet, GuardedGetError, safeUri } from './guarded-get.js';

export type KeySet = ReturnType<typeof createLocalJWKSet>;

// docs/reference/token-endpoint.md#a-clients-jwks_uri: the limits of a jwks_uri fetch (guarded-get.ts's 3 s) and of its cache.
export const MAX_JWKS_BYTES = 64 * 1024;
const DEFAULT_FRESH_MS = 5 * 60_000;
const MAX_FRESH_MS = 24 * 3600_000;
const REFETCH_INTERVAL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** A jwks_uri that could not serve usable keys (the cause is logged, not told). */
export class JwksUnavailable extends Error {}

const UNUSABLE = "the client's key set at its registered jwks_uri could not be used";

type Entry = {
  keys?: KeySet;
  freshUntil: number;
  /** When an unknown kid last caused a fetch (regular fetches do not count). */
  refetchedAt: number;
  pending?: Promise<KeySet>;
};

/**
 * Fetches clients' jwks_uri documents: https only and never to loopback, private, link-local or
 * unspecified addresses (unless JWKS_URI_ALLOW_HTTP), 3 s for the whole exchange, 64 KiB, no
 * redirects. Kept per client exactly as long as the response's Cache-Control allows (see
 * freshness); concurrent requests share one fetch; an unknown kid fetches again at most once a
 * minute per client. Everything is asynchronous I/O: a slow jwks_uri holds only the requests of
 * its own client.
 */
@Injectable()
export class JwksUriFetcher {
  private readonly entries = new Map<string, Entry>();
  private readonly logger = new Logger('JwksUriFetcher');

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
        // A document that may not be reused (no-store, no-cache, max-age=0) is not kept at all.
        current.keys = freshForMs > 0 ? keys : undefined;
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
      throw this.unusable(uri, 'the registered jwks_uri is not a URL');
    }
    const allowed = this.config.jwksUriAllowHttp ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol)) throw this.unusable(uri, 'the jwks_uri does not use https');
    const { status, cacheControl, text } = await this.exchange(uri, url);
    if (status !== 200) {
      throw this.unusable(uri, `the jwks_uri answered HTTP ${status} (redirects are not followed); body starts ${JSON.stringify(text.slice(0, 200))}`);
    }
    let keys: KeySet;
    try {
      keys = createLocalJWKSet(validateJwks(text));
    } catch (error) {
      throw this.unusable(uri, `the jwks_uri document is not a usable JWKS${error instanceof JwksError ? `: ${error.message}` : ''}`);
    }
    return { keys, freshForMs: freshness(cacheControl) };
  }

  /** One guarded GET (guarded-get.ts); its failures are logged and told as JwksUnavailable. */
  private async exchange(uri: string, url: URL): Promise<{ status: number; cacheControl: string | null; text: string }> {
    const options = {
      guarded: !this.config.jwksUriAllowHttp,
      accept: 'application/json',
      maxBytes: MAX_JWKS_BYTES,
      target: 'the jwks_uri',
      document: 'the jwks_uri document',
    };
    try {
      const { status, cacheControl, body } = await guardedGet(url, options);
      return { status, cacheControl, text: body.toString('utf8') };
    } catch (error) {
      if (error instanceof GuardedGetError) throw this.unusable(uri, error.message);
      throw error;
    }
  }

  /**
   * What the client is told is only that its key set could not be used: the jwks_uri may be
   * someone else's server, whose status and body are none of the caller's business. The cause
   * goes to the log.
   */
  private unusable(uri: string, cause: string): JwksUnavailable {
    this.logger.warn(`jwks_uri ${safeUri(uri)} unusable: ${cause}`);
    return new JwksUnavailable(UNUSABLE);
  }
}

/**
 * How long a fetched document may be reused, as its Cache-Control says: `no-store`, `no-cache`
 * or `max-age=0` not at all; `max-age=N` N seconds, at most 24 hours; without max-age, 5
 * minutes (docs/guides/smart-backend-services.md).
 */
export function freshness(cacheControl: string | null): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((directive) => directive.trim());
  if (directives.some((directive) => /^(no-store|no-cache)(\s*=.*)?$/.test(directive))) return 0;
  const maxAge = directives.map((directive) => /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)?.[1]).find((value) => value !== undefined);
  if (maxAge === undefined) return DEFAULT_FRESH_MS;
  return Math.min(MAX_FRESH_MS, Number(maxAge) * 1000);
}

function cacheKey(clientId: string, uri: string): string {
  return `${clientId}\u0000${uri}`;
}
