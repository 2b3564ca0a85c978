import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** `docker-compose config` (Debian's docker-compose 1.29 parses without a Docker engine). */
function composeConfig(): string {
  const result = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, POSTGRES_PASSWORD: 'compose-check-only' },
  });
  if (result.error) {
    throw new Error(`docker-compose cannot run (${result.error.message}): install it (apt-get install -y docker-compose); this check must not be skipped`);
  }
  if (result.status !== 0) throw new Error(`docker-compose config failed:\n${result.stderr}`);
  return result.stdout;
}

/** Values of `key:` lines of the normalised configuration (absolute paths). */
function valuesOf(config: string, key: string): string[] {
  return [...config.matchAll(new RegExp(`^\\s*${key}: (.+)$`, 'gm'))].map((match) => match[1].trim());
}

describe('deployment files', () => {
  let config: string;

  beforeAll(() => {
    config = composeConfig();
  });

  it('has a compose file that docker-compose parses and validates', () => {
    expect(config).toMatch(/^services:$/m);
    const quiet = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, POSTGRES_PASSWORD: 'compose-check-only' },
    });
    expect(quiet.status).toBe(0);
  });

  it('references only build contexts, Dockerfiles and other files of the checkout that exist', () => {
    const contexts = valuesOf(config, 'context');
    expect(contexts.length).toBeGreaterThan(0);
    for (const context of contexts) {
      expect(existsSync(context)).toBe(true);
      expect(existsSync(join(context, valuesOf(config, 'dockerfile')[0] ?? 'Dockerfile'))).toBe(true);
    }
    // docker-compose config writes every local file as an absolute path: each one but the
    // secrets (next test) must exist.
    const secrets = new Set(valuesOf(config, 'file'));
    const paths = [...config.matchAll(new RegExp(`${ROOT}[^\\s:'"]*`, 'g'))].map((match) => match[0]);
    for (const path of paths.filter((path) => !secrets.has(path))) expect([path, existsSync(path)]).toEqual([path, true]);
  });

  it('references secret files that exist or that secrets/README.md tells the operator to create', () => {
    const files = valuesOf(config, 'file');
    expect(files.length).toBeGreaterThan(0);
    const instructions = readFileSync(join(ROOT, 'secrets/README.md'), 'utf8');
    for (const file of files) {
      const path = relative(ROOT, file);
      if (existsSync(file)) continue;
      expect(path.startsWith('secrets/')).toBe(true);
      expect(instructions).toContain(`> ${path}`);
    }
  });

  it('has a Dockerfile whose every COPY from the build context exists and is not excluded by .dockerignore', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const sources = dockerfile
      .split('\n')
      .filter((line) => /^COPY\s/.test(line) && !line.includes('--from='))
      .flatMap((line) =>
        line
          .trim()
          .split(/\s+/)
          .slice(1)
          .filter((word) => !word.startsWith('--'))
          .slice(0, -1),
      );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
      expect([source, ignored.includes(source.replace(/^\.\/|\/$/g, ''))]).toEqual([source, false]);
    }
  });

  it('publishes the server ports as ranges, so `--scale` can run several instances, the admin port on loopback only', () => {
    const server = config.slice(config.indexOf('\n  server:'));
    const ports = server.slice(server.indexOf('    ports:'), server.indexOf('    restart:'));
    expect(ports).toMatch(/published: \d+-\d+\s+target: 3000/);
    expect(ports).toMatch(/- 127\.0\.0\.1:\d+-\d+:3001/);
    expect(server).not.toMatch(/container_name:/);
  });
});

/** The highly available set (docs/operations/high-availability.md), parsed the same way. */
describe('the high-availability compose file (ops/ha/docker-compose.yml)', () => {
  const file = 'ops/ha/docker-compose.yml';
  const environment = {
    PATH: process.env.PATH,
    SUPERUSER_PASSWORD: 'compose-check-only',
    REPLICATION_PASSWORD: 'compose-check-only',
    APP_DB_PASSWORD: 'compose-check-only',
  };
  let config: string;

  beforeAll(() => {
    const result = spawnSync('docker-compose', ['-f', file, 'config'], { cwd: ROOT, encoding: 'utf8', env: environment });
    if (result.error) throw new Error(`docker-compose cannot run (${result.error.message}): install it (apt-get install -y docker-compose)`);
    if (result.status !== 0) throw new Error(`docker-compose config failed:\n${result.stderr}`);
    config = result.stdout;
  });

  it('parses and validates', () => {
    const quiet = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { cwd: ROOT, env: environment });
    expect(quiet.status).toBe(0);
  });

  it('refuses to start without its passwords', () => {
    const result = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/PASSWORD/);
  });

  it('references only build contexts, Dockerfiles and mounted files that exist', () => {
    const contexts = valuesOf(config, 'context');
    expect(contexts.length).toBeGreaterThan(0);
    for (const context of contexts) expect([context, existsSync(context)]).toEqual([context, true]);
    expect(existsSync(join(ROOT, 'ops/ha/patroni.Dockerfile'))).toBe(true);
    // Every local path (build contexts, the mounted HAProxy configuration) written absolute; the admin token is a secret the operator makes.
    const secret = join(ROOT, 'secrets/admin-token');
    const paths = [...config.matchAll(new RegExp(`${ROOT}[^\\s:'"]*`, 'g'))].map((match) => match[0]).filter((path) => path !== secret);
    expect(paths.some((path) => path.endsWith('haproxy-compose.cfg'))).toBe(true);
    for (const path of paths) expect([path, existsSync(path)]).toEqual([path, true]);
  });

  it('runs etcd, three Patroni nodes, HAProxy and two server instances whose DATABASE_URL is HAProxy', () => {
    for (const service of ['etcd', 'patroni1', 'patroni2', 'patroni3', 'haproxy', 'server1', 'server2'])
      expect(config).toMatch(new RegExp(`^  ${service}:$`, 'm'));
    const urls = valuesOf(config, 'DATABASE_URL');
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(new URL(url).host).toBe('haproxy:5000');
  });

  it('checks GET /primary in HAProxy and closes a down node’s sessions; Patroni runs synchronous and strict', () => {
    const haproxy = readFileSync(join(ROOT, 'ops/ha/haproxy-compose.cfg'), 'utf8');
    expect(haproxy).toMatch(/option httpchk GET \/primary/);
    expect(haproxy).toMatch(/on-marked-down shutdown-sessions/);
    for (const patroni of ['ops/ha/patroni-compose.yml', 'ops/ha/patroni.yml']) {
      const settings = readFileSync(join(ROOT, patroni), 'utf8');
      expect(settings).toMatch(/^\s+synchronous_mode: true$/m);
      expect(settings).toMatch(/^\s+synchronous_mode_strict: true$/m);
      expect(settings).toMatch(/^\s+synchronous_commit: 'on'$/m);
    }
  });
});
