import type { Request, Response } from 'express';
import { listenerOf } from './listener-routes.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** A fixed, small set of route names: a raw URL as a label would let clients grow the registry. */
export function routeOf(path: string): string {
  if (path === '/oauth2/token') return 'token';
  if (path === '/oauth2/introspect') return 'introspection';
  if (path === '/oauth2/jwks') return 'jwks';
  if (path.startsWith('/.well-known/')) return 'metadata';
  if (path.startsWith('/health/')) return 'health';
  if (path === '/admin' || path.startsWith('/admin/')) return 'admin';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/docs')) return 'docs';
  return 'other';
}

/** A request hook (src/http/request-hooks.ts): latency of every request, observed when its response is finished. */
export function requestMetrics(metrics: MetricsService) {
  return {
    onFinish(request: Request, response: Response, startedAt: number): void {
      const listener = listenerOf(request);
      metrics.observeRequest(listener, routeOf(request.path), response.statusCode, (performance.now() - startedAt) / 1000);
    },
  };
}
