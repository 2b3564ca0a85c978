import type { Server } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Request, Response } from 'express';
import { listenerOf } from './listener-routes.js';

// A slow client must not hold a connection (and a socket of the 2-core box) for long.
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const MAX_HEADERS = 100;

/** Header and request timeouts against slow clients (slowloris), for both listeners. */
export function hardenServer(server: Server): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.maxHeadersCount = MAX_HEADERS;
}

/** One year: browsers then refuse plain HTTP to this host (docs/operations/tls.md). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/**
 * When Strict-Transport-Security is sent: `native` (TLS_CERT_FILE): on every response of a TLS
 * connection, whatever X-Forwarded-Proto says; `proxied` (an https ISSUER behind a trusted proxy):
 * when the proxy's X-Forwarded-Proto says https; `off`: never.
 */
export type HstsMode = 'native' | 'proxied' | 'off';

/**
 * A request hook (src/http/request-hooks.ts): headers every response carries: no MIME sniffing, and no framing. CORS stays off (no
 * Access-Control-* header) unless CORS_ALLOWED_ORIGINS names origins, and then only for the
 * public endpoints: browsers never reach the admin interface. HSTS as `hsts` says.
 */
export function secureHeaders(allowedOrigins: readonly string[], hsts: HstsMode = 'off') {
  return {
    onRequest(request: Request, response: Response): boolean {
      response.setHeader('X-Content-Type-Options', 'nosniff');
      response.setHeader('X-Frame-Options', 'DENY');
      if (hsts === 'native' ? (request.socket as TLSSocket).encrypted === true : hsts === 'proxied' && request.protocol === 'https') {
        response.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
      }
      const origin = request.headers.origin;
      if (origin && allowedOrigins.includes(origin) && listenerOf(request) === 'public') {
        response.setHeader('Access-Control-Allow-Origin', origin);
        response.setHeader('Vary', 'Origin');
        if (request.method === 'OPTIONS') {
          response.setHeader('Access-Control-Allow-Methods', 'GET, POST');
          response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
          response.setHeader('Access-Control-Max-Age', '600');
          response.status(204).end();
          return false;
        }
      }
      return true;
    },
  };
}
