import type { Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { hardenServer } from './http-hardening.js';
import { createHttpServer, ExpressServerAdapter } from './express-server.js';

/** Starts the admin listener: its own HTTP server on the application's admin Express handler. */
export async function listenAdmin(app: NestExpressApplication, port: number, host?: string): Promise<Server> {
  const adapter = app.getHttpAdapter();
  if (!(adapter instanceof ExpressServerAdapter)) throw new Error('the admin listener needs the ExpressServerAdapter');
  const admin = adapter.adminInstance;
  const server = createHttpServer(admin, (request, response) => {
    // Administrative messages are English, whatever Accept-Language asks for.
    response.setHeader('Content-Language', 'en');
    admin(request as Request, response as Response);
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
