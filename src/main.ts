import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { AppConfig } from './config/app-config.js';
import { resolveAdminToken } from './config/admin-token.js';
import { ConfigurationError, loadConfig } from './config/env.validation.js';
import { openDatabase } from './database/database-runtime.js';
import { createRootLogger } from './logging/logging.js';
import { runPrimary, WORKER_SERVING, WORKER_SETTINGS, type WorkerSettings } from './server/primary.js';
import { serve } from './server/serve.js';

async function bootstrap(): Promise<void> {
  const config = loadConfig(process.env);
  const rootLogger = createRootLogger(config);
  if (cluster.isWorker) return runWorker(config, rootLogger);
  const logger = rootLogger.child({ context: 'Server' });
  // Resolved before anything starts: a missing or unreadable token must not leave a database running.
  const adminToken = await resolveAdminToken(config);
  const database = await openDatabase(config, (line) => logger.info(line));
  const startupLines = [
    `listening on ${config.tls ? 'https' : 'http'}://${hostOf(config.host)}:${config.port} (token endpoint /oauth2/token); issuer ${config.issuer}`,
    `admin interface on http://${hostOf(config.adminHost)}:${config.adminPort}/admin; metrics at /metrics; API documentation at http://${hostOf(config.adminHost)}:${config.adminPort}/docs`,
    `database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL, data in ${database.location ?? config.dataDir}`}`,
    `admin token: ${adminToken.source === 'ADMIN_TOKEN' ? 'from ADMIN_TOKEN' : `kept in ${adminToken.source}`}`,
  ];
  const release = () => database.stop();
  if (config.workers > 1) {
    return runPrimary({ config, rootLogger, settings: { databaseUrl: database.url, adminToken: adminToken.token }, release, startupLines });
  }
  await serve({ config: { ...config, databaseUrl: database.url, adminToken: adminToken.token }, rootLogger, release, startupLines });
}

/** Where to reach a listener bound to `host` from this machine: localhost for every interface or loopback. */
function hostOf(host: string | undefined): string {
  if (host === undefined || host === '0.0.0.0' || host === '::' || host === '127.0.0.1' || host === '::1') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** A worker of WORKERS > 1: the primary owns the database and the admin token. */
async function runWorker(config: AppConfig, rootLogger: Logger): Promise<void> {
  const settings = JSON.parse(process.env[WORKER_SETTINGS] ?? '{}') as WorkerSettings;
  delete process.env[WORKER_SETTINGS];
  await serve({
    config: { ...config, databaseUrl: settings.databaseUrl, adminToken: settings.adminToken },
    rootLogger,
    release: () => Promise.resolve(),
    onServing: () => process.send?.({ type: WORKER_SERVING }),
  });
}

bootstrap().catch((error: unknown) => {
  // One line, no stack: a configuration or start-up problem the operator can act on.
  const message = error instanceof Error ? error.message : String(error);
  const prefix = error instanceof ConfigurationError ? 'configuration error' : 'cannot start';
  process.stderr.write(`${prefix}: ${message.split('\n')[0]}\n`);
  process.exit(1);
});
