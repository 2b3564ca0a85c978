import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { startEmbeddedPostgres, type RunningDatabase } from '../../src/database/embedded-postgres.js';
import { consentWorld } from '../support/consent.js';
import { bodyOf, accessTokenClaims, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';
import { basic } from '../support/factories.js';
import { clientKey, dpopProof } from '../support/keys.js';
import { eventually, finished, startServerProcess } from '../support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

/** The parent's pid of a live process, or undefined once it is gone or a zombie (it holds nothing any more). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the name in parentheses (which may hold spaces): the state, then the parent's pid.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || state === 'X' ? undefined : Number(parent);
  } catch {
    return undefined;
  }
}

/** kill(2) that takes a process which has exited meanwhile as already done. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Kills the cluster in `clusterDir` as a power cut would: every process at once, no shutdown. The
 * postmaster is stopped first, so that it starts no new process (an autovacuum worker, a backend)
 * while its children are listed and killed; a child may end by itself meanwhile. Resolves once the
 * postmaster is gone, so that the next start does not mistake it for a live cluster.
 */
async function killCluster(clusterDir: string): Promise<void> {
  const postmaster = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  signal(postmaster, 'SIGSTOP');
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => parentOf(pid) === postmaster);
  for (const pid of children) signal(pid, 'SIGKILL');
  signal(postmaster, 'SIGKILL');
  // The children may stay zombies (their new parent reaps them); the postmaster, this process's own
  // child, must be reaped: a start that finds its pid alive takes the cluster for running.
  const gone = () => !existsSync(`/proc/${postmaster}`) && children.every((pid) => parentOf(pid) === undefined);
  await eventually(() => (gone() ? true : undefined), 10_000, 20);
}

describe('a kill -9 of the embedded PostgreSQL right after a token', () => {
  let dataDir: string;
  let database: RunningDatabase | undefined;
  // Closed after the test however it ends: an app left open keeps Jest from exiting.
  const apps: TestApp[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-durable-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('still refuses the DPoP proof jti it accepted, and still holds the disclosure row, after the restart', async () => {
    // A durable cluster of its own (the suite's shared one runs with fsync off).
    database = await startEmbeddedPostgres({ dataDir });
    const first = await startTestApp({ DATABASE_URL: database.url });
    apps.push(first);
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
    await killCluster(database.location ?? join(dataDir, 'postgres'));
    apps.splice(apps.indexOf(first), 1);
    await first.close().catch(() => undefined);

    database = await startEmbeddedPostgres({ dataDir });
    const second = await startTestApp({ DATABASE_URL: database.url, ISSUER: first.url });
    apps.push(second);
    const replayed = await ask(second);
    expect(replayed.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(replayed).error).toBe('invalid_dpop_proof');
    const jti = accessTokenClaims(bodyOf<TokenBody>(issued).access_token).jti;
    const rows: unknown[] = await second.dataSource.query('SELECT 1 FROM disclosure WHERE jti = $1', [jti]);
    expect(rows).toHaveLength(1);
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
