import type { Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { createApp } from '../app-factory.js';
import { hardenServer } from '../http/http-hardening.js';
import { listenAdmin } from '../http/listeners.js';
import type { AppConfig } from '../config/app-config.js';
import { Readiness } from '../health/readiness.js';
import { HttpDrain } from './http-drain.js';
import { listenError } from './listen-preflight.js';

// docs/operations/shutdown.md: from SIGTERM on /health/ready answers 503, and the listeners keep
// accepting for this long so that load balancers see it and stop sending before connections are refused.
export const READINESS_GRACE_MS = 2_000;
// Requests in flight get until this long after the signal; then their connections are closed,
// so that the application and the database still close cleanly within the deadline.
export const DRAIN_LIMIT_MS = 15_000;
export const SHUTDOWN_DEADLINE_MS = 20_000;
/**
 * Each of them drains and stops. SIGINT is a terminal's Ctrl-C; SIGHUP (the terminal closed) does
 * not reload the configuration: a new configuration needs a restart (docs/operations/shutdown.md).
 */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export type ServeOptions = {
  /** Complete: `databaseUrl` and `adminToken` are set. */
  config: AppConfig;
  rootLogger: Logger;
  /** Runs after the application has closed, before the exit (e.g. stops the embedded database). */
  release: () => Promise<void>;
  /** Start-up lines an operator needs, logged once both listeners accept. */
  startupLines?: string[];
  /** Called once both listeners accept. */
  onServing?: () => void;
};

/**
 * Runs the application on both listeners until SIGTERM, SIGINT or SIGHUP, then shuts down in this order:
 * not ready (503), a grace period, stop accepting, drain (every request in flight answered, with
 * `Connection: close`), the application (strategies, caches, change feed, pool), `release`,
 * exit 0. A failed start closes whatever was opened and rethrows.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const { config, rootLogger } = options;
  const logger = rootLogger.child({ context: 'Server' });
  const drain = new HttpDrain();
  let app: NestExpressApplication | undefined;
  let adminServer: Server | undefined;
  try {
    app = await createApp(config, rootLogger);
    const publicServer = app.getHttpServer();
    hardenServer(publicServer);
    drain.track(publicServer);
    // HOST unset: every interface, as Node listens by default; ADMIN_HOST always has a value.
    await (config.host === undefined ? app.listen(config.port) : app.listen(config.port, config.host)).catch((error: unknown) => {
      throw listenError(error, 'PORT', config.port, 'HOST', config.host);
    });
    adminServer = await listenAdmin(app, config.adminPort, config.adminHost).catch((error: unknown) => {
      throw listenError(error, 'ADMIN_PORT', config.adminPort, 'ADMIN_HOST', config.adminHost);
    });
    drain.track(adminServer);
  } catch (error) {
    // Nothing left behind: the listener, the pool, the change feed, then the database.
    adminServer?.close();
    await app?.close().catch(() => undefined);
    await options.release().catch(() => undefined);
    throw error;
  }
  const running = app;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    running.get(Readiness).stopServing();
    drain.closeConnectionsAfterResponses();
    logger.info(`${signal} received: not ready any more; draining ${drain.requestsInFlight} requests in flight, then stopping`);
    setTimeout(() => {
      logger.error('shutdown deadline passed: exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    const drainLimit = setTimeout(() => {
      logger.warn(`requests still in flight after ${DRAIN_LIMIT_MS} ms: closing their connections`);
      drain.closeAllConnections();
    }, DRAIN_LIMIT_MS);
    drainLimit.unref();
    await new Promise((resolve) => setTimeout(resolve, READINESS_GRACE_MS));
    await drain.drain();
    clearTimeout(drainLimit);
    logger.info(`requests drained ${Date.now() - started} ms after ${signal}: closing the application`);
    // Only now: Nest's destroy and shutdown hooks unregister strategies, stop the change feed and
    // close the pool, which no request can reach any more.
    await running.close();
    await options.release();
    logger.info('stopped');
    process.exit(0);
  };
  const onSignal = (signal: string) =>
    shutdown(signal).catch((error: unknown) => {
      logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    });
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => void onSignal(signal));
  for (const line of options.startupLines ?? []) logger.info(line);
  options.onServing?.();
}
