import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { forbiddenTarget, isForbiddenAddress } from '../clients/jwks-uri-target.js';

// docs/reference/token-endpoint.md#a-clients-jwks_uri: how long a fetch of a URL a client named may take.
export const FETCH_TIMEOUT_MS = 3_000;

export type GuardedGetOptions = {
  /** Refuse loopback, private and other special-purpose targets (false under JWKS_URI_ALLOW_HTTP). */
  guarded: boolean;
  accept: string;
  maxBytes: number;
  /** How a log line names the target and its body: "the jwks_uri", "the jwks_uri document". */
  target: string;
  document: string;
};

export type GuardedResponse = { status: number; cacheControl: string | null; body: Buffer };

/** A guarded GET that failed; the message says why, for the log (never for the client). */
export class GuardedGetError extends Error {}

/**
 * One GET of a URL a client named (its jwks_uri, its certificate's CRL distribution point), with
 * node:http(s): when guarded, never to a loopback, private, link-local or other special-purpose
 * address (the literal host checked first, a name when it is resolved, and the connection made
 * only to the addresses checked); 3 s for the whole exchange; at most `maxBytes`; no redirects
 * (a 3xx is answered as it is). Rejects with a GuardedGetError.
 */
export function guardedGet(url: URL, options: GuardedGetOptions): Promise<GuardedResponse> {
  const forbidden = options.guarded ? forbiddenTarget(url) : undefined;
  if (forbidden !== undefined) return Promise.reject(new GuardedGetError(`${options.target} ${forbidden}`));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let failed = false;
    // The request and its response may both report one failure: it is told once.
    const fail = (reason: string) => {
      if (failed) return;
      failed = true;
      reject(new GuardedGetError(reason));
    };
    const outgoing = send(url, {
      method: 'GET',
      headers: { accept: options.accept },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      ...(options.guarded ? { lookup: guardedLookup } : {}),
    });
    outgoing.on('error', (error: Error & { code?: string }) => {
      if (error instanceof ForbiddenAddress)
        fail(`${options.target} host resolves to a loopback, private, link-local or unspecified address (${error.address})`);
      else fail(`${options.target} could not be fetched (unreachable or slower than ${FETCH_TIMEOUT_MS / 1000} s): ${error.code ?? error.name}`);
    });
    outgoing.on('response', (incoming) => {
      readLimited(incoming, options).then(
        (body) => resolve({ status: incoming.statusCode ?? 0, cacheControl: header(incoming.headers['cache-control']), body }),
        (error: Error) => {
          incoming.destroy();
          fail(incoming.statusCode === 200 ? error.message : `${options.target} answered HTTP ${incoming.statusCode ?? 0}; ${error.message}`);
        },
      );
    });
    outgoing.end();
  });
}

/** Thrown by the guarded lookup: the name resolved to an address a guarded GET may not reach. */
class ForbiddenAddress extends Error {
  constructor(readonly address: string) {
    super('forbidden address');
  }
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect: resolves the name once, refuses it when any of its addresses is
 * forbidden, and hands the socket exactly the addresses it checked (no second lookup that a
 * rebinding DNS server could answer differently).
 */
function guardedLookup(hostname: string, options: LookupAllOptions | LookupOneOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true, family: options.family ?? 0 }).then(
    (addresses) => {
      const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address));
      if (forbidden) return callback(new ForbiddenAddress(forbidden.address), '');
      if (addresses.length === 0) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    },
    (error: Error) => callback(error, ''),
  );
}

/** The body, at most `maxBytes`; rejects with an Error saying why otherwise. */
function readLimited(incoming: IncomingMessage, options: GuardedGetOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => reject(new Error(`${options.document} is larger than ${options.maxBytes / 1024} KiB`));
    if (Number(incoming.headers['content-length'] ?? '0') > options.maxBytes) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxBytes) tooLarge();
      else chunks.push(chunk);
    });
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', () => reject(new Error(`${options.document} could not be read (cut off or slower than ${FETCH_TIMEOUT_MS / 1000} s)`)));
    incoming.on('aborted', () => reject(new Error(`${options.document} was cut off`)));
  });
}

function header(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A URL for a log line, without userinfo (it may hold a password). */
export function safeUri(uri: string): string {
  try {
    const url = new URL(uri);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return JSON.stringify(uri.slice(0, 200));
  }
}
