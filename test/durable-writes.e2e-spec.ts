import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { startEmbeddedPostgres, type RunningDatabase } from '../src/database/embedded-postgres.js';
import { consentWorld } from './support/consent.js';
import { bodyOf, accessTokenClaims, type OAuthErrorBody, type TokenBody } from './support/bodies.js';
import { basic } from './support/factories.js';
import { clientKey, dpopProof } from './support/keys.js';
import { eventually, finished, startServerProcess } from './support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl, type TestApp } from './support/test-app.js';

/** The postmaster of the cluster in `clusterDir` and every process it started. */
function clusterProcesses(clusterDir: string): number[] {
  const postmaster = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // The fourth field of /proc/<pid>/stat is the parent's pid (the name in parentheses may hold spaces).
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    });
  return [...children.map(Number), postmaster];
}

describe('a kill -9 of the embedded PostgreSQL right after a token', () => {
  let dataDir: string;
  let database: RunningDatabase | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-durable-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('still refuses the DPoP proof jti it accepted, and still holds the disclosure row, after the restart', async () => {
    // A durable cluster of its own (the suite's shared one runs with fsync off).
    database = await startEmbeddedPostgres({ dataDir });
    const first = await startTestApp({ DATABASE_URL: database.url });
    const grant = await consentWorld(first);
    const key = await clientKey('ES256');
    const proof = await dpopProof(key, `${first.url}/oauth2/token`);
    const ask = (server: TestApp) =>
      request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(grant.clientId, grant.secret))
        .set('DPoP', proof)
        .type('form')
        .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` });
    const issued = await ask(first);
    expect(issued.status).toBe(200);
    // At once, before any background WAL flush: every process of the cluster.
    for (const pid of clusterProcesses(join(dataDir, 'postgres'))) process.kill(pid, 'SIGKILL');
    await first.close().catch(() => undefined);

    database = await startEmbeddedPostgres({ dataDir });
    const second = await startTestApp({ DATABASE_URL: database.url, ISSUER: first.url });
    try {
      const replayed = await ask(second);
      expect(replayed.status).toBe(400);
      expect(bodyOf<OAuthErrorBody>(replayed).error).toBe('invalid_dpop_proof');
      const jti = accessTokenClaims(bodyOf<TokenBody>(issued).access_token).jti;
      const rows: unknown[] = await second.dataSource.query('SELECT 1 FROM disclosure WHERE jti = $1', [jti]);
      expect(rows).toHaveLength(1);
    } finally {
      await second.close();
    }
  }, 120_000);
});

describe('a kill -9 of the server right after a resource-scope token', () => {
  it('leaves the disclosure row of the token it answered', async () => {
    const setup = await startTestApp();
    const grant = await consentWorld(setup);
    await setup.close();
    const [port, adminPort] = await freePorts(2);
    const child = startServerProcess({
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: 'durable-test-admin-token-0123',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
    });
    const exit = finished(child);
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => ((await request(url).get('/health/ready')).status === 200 ? true : undefined), 60_000, 100);
    const issued = await request(url)
      .post('/oauth2/token')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` });
    child.kill('SIGKILL');
    await exit;
    expect(issued.status).toBe(200);
    const jti = accessTokenClaims(bodyOf<TokenBody>(issued).access_token).jti;
    const client = new pg.Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT request_id FROM disclosure WHERE jti = $1', [jti]);
      expect(rows).toEqual([{ request_id: issued.headers['x-request-id'] }]);
    } finally {
      await client.end();
    }
  }, 90_000);
});
