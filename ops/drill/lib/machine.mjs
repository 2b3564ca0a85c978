// The machine the drill runs on: Debian's packages (installed with apt-get when missing), the
// postgres user, free ports below the ephemeral range, and the templates of ops/ha/ filled in.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { log } from './processes.mjs';

const PACKAGES = { patroni: 'patroni', etcd: 'etcd-server', etcdctl: 'etcd-client', haproxy: 'haproxy' };

export function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

export function postgresBinDir() {
  for (const version of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'postgres'))) return dir;
  }
  return undefined;
}

export function ensurePackages() {
  const missing = Object.entries(PACKAGES)
    .filter(([command]) => !which(command))
    .map(([, pkg]) => pkg);
  if (!postgresBinDir()) missing.push('postgresql-15');
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`missing packages (${missing.join(' ')}): install them with apt-get as root`);
  log(`installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Debian's packages start their own services where systemd runs; policy-rc.d keeps them off.
  const policy = '/usr/sbin/policy-rc.d';
  const hadPolicy = existsSync(policy);
  if (!hadPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env, timeout: 600_000 });
    if (result.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env, timeout: 300_000 });
      result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env, timeout: 600_000 });
    }
    if (result.status !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed`);
  } finally {
    if (!hadPolicy) rmSync(policy, { force: true });
  }
}

export function postgresUser() {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0) throw new Error('no postgres user: install postgresql-15 (apt-get install postgresql-15)');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function portFree(port) {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

// Ports from a random spot in 20000-31999 (never the ephemeral range, where an outgoing
// connection can take a port between the probe and the bind). DRILL_BASE_PORT=N takes N, N+1, …
// in order instead (docs/operations/high-availability.md#the-drill), each of which must be free.
export async function freePorts(count) {
  const base = process.env.DRILL_BASE_PORT;
  if (base !== undefined) {
    const first = Number(base);
    if (!/^\d{4,5}$/.test(base) || first < 1024 || first + count - 1 > 32_767) {
      throw new Error(`DRILL_BASE_PORT must be a port from 1024 to ${32_767 - count + 1} (the drill takes ${count} in a row), got ${JSON.stringify(base)}`);
    }
    const ports = Array.from({ length: count }, (_, index) => first + index);
    for (const port of ports) if (!(await portFree(port))) throw new Error(`DRILL_BASE_PORT: port ${port} is in use`);
    return ports;
  }
  const ports = [];
  let candidate = 20_000 + Math.floor(Math.random() * 11_000);
  for (let tries = 0; ports.length < count && tries < 2_000; tries += 1, candidate += 1) {
    if (candidate >= 32_000) candidate = 20_000;
    if (await portFree(candidate)) ports.push(candidate);
  }
  if (ports.length < count) throw new Error('not enough free ports below 32000');
  return ports;
}

/** A template of ops/ha/ with its ${NAME} placeholders filled in. */
export function fill(template, values) {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`no value for \${${name}}`);
    return String(values[name]);
  });
}
