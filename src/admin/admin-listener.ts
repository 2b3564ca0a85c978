import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';

const ADMIN_SOCKET = Symbol('admin listener');

/** Paths served on ADMIN_PORT only. */
function isAdminPath(url: string): boolean {
  return url === '/admin' || url.startsWith('/admin/') || url.startsWith('/admin?');
}

/**
 * One Nest application, two listeners (as Ory Hydra separates its admin port): requests are
 * marked by the server that accepted them, and a first middleware answers 404 for an admin path
 * on the public port and for anything else on the admin port.
 */
export function separateListeners(app: NestExpressApplication): void {
  app.use((request: Request, response: Response, next: NextFunction) => {
    const onAdmin = (request as unknown as Record<symbol, boolean>)[ADMIN_SOCKET] === true;
    if (onAdmin === isAdminPath(request.url)) return next();
    response.status(404).json({ message: `Cannot ${request.method} ${request.path}`, error: 'Not Found', statusCode: 404 });
  });
}

/** Starts the admin listener on the same application. */
export async function listenAdmin(app: NestExpressApplication, port: number, host?: string): Promise<Server> {
  const handler = app.getHttpAdapter().getInstance() as (request: IncomingMessage, response: unknown) => void;
  const server = createServer((request, response) => {
    (request as unknown as Record<symbol, boolean>)[ADMIN_SOCKET] = true;
    // API.md §6: administrative messages are English, whatever Accept-Language asks for.
    response.setHeader('Content-Language', 'en');
    handler(request, response);
  });
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
