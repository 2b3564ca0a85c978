import { createServer } from 'node:net';
import type { AppConfig } from '../config/app-config.js';

/**
 * Before anything starts (the embedded PostgreSQL, the application and their log lines), a trial
 * listen on each listener's port and address: a port in use is then the first and only line
 * before the exit (docs/operations/shutdown.md#starting), not the last of a start that logged the
 * database's start and the warnings of jobs it cut short. The real listen still says the same if
 * another process takes the port in between.
 */
export async function refuseUnusablePorts(config: Pick<AppConfig, 'port' | 'host' | 'adminPort' | 'adminHost'>): Promise<void> {
  await tryListen(config.port, config.host).catch((error: unknown) => {
    throw listenError(error, 'PORT', config.port, 'HOST', config.host);
  });
  await tryListen(config.adminPort, config.adminHost).catch((error: unknown) => {
    throw listenError(error, 'ADMIN_PORT', config.adminPort, 'ADMIN_HOST', config.adminHost);
  });
}

/** Listens on `port` (every interface when `host` is unset, as Node and the real listeners do) and closes at once. */
function tryListen(port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** A listen failure in the operator's words, naming the variable. */
export function listenError(error: unknown, variable: string, port: number, hostVariable: string, host: string | undefined): Error {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRNOTAVAIL') return new Error(`${host ?? ''} (${hostVariable}) is no address of this host`);
  if (code === 'EADDRINUSE') return new Error(`port ${port} (${variable}) is already in use`);
  if (code === 'EACCES') return new Error(`port ${port} (${variable}) may not be used by this user`);
  return error instanceof Error ? error : new Error(String(error));
}
