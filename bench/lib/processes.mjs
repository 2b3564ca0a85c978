// The benchmark's child processes and temp dirs, all tracked so that every exit path cleans up,
// and the notes (odd things seen along the way) printed at the end of the report.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, chmodSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESULTS_DIR, ROOT } from './settings.mjs';

const live = new Set(); // { name, child, exited: Promise<{code, signal}> }
const tempDirs = new Set();
export const notes = [];

// A server that did not come up: `detail` holds the tail of its output.
export class StartError extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

// Each child gets its own process group (detached) so that whatever it spawns
// (the embedded PostgreSQL) can be reaped with it, and Ctrl-C reaches only us.
export function startChild(name, args, env, logFile) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = { name, child, tail: [], stdout: '', logFile };
  proc.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  proc.exited.then(() => live.delete(proc));
  child.once('error', (err) => proc.tail.push(`spawn error: ${err.message}`));
  captureOutput(proc);
  live.add(proc);
  return proc;
}

// Keeps a full log on disk (bench/results/*.log), the stdout text in memory
// (the CLI prints its JSON there) and the last lines for error messages.
function captureOutput(proc) {
  const log = createWriteStream(proc.logFile);
  const onData = (stream) => (chunk) => {
    const text = chunk.toString();
    log.write(text);
    if (stream === 'stdout') proc.stdout += text;
    proc.tail.push(...text.split('\n').filter(Boolean));
    proc.tail.splice(0, Math.max(0, proc.tail.length - 15));
  };
  proc.child.stdout.on('data', onData('stdout'));
  proc.child.stderr.on('data', onData('stderr'));
  proc.exited.then(() => log.end());
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * `promise`'s value, or null when it has not settled within `ms`. The timer is cleared either way:
 * a timer left running would keep the bench alive after its report.
 */
export async function within(promise, ms) {
  const cancel = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, null, { signal: cancel.signal })]);
  } finally {
    cancel.abort();
  }
}

// Polite stop: SIGTERM to the main process only (it must stop its own
// database), then SIGKILL to the whole group if it hangs or leaves anything.
export async function stopChild(proc, timeoutMs = 20_000) {
  const { pid } = proc.child;
  if (live.has(proc)) {
    proc.child.kill('SIGTERM');
    const done = await within(proc.exited, timeoutMs);
    if (!done) notes.push(`${proc.name}: did not exit within ${timeoutMs / 1000} s of SIGTERM, killed`);
  }
  await reapGroup(proc.name, pid);
}

export async function reapGroup(name, pid) {
  for (let i = 0; i < 20 && groupAlive(pid); i++) await sleep(100);
  if (!groupAlive(pid)) return;
  notes.push(`${name}: processes of its group still running after it exited (killed)`);
  killGroup(pid, 'SIGKILL');
}

/** Stops a flooding process (bench/*-flood.mjs) and answers the summary line it printed last. */
export async function stopAttacker(proc) {
  proc.child.kill('SIGTERM');
  await within(proc.exited, 10_000);
  await reapGroup(proc.name, proc.child.pid);
  return proc.stdout.trim().split('\n').pop();
}

let cleaningUp = null;
export function cleanup() {
  cleaningUp ??= (async () => {
    await Promise.all([...live].map((proc) => stopChild(proc, 5_000)));
    for (const dir of tempDirs) removeDataDir(dir);
  })();
  return cleaningUp;
}

// Last resort if we exit without awaiting cleanup(): synchronous, no waiting.
export function cleanUpOnExit() {
  process.on('exit', () => {
    for (const proc of live) killGroup(proc.child.pid, 'SIGKILL');
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, async () => {
      console.error(`\nbench: ${signal} received, stopping child processes`);
      await cleanup();
      process.exit(130);
    });
  }
}

// The embedded PostgreSQL runs as user postgres: its dir must be reachable.
export function makeDataDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oauth-bench-'));
  chmodSync(dir, 0o755);
  tempDirs.add(dir);
  return dir;
}

// A PostgreSQL whose server died without stopping it would keep its data dir
// busy: find its postmaster.pid and stop it before removing the directory.
export function removeDataDir(dir) {
  for (const pidFile of findFiles(dir, 'postmaster.pid', 4)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid > 0 && processAlive(pid)) {
      notes.push(`PostgreSQL (pid ${pid}) still running in ${dir} after the server stopped (killed)`);
      process.kill(pid, 'SIGKILL');
    }
  }
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

function findFiles(dir, name, depth) {
  if (depth < 0 || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findFiles(full, name, depth - 1);
    return entry.name === name ? [full] : [];
  });
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function logPath(name, alg) {
  return path.join(RESULTS_DIR, `${name}-${alg}.log`);
}

export function failStart(proc, reason) {
  const tail = proc.tail.map((line) => `  | ${line}`).join('\n');
  const log = path.relative(ROOT, proc.logFile);
  return new StartError(`${proc.name} did not start: ${reason} (full output in ${log})`, `last output of ${proc.name}:\n${tail}`);
}

// Poll until the server answers `ok(status)`; fail early if it exits.
export async function waitReady(proc, url, timeoutMs, ok = (status) => status === 200) {
  const deadline = Date.now() + timeoutMs;
  let exit = null;
  proc.exited.then((e) => {
    exit = e;
  });
  while (Date.now() < deadline) {
    if (exit) throw failStart(proc, `exited early (code ${exit.code}, signal ${exit.signal})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (ok(res.status)) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw failStart(proc, `no ready answer from ${url} within ${timeoutMs / 1000} s`);
}
