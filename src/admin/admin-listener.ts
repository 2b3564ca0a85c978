import type { IncomingMessage, Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express, Request, Response } from 'express';
import { hardenServer } from '../common/http-hardening.js';
import { createHttpServer } from '../http/express-server.js';

const ADMIN_SOCKET = Symbol('admin listener');

type Listeners = 'admin' | 'public' | 'both';

function isUnder(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}

/**
 * Which listener serves a path: the admin interface, metrics and the API documentation only on
 * ADMIN_PORT; health on both (container health checks and load balancers use the public port,
 * monitoring inside the network may use either); everything else only on PORT.
 */
export function listenersOf(rawUrl: string): Listeners {
  // Express matches routes case-insensitively: so must this, or /METRICS would pass as public.
  const url = rawUrl.toLowerCase();
  if (isUnder(url, '/admin') || isUnder(url, '/metrics') || isUnder(url, '/console')) return 'admin';
  // SwaggerModule serves the UI at /docs (and its assets below), the document at /docs-json and /docs-yaml.
  if (isUnder(url, '/docs') || isUnder(url, '/docs-json') || isUnder(url, '/docs-yaml')) return 'admin';
  if (isUnder(url, '/health')) return 'both';
  return 'public';
}

/** True when the admin listener accepted the request. */
export function isAdminRequest(request: IncomingMessage): boolean {
  return (request as unknown as Record<symbol, boolean>)[ADMIN_SOCKET] === true;
}

/**
 * One Nest application, two listeners (as Ory Hydra separates its admin port): requests are
 * marked by the server that accepted them, and a request hook (src/http/request-hooks.ts), before
 * any route, answers 404 for an admin path on the public port and for anything else on the admin port.
 */
export function separateListeners() {
  return {
    onRequest(request: Request, response: Response): boolean {
      const served = listenersOf(request.url);
      if (served === 'both' || (served === 'admin') === isAdminRequest(request)) return true;
      response.status(404).json({ message: `Cannot ${request.method} ${request.path}`, error: 'Not Found', statusCode: 404 });
      return false;
    },
  };
}

/** Starts the admin listener on the same application. */
export async function listenAdmin(app: NestExpressApplication, port: number, host?: string): Promise<Server> {
  const express = app.getHttpAdapter().getInstance() as Express;
  // Same request and response classes as the public listener: see src/http/express-server.ts.
  const server = createHttpServer(express, (request, response) => {
    (request as unknown as Record<symbol, boolean>)[ADMIN_SOCKET] = true;
    // API.md §6: administrative messages are English, whatever Accept-Language asks for.
    response.setHeader('Content-Language', 'en');
    express(request as Request, response as Response);
  });
  hardenServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** Stops accepting admin requests and waits for those in flight. */
export function closeAdmin(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
