import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run } from './certificates.js';
import { eventually } from './processes.js';

// Debian's Apache with liboauth2's mod_oauth2, run in the foreground from a folder of the test's
// own, for the interop tier (docs/guides/resource-server-configurations.md, docs/guides/mtls.md).

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';

/** A running Apache; `stop` ends it and waits for it. */
export type Apache = { stop: () => Promise<void> };

/** Throws, naming the packages, when Apache or mod_oauth2 is not installed. */
export function requireModOauth2(): void {
  if (!existsSync(APACHE) || !existsSync(`${MODULES}/mod_oauth2.so`)) {
    throw new Error('this test needs Apache and mod_oauth2: apt-get install -y apache2 libapache2-mod-oauth2');
  }
}

/** The server-wide lines every configuration starts with: `modules` loaded, one listener on loopback, files under `root`. */
export function apacheHead(root: string, port: number, modules: string[]): string[] {
  return [
    ...modules.map((name) => `LoadModule ${name}_module ${MODULES}/mod_${name}.so`),
    `ServerRoot ${root}`,
    `PidFile ${root}/httpd.pid`,
    `ErrorLog ${root}/error.log`,
    'LogLevel warn',
    `Listen 127.0.0.1:${port}`,
    'ServerName localhost',
    `DocumentRoot ${root}/htdocs`,
    'User nobody',
    'Group nogroup',
    `Mutex file:${root} default`,
  ];
}

/**
 * Writes `documents` (name → body) under `root`/htdocs and `config` as `root`/httpd.conf, starts
 * Apache on it and waits until `answers()` says it serves; a start that fails throws with its error log.
 */
export async function startApache(root: string, config: string, documents: Record<string, string>, answers: () => Promise<boolean>): Promise<Apache> {
  mkdirSync(join(root, 'htdocs'), { recursive: true });
  for (const [name, body] of Object.entries(documents)) writeFileSync(join(root, 'htdocs', name), body);
  writeFileSync(join(root, 'httpd.conf'), config);
  // Apache reads ServerRoot's folder as the user it drops to; the temp folder must let it through.
  await run('chmod', ['-R', 'a+rX', dirname(root)]);
  const child = spawn(APACHE, ['-f', join(root, 'httpd.conf'), '-DFOREGROUND'], { stdio: 'ignore', env: { ...process.env, APACHE_RUN_DIR: root } });
  const apache = { stop: () => stopApache(child) };
  await eventually(async () => ((await answers().catch(() => false)) ? true : undefined), 20_000, 200).catch(async (error: unknown) => {
    await apache.stop();
    const log = existsSync(join(root, 'error.log')) ? readFileSync(join(root, 'error.log'), 'utf8') : '';
    throw new Error(`Apache did not start: ${String(error)}\n${log}`);
  });
  return apache;
}

async function stopApache(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
