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
