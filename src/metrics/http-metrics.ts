import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { isAdminRequest } from '../admin/admin-listener.js';
import { MetricsService } from './metrics.service.js';

/** A fixed, small set of route names: a raw URL as a label would let clients grow the registry. */
export function routeOf(path: string): string {
  if (path === '/oauth2/token') return 'token';
  if (path === '/oauth2/jwks') return 'jwks';
  if (path.startsWith('/.well-known/')) return 'metadata';
  if (path.startsWith('/health/')) return 'health';
  if (path === '/admin' || path.startsWith('/admin/')) return 'admin';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/docs')) return 'docs';
  return 'other';
}

/** Latency of every request, observed when its response is finished. */
export function measureRequests(app: NestExpressApplication): void {
  const metrics = app.get(MetricsService);
  app.use((request: Request, response: Response, next: NextFunction) => {
    const started = performance.now();
    response.once('finish', () => {
      const listener = isAdminRequest(request) ? 'admin' : 'public';
      metrics.observeRequest(listener, routeOf(request.path), response.statusCode, (performance.now() - started) / 1000);
    });
    next();
  });
}
