import 'reflect-metadata';
import cluster from 'node:cluster';
import { resolveAdminToken } from './config/admin-token.js';
import { ConfigurationError } from './config/configuration-error.js';
import { loadConfig } from './config/load-config.js';
import { lookalikeLine, lookalikeVariables } from './config/lookalike-variables.js';
import { openDatabase } from './database/database-runtime.js';
import { createRootLogger } from './logging/logging.js';
import { runPrimary, WORKER_SERVING } from './server/primary.js';
import { serve, SHUTDOWN_SIGNALS } from './server/serve.js';
import { refuseUnusablePorts } from './server/listen-preflight.js';
import { receiveWorkerSettings, withdrawSecrets } from './server/worker-settings.js';

async function bootstrap(): Promise<void> {
  if (cluster.isWorker) return runWorker();
  const config = loadConfig(process.env);
  // A port in use is the first and only line: before the database starts and anything is logged.
  await refuseUnusablePorts(config);
  // Read before the secrets leave the environment (ACCES_TOKEN_TTL looks like one by its name).
  const lookalikes = lookalikeVariables(process.env);
  // Out of the environment that children inherit (workers, the embedded PostgreSQL): the
  // configuration holds them now, and workers get them over the IPC channel.
  const secrets = withdrawSecrets(process.env);
  const rootLogger = createRootLogger(config);
  const logger = rootLogger.child({ context: 'Server' });
  // A setting spelt wrong is said, not swallowed: one warn line each (docs/reference/configuration.md).
  for (const lookalike of lookalikes) logger.warn(lookalikeLine(lookalike));
  // A signal before the server serves: exit at once; the exit asks an embedded PostgreSQL
  // started meanwhile to stop (it runs in its own process group, so the signal did not reach it).
  const duringStart = (signal: NodeJS.Signals) => {
    process.stderr.write(`${signal} during start-up: stopping\n`);
    process.exit(1);
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, duringStart);
  // Resolved before anything starts: a missing or unreadable token must not leave a database running.
  const adminToken = await resolveAdminToken(config);
  const database = await openDatabase(config, (line) => logger.info(line), { takeOver: true });
  const admin = `http://${hostOf(config.adminHost)}:${config.adminPort}`;
  // The last lines of the start log: the addresses a person needs, and where the admin token is.
  const startupLines = [
    `database: ${config.databaseUrl ? 'DATABASE_URL' : `embedded PostgreSQL, data in ${database.location ?? config.dataDir}`}`,
    `public URL: ${config.tls ? 'https' : 'http'}://${hostOf(config.host)}:${config.port} (token endpoint /oauth2/token; issuer ${config.issuer})`,
    `admin URL: ${admin}/admin (metrics at ${admin}/metrics, API documentation at ${admin}/docs)`,
    `console URL: ${admin}/console`,
    `admin token: ${adminToken.source === 'ADMIN_TOKEN' ? 'from ADMIN_TOKEN' : `kept in ${adminToken.source}`}`,
  ];
  const release = () => database.stop();
  try {
    if (config.workers > 1) {
      await runPrimary({
        config,
        rootLogger,
        settings: { environment: secrets, databaseUrl: database.url, adminToken: adminToken.token },
        release,
        startupLines,
      });
    } else {
      await serve({ config: { ...config, databaseUrl: database.url, adminToken: adminToken.token }, rootLogger, release, startupLines });
    }
  } finally {
    // From here the server's own handlers drain and stop.
    for (const signal of SHUTDOWN_SIGNALS) process.off(signal, duringStart);
  }
}

/** Where to reach a listener bound to `host` from this machine: localhost for every interface or loopback. */
function hostOf(host: string | undefined): string {
  if (host === undefined || host === '0.0.0.0' || host === '::' || host === '127.0.0.1' || host === '::1') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** A worker of WORKERS > 1: the primary owns the database and the admin token, and hands the secrets over IPC. */
async function runWorker(): Promise<void> {
  const settings = await receiveWorkerSettings();
  const config = loadConfig({ ...process.env, ...settings.environment });
  const rootLogger = createRootLogger(config);
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
