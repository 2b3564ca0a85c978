// The drill's processes: everything started is remembered (its output kept in memory, and with
// DRILL_KEEP in NAME.log of the work folder) so that it can be stopped whatever happens; and the
// small waits every step uses.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const log = (line) => process.stdout.write(`[drill ${new Date().toISOString().slice(11, 23)}] ${line}\n`);
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export const children = [];
let workDir;

/** The temporary folder every process's log file goes to (removed at the end unless DRILL_KEEP). */
export function setWorkDir(dir) {
  workDir = dir;
}

export function removeWorkDir() {
  if (workDir && !process.env.DRILL_KEEP) rmSync(workDir, { recursive: true, force: true });
}

export function start(name, command, args, options = {}) {
  const logFile = join(workDir, `${name}.log`);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
  const chunks = [];
  // With DRILL_KEEP, every process's output also goes to NAME.log in the kept folder.
  const file = process.env.DRILL_KEEP ? createWriteStream(logFile) : undefined;
  const keep = (chunk) => {
    chunks.push(chunk);
    if (chunks.length > 2000) chunks.splice(0, 1000);
    file?.write(chunk);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const entry = { name, child, logFile, output: () => Buffer.concat(chunks).toString('utf8'), exited: false, code: null, signal: null };
  child.on('exit', (code, signal) => Object.assign(entry, { exited: true, code, signal }));
  child.on('error', (error) => Object.assign(entry, { exited: true, code: -1, signal: String(error.message) }));
  children.push(entry);
  return entry;
}

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function stopEntry(entry, signal = 'SIGTERM', waitMs = 15_000) {
  if (entry.exited || !entry.child.pid) return;
  try {
    process.kill(entry.child.pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + waitMs;
  while (!entry.exited && Date.now() < deadline) await sleep(100);
  if (!entry.exited) {
    try {
      process.kill(-entry.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

export function postmasterPid(dataDir) {
  try {
    return Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

export async function waitFor(what, check, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`);
}

export async function httpStatus(url, options = {}) {
  try {
    const response = await fetch(url, { ...options, signal: AbortSignal.timeout(options.timeoutMs ?? 2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
