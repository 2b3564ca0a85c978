import 'reflect-metadata';
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { closeAdmin, listenAdmin } from './admin/admin-listener.js';
import { createApp } from './app-factory.js';
import { resolveAdminToken } from './config/admin-token.js';
import { ConfigurationError, loadConfig } from './config/env.validation.js';
import { openDatabase } from './database/database-runtime.js';

const SHUTDOWN_DEADLINE_MS = 20_000;

async function bootstrap(): Promise<void> {
  const logger = new Logger('Server');
  const config = loadConfig(process.env);
  // Checked before anything starts: a missing admin token must not leave a database running.
  if (config.databaseUrl) await resolveAdminToken(config);
  const database = await openDatabase(config, (line) => logger.log(line));
  const adminToken = await resolveAdminToken(config);
  const app = await createApp({ ...config, databaseUrl: database.url, adminToken: adminToken.token });
  let adminServer: Server | undefined;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: draining requests, then stopping`);
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    await Promise.all([app.close(), adminServer ? closeAdmin(adminServer) : undefined]);
    await database.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen(config.port);
  adminServer = await listenAdmin(app, config.adminPort);
  logger.log(`listening on port ${config.port}; issuer ${config.issuer}`);
  logger.log(`admin interface on port ${config.adminPort} at /admin`);
  logger.log(`database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL in ${config.dataDir}`}`);
  logger.log(`admin token: ${adminToken.source === 'ADMIN_TOKEN' ? 'from ADMIN_TOKEN' : `kept in ${adminToken.source}`}`);
}

bootstrap().catch((error: unknown) => {
  // One line, no stack: a configuration or start-up problem the operator can act on.
  const message = error instanceof Error ? error.message : String(error);
  const prefix = error instanceof ConfigurationError ? 'configuration error' : 'cannot start';
  process.stderr.write(`${prefix}: ${message.split('\n')[0]}\n`);
  process.exit(1);
});
