import type { IncomingMessage } from 'node:http';
import type { Express } from 'express';

/** The two listeners: PORT (public) and ADMIN_PORT (admin). */
export type Listener = 'public' | 'admin';

/** Which listener's Express application a route is registered on, decided once at start-up. */
export type RouteListeners = Listener | 'both';

// First path segments that belong to the admin listener only: the admin interface, metrics, the
// API documentation (SwaggerModule serves /docs, /docs-json and /docs-yaml) and the console.
const ADMIN_ROOTS = new Set(['admin', 'metrics', 'docs', 'docs-json', 'docs-yaml', 'console']);
// Health answers on both: load balancers probe the public port, monitoring may use either.
const SHARED_ROOTS = new Set(['health']);

const LISTENER = Symbol('listener');

/**
 * The listener(s) of a route or middleware, from the path it is registered with (docs/operations/security.md,
 * "Listener separation"). A middleware without a path (request hooks, Nest's not-found and error
 * handlers) runs on both. Anything else is public. A path that is not a string is refused at
 * start-up, so no route can slip onto a listener unclassified.
 */
export function listenersOfRoute(path: unknown): RouteListeners {
  if (typeof path === 'function') return 'both';
  if (typeof path !== 'string') throw new Error(`route path ${String(path)} is not a string: it cannot be given a listener`);
  const root = path
    .replace(/^\/+/, '')
    .split(/[/{?(:*]/)[0]
    .toLowerCase();
  if (ADMIN_ROOTS.has(root)) return 'admin';
  if (SHARED_ROOTS.has(root)) return 'both';
  return 'public';
}

/** Marks every request an Express application receives: a property of its request prototype, so no per-request cost. */
export function markListener(app: Express, listener: Listener): void {
  Object.defineProperty(app.request, LISTENER, { value: listener, enumerable: false });
}

/** The listener that accepted the request. */
export function listenerOf(request: IncomingMessage): Listener {
  return (request as unknown as Record<symbol, Listener | undefined>)[LISTENER] ?? 'public';
}
