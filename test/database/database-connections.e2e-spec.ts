import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { basic } from '../support/factories.js';
import { clientKey, dpopProof } from '../support/keys.js';
import { eventually, finished, runCli, startServerProcess } from '../support/processes.js';
import { freePorts, testDatabaseUrl } from '../support/test-app.js';
import type { CliClientJson } from '../support/bodies.js';

const POOL_SIZE = 10;

describe('DATABASE_POOL_SIZE with WORKERS=2 (server process)', () => {
  const database = `pool_${randomBytes(4).toString('hex')}`;
  let superuser: pg.Client;
  let running: ChildProcess | undefined;

  beforeAll(async () => {
    superuser = new pg.Client({ connectionString: testDatabaseUrl(), application_name: 'connection-counter' });
    await superuser.connect();
    await superuser.query(`CREATE DATABASE ${database}`);
  });

  // A failed test must not leave the server running (the workers follow the primary).
  afterAll(async () => {
    if (running && running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
    await superuser.query(`DROP DATABASE ${database} WITH (FORCE)`);
    await superuser.end();
  });

  async function connections(): Promise<number> {
    const { rows } = await superuser.query<{ count: number }>(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1`, [database]);
    return rows[0].count;
  }

  async function cliSessions(): Promise<number> {
    const { rows } = await superuser.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND application_name = 'authorization-server-cli'`,
      [database],
    );
    return rows[0].count;
  }

  it(`never holds more than DATABASE_POOL_SIZE=${POOL_SIZE} connections, under token, DPoP and admin load`, async () => {
    const url = new URL(testDatabaseUrl());
    url.pathname = `/${database}`;
    const databaseUrl = url.toString();
    const [port, adminPort] = await freePorts(2);
    const issuer = `http://127.0.0.1:${port}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const adminToken = randomBytes(16).toString('hex');
    const child = startServerProcess({
      WORKERS: '2',
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: adminToken,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ISSUER: issuer,
    });
    running = child;
    const exit = finished(child);
    await eventually(async () => ((await request(issuer).get('/health/ready')).status === 200 ? true : undefined), 60_000, 200);

    const clientId = `pool-${randomBytes(6).toString('hex')}`;
    const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Pool', '--scopes', 'read', '--json'], { DATABASE_URL: databaseUrl });
    const secret = (JSON.parse(created.stdout) as CliClientJson).client_secret;
    const proofKey = await clientKey('ES256');
    // The CLI's session (its own application_name) may outlive its process by a moment: wait it out.
    await eventually(async () => ((await cliSessions()) === 0 ? true : undefined), 10_000);

    let peak = 0;
    let stop = false;
    const sample = async () => {
      while (!stop) {
        peak = Math.max(peak, await connections());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    // Each request on a connection of its own, so that both workers serve; every kind of query: a
    // DPoP jti written by the replay store, admin reads and writes through TypeORM, the throttle.
    const load = async (lane: number) => {
      const statuses: number[] = [];
      for (let index = 0; !stop; index += 1) {
        const kind = (lane + index) % 3;
        const answer =
          kind === 0
            ? await request(issuer)
                .post('/oauth2/token')
                .set('Connection', 'close')
                .set('Authorization', basic(clientId, secret))
                .set('DPoP', await dpopProof(proofKey, `${issuer}/oauth2/token`))
                .type('form')
                .send({ grant_type: 'client_credentials', scope: 'read' })
            : kind === 1
              ? await request(adminUrl).get('/admin/purpose?page[size]=5').set('Connection', 'close').set('Authorization', adminToken)
              : await request(issuer)
                  .post('/oauth2/token')
                  .set('Connection', 'close')
                  .set('Authorization', basic(clientId, 'wrong-secret'))
                  .type('form')
                  .send({ grant_type: 'client_credentials', scope: 'read' });
        statuses.push(answer.status);
      }
      return statuses;
    };
    const sampler = sample();
    const lanes = Array.from({ length: 24 }, (_, lane) => load(lane));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    stop = true;
    const statuses = (await Promise.all(lanes)).flat();
    await sampler;

    console.log(`WORKERS=2, DATABASE_POOL_SIZE=${POOL_SIZE}: ${statuses.length} requests, at most ${peak} connections`);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(10);
    expect(statuses.every((status) => status < 500)).toBe(true);
    expect(peak).toBeLessThanOrEqual(POOL_SIZE);
    // The load reached the pools: more than the two workers' LISTEN sessions were open at once.
    expect(peak).toBeGreaterThan(2);

    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
  }, 90_000);
});
