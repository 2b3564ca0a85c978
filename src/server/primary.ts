import cluster, { type Worker } from 'node:cluster';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { serveClusterMetrics } from '../metrics/cluster-metrics.js';
import { SHUTDOWN_DEADLINE_MS, SHUTDOWN_SIGNALS } from './serve.js';
import { WORKER_SETTINGS, WORKER_SETTINGS_REQUEST, type WorkerSettings } from './worker-settings.js';

/** A worker's message once both its listeners accept. */
export const WORKER_SERVING = 'authorization-server:serving';

type PrimaryOptions = {
  config: AppConfig;
  rootLogger: Logger;
  /** Handed to each worker over the IPC channel, never through its environment. */
  settings: WorkerSettings;
  /** Stops the embedded database, after every worker has exited. */
  release: () => Promise<void>;
  startupLines: string[];
};

// A worker that dies sooner than this after its start counts as crashing: replacements back off.
const STABLE_AFTER_MS = 10_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/**
 * WORKERS > 1: this process owns the embedded database and the admin token, forks the workers
 * (each runs the whole application; node:cluster shares both ports), replaces a worker that
 * dies (backing off while they crash), answers /metrics aggregation requests, and on SIGTERM,
 * SIGINT or SIGHUP lets every worker drain and exit before it stops the database and exits 0.
 * The workers' environment holds no secret (the caller has taken them out of process.env): each
 * worker asks for its settings over the IPC channel.
 */
export async function runPrimary(options: PrimaryOptions): Promise<void> {
  const { config } = options;
  const logger = options.rootLogger.child({ context: 'Primary' });
  try {
    // Checked here, so that a taken port is one line, not one per worker.
    await assertFree(config.port, 'PORT', config.host);
    await assertFree(config.adminPort, 'ADMIN_PORT', config.adminHost);
  } catch (error) {
    await options.release().catch(() => undefined);
    throw error;
  }
  serveClusterMetrics();
  const started = new Map<Worker, number>();
  const serving = new Set<Worker>();
  let allServing = false;
  let stopping = false;
  let backoff = 0;

  const fork = () => {
    const worker = cluster.fork();
    started.set(worker, Date.now());
    worker.on('message', (message: { type?: string }) => {
      if (message?.type === WORKER_SETTINGS_REQUEST) {
        worker.send({ type: WORKER_SETTINGS, settings: options.settings });
        return;
      }
      if (message?.type !== WORKER_SERVING) return;
      serving.add(worker);
      if (!allServing && serving.size === config.workers) {
        allServing = true;
        logger.info(`${config.workers} workers serving`);
        for (const line of options.startupLines) logger.info(line);
      }
    });
  };

  const stop = async (signal: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: every worker drains its requests, then the database stops`);
    setTimeout(() => {
      logger.error('shutdown deadline passed: exiting');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    await options.release();
    logger.info('stopped');
    process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker) ?? 0);
    started.delete(worker);
    serving.delete(worker);
    if (stopping) return;
    if (!allServing) {
      // A worker that cannot start (its one line is on stderr): the others would not either.
      void stop(`a worker could not start (exit code ${code})`, 1);
      return;
    }
    backoff = lived < STABLE_AFTER_MS ? Math.min(MAX_BACKOFF_MS, Math.max(FIRST_BACKOFF_MS, backoff * 2)) : 0;
    logger.warn(`worker ${worker.process.pid} ended (${signal ?? `exit code ${code}`}); starting a replacement${backoff ? ` in ${backoff} ms` : ''}`);
    setTimeout(() => {
      if (!stopping) fork();
    }, backoff);
  });
  // A terminal's Ctrl-C reaches the workers too (one process group): each drains on its own signal.
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => void stop(signal, 0));

  logger.info(`starting ${config.workers} workers`);
  for (let index = 0; index < config.workers; index += 1) fork();
}

/** The port is free on the interface the listener will bind (`host` undefined: every interface). */
function assertFree(port: number, variable: string, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `port ${port} (${variable}) is already in use`
            : error.code === 'EADDRNOTAVAIL'
              ? `${host ?? ''} (${variable === 'PORT' ? 'HOST' : 'ADMIN_HOST'}) is no address of this host`
              : `port ${port} (${variable}): ${error.message}`,
        ),
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
