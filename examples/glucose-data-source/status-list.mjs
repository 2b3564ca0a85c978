// Token Status List check (draft-ietf-oauth-status-list) for a resource server that verifies
// access tokens locally with jose: a token whose entry in its status list is not 0 (VALID) has
// been revoked, or its consent withdrawn. Reusable as it is: copy this file beside your server.
//
//   import { createStatusListCheck } from './status-list.mjs';
//   const checkStatus = createStatusListCheck({ issuer, keys });   // keys: jose's createRemoteJWKSet(jwks_uri)
//   const refusal = await checkStatus(claims);                       // after jwtVerify; undefined: the token may be served
//
// Each list is fetched once and kept for its `ttl` (or the response's max-age, whichever is
// shorter), so a revocation reaches this resource server within `ttl` plus a second.
import { inflateSync } from 'node:zlib';
import { jwtVerify } from 'jose';

/**
 * Answers a function `(claims) => Promise<string | undefined>`: why the token must be refused by
 * its status, or undefined when its entry reads VALID. Only lists under the issuer's URL are
 * fetched (a token cannot make this server fetch an arbitrary URL).
 *   issuer       the authorization server's issuer (the `iss` of its tokens and lists)
 *   keys         a jose key set or key function for the issuer's JWKS
 *   requireStatus  refuse tokens without a `status` claim (default true)
 *   fetch        the fetch to use (default globalThis.fetch)
 */
export function createStatusListCheck({ issuer, keys, requireStatus = true, fetch = globalThis.fetch }) {
  const prefix = `${issuer.replace(/\/+$/, '')}/oauth2/status/`;
  const lists = new Map(); // uri → { until, statuses, pending }

  async function fetchList(uri) {
    const response = await fetch(uri, { headers: { Accept: 'application/statuslist+jwt' } });
    if (!response.ok) throw new Error(`status list ${uri}: ${response.status}`);
    const jwt = await response.text();
    const { payload } = await jwtVerify(jwt, keys, { issuer, typ: 'statuslist+jwt', subject: uri });
    const list = payload.status_list;
    if (![1, 2, 4, 8].includes(list?.bits) || typeof list.lst !== 'string') throw new Error(`status list ${uri}: malformed`);
    const bytes = inflateSync(Buffer.from(list.lst, 'base64url'));
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1] ?? Infinity);
    const ttl = typeof payload.ttl === 'number' ? payload.ttl : 0;
    const seconds = Math.min(ttl, maxAge, typeof payload.exp === 'number' ? payload.exp - Date.now() / 1000 : Infinity);
    return { bits: list.bits, bytes, until: Date.now() + Math.max(0, seconds) * 1000 };
  }

  async function listOf(uri) {
    const cached = lists.get(uri);
    if (cached?.list && cached.list.until > Date.now()) return cached.list;
    if (cached?.pending) return cached.pending;
    const pending = fetchList(uri).then(
      (list) => {
        lists.set(uri, { list });
        return list;
      },
      (error) => {
        lists.delete(uri);
        throw error;
      },
    );
    lists.set(uri, { ...cached, pending });
    return pending;
  }

  return async function checkStatus(claims) {
    const reference = claims?.status?.status_list;
    if (reference === undefined) return requireStatus ? 'the token names no status list' : undefined;
    const { idx, uri } = reference;
    if (!Number.isSafeInteger(idx) || idx < 0 || typeof uri !== 'string' || !uri.startsWith(prefix)) return 'the token names a status list not of its issuer';
    let list;
    try {
      list = await listOf(uri);
    } catch (error) {
      return `its status list cannot be read: ${error.code ?? error.message}`;
    }
    // Entry i of a list with `bits` bits each: bits i*bits … of the byte array, from the least significant bit.
    const perByte = 8 / list.bits;
    const byte = list.bytes[Math.floor(idx / perByte)];
    if (byte === undefined) return 'the token names an entry its status list does not have';
    const status = (byte >> ((idx % perByte) * list.bits)) & ((1 << list.bits) - 1);
    return status === 0 ? undefined : status === 1 ? 'the token is revoked (status list)' : `the token is not valid (status ${status})`;
  };
}
