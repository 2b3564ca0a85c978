import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export type Finished = { code: number | null; stdout: string; stderr: string };

/** Only what the child needs: no DATABASE_URL or tokens leaking in from the test's environment. */
export function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...extra };
}

/** Runs the compiled CLI (`npm test` builds first) to completion. */
export function runCli(args: string[], environment: Record<string, string>): Promise<Finished> {
  return finished(spawn(process.execPath, [resolve(ROOT, 'dist/src/cli.js'), ...args], { env: cleanEnvironment(environment), cwd: ROOT }));
}

/**
 * `detached`: the server leads a process group of its own, as in a terminal, so that a test can
 * signal the whole group (`process.kill(-pid, 'SIGINT')`, a terminal's Ctrl-C).
 */
export function startServerProcess(environment: Record<string, string>, options: { detached?: boolean } = {}): ChildProcess {
  return spawn(process.execPath, [resolve(ROOT, 'dist/src/main.js')], { env: cleanEnvironment(environment), cwd: ROOT, detached: options.detached });
}

export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/** Polls until `check` holds or the time is up; a check that throws or rejects has not held yet. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Two ports free right now below Linux's ephemeral range (32768+), where no outgoing connection can take them first. */
export async function lowFreePorts(): Promise<[number, number]> {
  const held: Server[] = [];
  try {
    while (held.length < 2) {
      const candidate = 20_000 + Math.floor(Math.random() * 12_000);
      const probe = createServer();
      const bound = await new Promise<boolean>((done) => {
        probe.once('error', () => done(false));
        probe.listen(candidate, '127.0.0.1', () => done(true));
      });
      if (bound) held.push(probe);
    }
    return held.map((probe) => (probe.address() as { port: number }).port) as [number, number];
  } finally {
    await Promise.all(held.map((probe) => new Promise((done) => probe.close(done))));
  }
}
