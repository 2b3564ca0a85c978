import 'reflect-metadata';
import type { Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { closeAdmin, listenAdmin } from './admin/admin-listener.js';
import { hardenServer } from './common/http-hardening.js';
import { createApp } from './app-factory.js';
import { resolveAdminToken } from './config/admin-token.js';
import { ConfigurationError, loadConfig } from './config/env.validation.js';
import { openDatabase } from './database/database-runtime.js';
import { createRootLogger } from './logging/logging.js';

// API.md §7: exit within 20 s of SIGTERM. Requests in flight get DRAIN_LIMIT_MS to complete; past
// it their connections are closed, so the pool and the database still close cleanly in time.
const DRAIN_LIMIT_MS = 15_000;
const SHUTDOWN_DEADLINE_MS = 20_000;

async function bootstrap(): Promise<void> {
  const config = loadConfig(process.env);
  const rootLogger = createRootLogger(config);
  const logger = rootLogger.child({ context: 'Server' });
  // Checked before anything starts: a missing admin token must not leave a database running.
  if (config.databaseUrl) await resolveAdminToken(config);
  const database = await openDatabase(config, (line) => logger.info(line));
  const adminToken = await resolveAdminToken(config);
  const app = await createApp({ ...config, databaseUrl: database.url, adminToken: adminToken.token }, rootLogger);
  let adminServer: Server | undefined;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received: draining requests, then stopping`);
    setTimeout(() => {
      logger.error('shutdown deadline passed: exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    const drainLimit = setTimeout(() => {
      logger.warn(`requests still in flight after ${DRAIN_LIMIT_MS} ms: closing their connections`);
      closeAllConnections(app, adminServer);
    }, DRAIN_LIMIT_MS);
    drainLimit.unref();
    // app.close stops accepting, waits for the requests in flight, then closes the pool.
    await Promise.all([app.close(), adminServer ? closeAdmin(adminServer) : undefined]);
    clearTimeout(drainLimit);
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  hardenServer(app.getHttpServer());
  await app.listen(config.port);
  adminServer = await listenAdmin(app, config.adminPort);
  logger.info(`listening on port ${config.port}; issuer ${config.issuer}`);
  logger.info(`admin interface on port ${config.adminPort} at /admin; metrics at /metrics, API documentation at /docs`);
  logger.info(`database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL in ${config.dataDir}`}`);
  logger.info(`admin token: ${adminToken.source === 'ADMIN_TOKEN' ? 'from ADMIN_TOKEN' : `kept in ${adminToken.source}`}`);
}

function closeAllConnections(app: NestExpressApplication, adminServer: Server | undefined): void {
  (app.getHttpServer() as Server).closeAllConnections();
  adminServer?.closeAllConnections();
}

bootstrap().catch((error: unknown) => {
  // One line, no stack: a configuration or start-up problem the operator can act on.
  const message = error instanceof Error ? error.message : String(error);
  const prefix = error instanceof ConfigurationError ? 'configuration error' : 'cannot start';
  process.stderr.write(`${prefix}: ${message.split('\n')[0]}\n`);
  process.exit(1);
});
