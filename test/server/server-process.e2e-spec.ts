import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { basic } from '../support/factories.js';
import { eventually, finished, runCli, startServerProcess } from '../support/processes.js';
import { freePorts, testDatabaseUrl } from '../support/test-app.js';
import type { CliClientJson } from '../support/bodies.js';

describe('server start-up configuration', () => {
  it.each([
    ['TOKEN_SIGNING_ALG', { TOKEN_SIGNING_ALG: 'HS256' }],
    ['ACCESS_TOKEN_TTL', { ACCESS_TOKEN_TTL: 'soon' }],
    ['PORT', { PORT: 'not-a-port' }],
    ['ISSUER', { ISSUER: 'not a url' }],
    ['ADMIN_TOKEN', { DATABASE_URL: 'postgres://user:pw@127.0.0.1:1/db' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: 'plenty' }],
    ['DATABASE_POOL_SIZE', { WORKERS: '2', DATABASE_POOL_SIZE: '9' }],
    ['UDAP_CERT_FILE', { UDAP: 'true' }],
    ['UDAP_KEY_FILE', { UDAP: 'true', UDAP_CERT_FILE: '/nonexistent/udap.pem' }],
  ])('stops with one line naming %s and a non-zero exit', async (variable, environment) => {
    const result = await finished(startServerProcess(environment));
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain('pw@');
  });
});

describe('a port in use', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-port-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it.each([['PORT'], ['ADMIN_PORT']])('is the first and only line before the exit (%s), on stdout and stderr together', async (variable) => {
    const [port, adminPort] = await freePorts(2);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(variable === 'PORT' ? port : adminPort, resolve));
    try {
      const result = await finished(startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) }));
      expect(result.code).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`.trim().split('\n')).toEqual([
        `cannot start: port ${variable === 'PORT' ? port : adminPort} (${variable}) is already in use`,
      ]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('settings that look like ours', () => {
  it('warns once at start about a misspelt variable, naming the one it knows', async () => {
    const [port, adminPort] = await freePorts(2);
    const child = startServerProcess({
      ACCES_TOKEN_TTL: '60',
      LOG_FORMAT: 'json',
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: 'a-test-admin-token-of-enough-length-0123456789',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
    });
    const done = finished(child);
    try {
      await eventually(
        () =>
          child.exitCode === null
            ? request(`http://127.0.0.1:${port}`)
                .get('/health/ready')
                .then((response) => (response.status === 200 ? true : undefined))
            : true,
        30_000,
        200,
      );
    } finally {
      child.kill('SIGTERM');
    }
    const result = await done;
    const lines = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.includes('ACCES_TOKEN_TTL'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('did you mean ACCESS_TOKEN_TTL?');
    expect((JSON.parse(lines[0]) as { level: number }).level).toBe(40);
  });
});

describe('server on the embedded PostgreSQL (no DATABASE_URL)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-run-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('starts, serves tokens, keeps its data across a restart, and on SIGTERM completes requests in flight and exits 0', async () => {
    const [port, adminPort] = await freePorts(2);
    const environment = { DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) };
    const url = `http://127.0.0.1:${port}`;
    // `work` may return requests still in flight: SIGTERM is sent while they run.
    const run = async (work: () => Promise<Promise<unknown> | void>) => {
      const child = startServerProcess(environment);
      const exit = finished(child);
      await eventually(async () => ((await request(url).get('/.well-known/oauth-authorization-server')).status === 200 ? true : undefined), 60_000, 200);
      const inFlight = await work();
      child.kill('SIGTERM');
      await inFlight;
      const result = await exit;
      expect(result.code).toBe(0);
      return result;
    };

    let secret = '';
    const first = await run(async () => {
      const created = await runCli(['client', 'create', '--client-id', 'kept', '--name', 'Kept', '--scopes', 'read', '--json'], environment);
      expect(created.code).toBe(0);
      secret = (JSON.parse(created.stdout) as CliClientJson).client_secret;
      const response = await request(url)
        .post('/oauth2/token')
        .set('Authorization', basic('kept', secret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
      expect(response.status).toBe(200);
    });
    expect(first.stdout).toContain(join(dataDir, 'admin-token'));
    expect(first.stdout + first.stderr).not.toContain(secret);
    expect((await stat(join(dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);

    await run(async () => {
      // A fresh process has not verified the secret yet: these wait on scrypt when SIGTERM comes.
      const responses = Promise.all(
        Array.from({ length: 20 }, () =>
          request(url).post('/oauth2/token').set('Authorization', basic('kept', secret)).type('form').send({ grant_type: 'client_credentials', scope: 'read' }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      return responses.then((all) => expect(all.map((response) => response.status)).toEqual(Array(20).fill(200)));
    });
  }, 180_000);

  it('on SIGTERM, closes a request that never completes once the drain limit has passed, and still exits 0', async () => {
    const [port, adminPort] = await freePorts(2);
    const child = startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) });
    const exit = finished(child);
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => ((await request(url).get('/health/ready')).status === 200 ? true : undefined), 60_000, 200);
    // A body announced and never sent: the request stays in flight until its connection is closed.
    const stalled = connect(port, '127.0.0.1');
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write('POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=');
    const closed = new Promise((resolve) => stalled.once('close', resolve));
    stalled.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const result = await exit;
    await closed;
    expect(result.code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(20_000);
    expect(result.stdout).toContain('closing their connections');
  }, 120_000);
});
