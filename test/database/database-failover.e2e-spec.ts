import pg from 'pg';
import request from 'supertest';
import { isDatabaseUnavailable } from '../../src/common/database-errors.js';
import { durablePool, GroupCommit } from '../../src/database/group-commit.js';
import { JSON_PATCH, add, freshIds } from '../support/admin.js';
import { bodyOf, type JsonApiErrors, type OAuthErrorBody } from '../support/bodies.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { eventually } from '../support/processes.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { freshDatabase, startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

/**
 * What the server does while a PostgreSQL primary fails over (docs/operations/high-availability.md):
 * connections it holds are cut under it, and for a moment the node it reaches is read-only.
 */
describe('a group-commit connection cut under a batch in flight', () => {
  const proxies: TcpProxy[] = [];
  const pools: pg.Pool[] = [];

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
    await Promise.all(proxies.map((proxy) => proxy.cut()));
  });

  async function behindProxy(): Promise<{ proxy: TcpProxy; pool: pg.Pool; port: number }> {
    const target = new URL(testDatabaseUrl());
    const proxy = new TcpProxy(target.hostname, Number(target.port));
    const port = await proxy.start();
    target.port = String(port);
    const pool = durablePool(target.toString(), 'failover-test', 2);
    proxies.push(proxy);
    pools.push(pool);
    return { proxy, pool, port };
  }

  it('fails that batch as "database unavailable" and the process carries on', async () => {
    const { proxy, pool, port } = await behindProxy();
    // Slow enough for the cut to land while the connection is held by the batch.
    const batches = new GroupCommit<number, number>(pool, async (client, items) => {
      await client.query('SELECT pg_sleep(2)');
      return [...items];
    });
    const pending = batches.submit(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.cut();
    const error = await pending.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeDefined();
    expect(isDatabaseUnavailable(error)).toBe(true);

    // The next batch gets a new connection once the database is reachable again.
    await proxy.start(port);
    await expect(batches.submit(2)).resolves.toBe(2);
  });

  it('answers a waiter "database unavailable" once its deadline passes, even if its batch has not returned', async () => {
    const { pool } = await behindProxy();
    const batches = new GroupCommit<number, number>(
      pool,
      async (client, items) => {
        await client.query('SELECT pg_sleep(1.5)');
        return [...items];
      },
      { deadlineMs: 200 },
    );
    const error = await batches.submit(1).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});

describe('a database that turns read-only (a primary being demoted) and back', () => {
  let databaseUrl: string;
  let server: TestApp;
  let world: ConsentGrant;
  let key: ClientKey;
  let keyClientId: string;

  // What HAProxy's shutdown-sessions does when it marks a node down: every session of the server ends.
  async function endSessions(): Promise<void> {
    const name = new URL(databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
    } finally {
      await admin.end();
    }
  }

  async function setReadOnly(on: boolean): Promise<void> {
    const name = new URL(databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query(on ? `ALTER DATABASE ${name} SET default_transaction_read_only = on` : `ALTER DATABASE ${name} RESET default_transaction_read_only`);
    } finally {
      await admin.end();
    }
    await endSessions();
  }

  const resourceToken = () =>
    request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(world.clientId, world.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${world.definitionName}:read` });

  const assertionToken = async () =>
    request(server.url)
      .post('/oauth2/token')
      .type('form')
      .send({
        grant_type: 'client_credentials',
        scope: 'read',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(key, keyClientId, server.url),
      });

  beforeAll(async () => {
    databaseUrl = await freshDatabase('failover');
    server = await startTestApp({ DATABASE_URL: databaseUrl });
    world = await consentWorld(server);
    key = await clientKey('ES256');
    keyClientId = await createKeyClient(server.app, key);
    expect((await resourceToken()).status).toBe(200);
    expect((await assertionToken()).status).toBe(200);
    await setReadOnly(true);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('answers a resource-scope token 503 temporarily_unavailable with Retry-After, not 500', async () => {
    const response = await resourceToken();
    expect(response.status).toBe(503);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('temporarily_unavailable');
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(response.body).not.toHaveProperty('access_token');
  });

  it('answers a private_key_jwt token (its jti cannot be stored) 503 temporarily_unavailable with Retry-After', async () => {
    const response = await assertionToken();
    expect(response.status).toBe(503);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('temporarily_unavailable');
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  });

  it('answers an administrative change 503 as a JSON:API error with Retry-After', async () => {
    const response = await request(server.adminUrl)
      .patch('/admin')
      .set('Authorization', server.adminToken)
      .set('Content-Type', JSON_PATCH)
      .send(JSON.stringify([add('purpose', { id: freshIds(1)[0], attributes: { name: 'while read-only' } })]));
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    expect(bodyOf<JsonApiErrors>(response).errors[0].status).toBe('503');
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  });

  it('says not ready on /health/ready while the database is read-only', async () => {
    const response = await request(server.url).get('/health/ready');
    expect(response.status).toBe(503);
    expect(JSON.stringify(response.body)).toContain('read-only');
  });

  it('serves tokens and says ready again, without a restart, once the database takes writes', async () => {
    await setReadOnly(false);
    await eventually(async () => ((await request(server.url).get('/health/ready')).status === 200 ? true : undefined), 5_000, 100);
    expect((await resourceToken()).status).toBe(200);
    expect((await assertionToken()).status).toBe(200);
  });
});

describe('a connection lent by a pool', () => {
  let server: TestApp;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
    await server?.close();
  });

  // A FATAL message read in the same socket chunk as ReadyForQuery reaches a connection the pool
  // has just lent, before its borrower added a listener: it must not end the process.
  it.each([
    ['the durable-write pool', () => durablePool(testDatabaseUrl(), 'failover-test', 1)],
    ["TypeORM's pool", () => (server.dataSource.driver as unknown as { master: pg.Pool }).master],
  ])('keeps an error listener on every connection of %s, also while it is lent', async (_, poolOf) => {
    const pool = poolOf();
    if (pool !== (server.dataSource.driver as unknown as { master: pg.Pool }).master) pools.push(pool);
    const client = await pool.connect();
    try {
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      expect(() => client.emit('error', new Error('terminating connection due to unexpected postmaster exit'))).not.toThrow();
    } finally {
      client.release(new Error('discarded by the test'));
    }
  });
});
