import { Injectable } from '@nestjs/common';
import { createLocalJWKSet } from 'jose';
import type { ClientRecord } from '../clients/client-record.js';
import { JwksError, validateJwks } from '../clients/client-jwks.js';
import { JwksUnavailable, JwksUriFetcher, type KeySet } from './jwks-uri-fetcher.js';

const MAX_ENTRIES = 10_000;

/**
 * A private_key_jwt client's public keys, as jose key sets (jose selects the key by kid, or by
 * kty/alg/crv, and imports it once): parsed from jwks_raw once per registered document, or
 * fetched from jwks_uri.
 */
@Injectable()
export class ClientKeys {
  private readonly raw = new Map<number, { text: string; keys: KeySet }>();

  constructor(private readonly fetcher: JwksUriFetcher) {}

  /** Throws JwksUnavailable when the client has no usable keys. */
  async keysOf(client: ClientRecord): Promise<KeySet> {
    if (client.jwksRaw !== null) return this.rawKeys(client.id, client.jwksRaw);
    if (client.jwksUri !== null) return this.fetcher.keys(client.clientId, client.jwksUri);
    throw new JwksUnavailable('the client has no registered keys');
  }

  /** After an unknown kid: the jwks_uri's keys fetched again (rate-limited), or undefined. */
  refetched(client: ClientRecord): Promise<KeySet | undefined> {
    if (client.jwksRaw !== null || client.jwksUri === null) return Promise.resolve(undefined);
    return this.fetcher.refetched(client.clientId, client.jwksUri);
  }

  private rawKeys(id: number, text: string): KeySet {
    const cached = this.raw.get(id);
    if (cached?.text === text) return cached.keys;
    let keys: KeySet;
    try {
      keys = createLocalJWKSet(validateJwks(text));
    } catch (error) {
      throw new JwksUnavailable(`the registered JWKS is not usable${error instanceof JwksError ? `: ${error.message}` : ''}`);
    }
    if (this.raw.size >= MAX_ENTRIES) this.raw.delete(this.raw.keys().next().value!);
    this.raw.set(id, { text, keys });
    return keys;
  }
}
