import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startBehindProxy } from '../support/tcp-proxy.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { bodyOf, type JsonApiErrors, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';

describe('token endpoint without its database', () => {
  let database: Awaited<ReturnType<typeof startBehindProxy>>;
  let server: TestApp;

  beforeAll(async () => {
    database = await startBehindProxy();
    server = database.server;
  });

  afterAll(() => database.close());

  it('answers 503 temporarily_unavailable while the database is unreachable, and recovers', async () => {
    const client = await createClient(server.app);
    const ask = () =>
      request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
    expect((await ask()).status).toBe(200);

    await database.proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await ask();
    expect(response.status).toBe(503);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('temporarily_unavailable');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBeTruthy();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(JSON.stringify(response.body)).not.toMatch(/ECONN|postgres|SELECT/i);

    await database.restore();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await ask()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  });
});

/**
 * The ways PostgreSQL says "not now", provoked on a database and role of their own (a role that
 * is not a superuser, since superusers pass connection limits): every one is a 503
 * temporarily_unavailable with Retry-After, never a 500.
 */
describe('PostgreSQL saying "not now"', () => {
  const suffix = randomBytes(4).toString('hex');
  const database = `notnow_${suffix}`;
  const role = `notnow_${suffix}`;
  let superuser: pg.Client;
  let server: TestApp;
  let client: TestClient;
  let accessToken: string;

  beforeAll(async () => {
    superuser = new pg.Client({ connectionString: testDatabaseUrl(), application_name: 'fault-injector' });
    await superuser.connect();
    await superuser.query(`CREATE ROLE ${role} LOGIN PASSWORD 'not-now-password'`);
    await superuser.query(`CREATE DATABASE ${database} OWNER ${role}`);
    server = await startTestApp({ DATABASE_URL: roleUrl() });
    client = await createClient(server.app, { allowedScopes: 'uma_protection read' });
    accessToken = bodyOf<TokenBody>(await tokenRequest()).access_token;
    expect(accessToken).toBeTruthy();
  });

  afterEach(async () => {
    await superuser.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    await superuser.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`);
    await eventually(async () => ((await tokenRequest()).status === 200 ? true : undefined), 10_000, 100);
  });

  afterAll(async () => {
    await server.close();
    await superuser.query(`DROP DATABASE ${database} WITH (FORCE)`);
    await superuser.query(`DROP ROLE ${role}`);
    await superuser.end();
  });

  function roleUrl(): string {
    const url = new URL(testDatabaseUrl());
    Object.assign(url, { username: role, password: 'not-now-password', pathname: `/${database}` });
    return url.toString();
  }

  const tokenRequest = (target: TestApp = server, who: TestClient = client) =>
    request(target.url)
      .post('/oauth2/token')
      .set('Authorization', basic(who.clientId, who.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });

  // A transaction of the test's own holding the client table: the server's next client lookup waits on it.
  async function lockClients(): Promise<pg.Client> {
    const url = new URL(testDatabaseUrl());
    url.pathname = `/${database}`;
    const locker = new pg.Client({ connectionString: url.toString(), application_name: 'fault-injector' });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE client IN ACCESS EXCLUSIVE MODE');
    return locker;
  }

  async function waitingOnLock(): Promise<number[]> {
    const { rows } = await superuser.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`, [database]);
    return rows.map((row: { pid: number }) => row.pid);
  }
  const lifecycleRequest = (path: string) =>
    request(server.url).post(path).set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send({ token: accessToken });
  const adminRequest = () => request(server.adminUrl).get('/admin/purpose').set('Authorization', server.adminToken);

  // Every connection of the server is ended from the database side, so the next query needs a new one.
  // A session the server was opening as the refusal took effect may show up after the first
  // sweep (its reconnecting pools and change feed keep trying): each try ends whatever is there.
  async function dropServerConnections(): Promise<void> {
    await eventually(
      async () => {
        await superuser.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database]);
        const { rows } = await superuser.query<{ count: number }>(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1`, [database]);
        return rows[0].count === 0 ? true : undefined;
      },
      15_000,
      100,
    );
  }

  function expectOAuthUnavailable(response: request.Response): void {
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) as unknown });
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(response.headers['cache-control']).toBe('no-store');
  }

  function expectAdminUnavailable(response: request.Response): void {
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    expect(bodyOf<JsonApiErrors>(response).errors).toEqual([expect.objectContaining({ status: '503', code: 'temporarily_unavailable' })]);
    expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  }

  it('answers 503 with Retry-After at the token, introspection, revocation and admin endpoints while the database accepts no new connections (ALLOW_CONNECTIONS false: FATAL 55000)', async () => {
    await superuser.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await dropServerConnections();
    expectOAuthUnavailable(await tokenRequest());
    expectOAuthUnavailable(await lifecycleRequest('/oauth2/introspect'));
    expectOAuthUnavailable(await lifecycleRequest('/oauth2/revoke'));
    expectAdminUnavailable(await adminRequest());
  });

  it('answers 503 with Retry-After while the role has no connection left (53300)', async () => {
    await superuser.query(`ALTER ROLE ${role} CONNECTION LIMIT 0`);
    await dropServerConnections();
    expectOAuthUnavailable(await tokenRequest());
    expectOAuthUnavailable(await lifecycleRequest('/oauth2/introspect'));
    expectOAuthUnavailable(await lifecycleRequest('/oauth2/revoke'));
    expectAdminUnavailable(await adminRequest());
  });

  it('answers 503 with Retry-After when the session running its query is terminated (57P01)', async () => {
    const fresh = await createClient(server.app, { allowedScopes: 'read' });
    const locker = await lockClients();
    try {
      const pending = tokenRequest(server, fresh).then((response) => response);
      const [waiting] = await eventually(async () => ((await waitingOnLock()).length > 0 ? waitingOnLock() : undefined), 5_000, 20);
      await superuser.query('SELECT pg_terminate_backend($1)', [waiting]);
      expectOAuthUnavailable(await pending);
    } finally {
      await locker.end();
    }
  });

  it('answers 503 with Retry-After when the pool has no connection to give in time', async () => {
    // DATABASE_POOL_SIZE=5: the change feed's, the replay store's, the disclosure writer's, and two for TypeORM.
    const small = await startTestApp({ DATABASE_URL: roleUrl(), DATABASE_POOL_SIZE: '5' });
    try {
      const clients = [];
      for (let index = 0; index < 3; index += 1) clients.push(await createClient(small.app, { allowedScopes: 'read' }));
      const locker = await lockClients();
      let held: Promise<request.Response>[] = [];
      try {
        // Two lookups hold TypeORM's two connections, waiting on the lock; the third waits for the pool.
        held = clients.slice(0, 2).map((who) => tokenRequest(small, who).then((response) => response));
        await eventually(async () => ((await waitingOnLock()).length === 2 ? true : undefined), 5_000, 20);
        expectOAuthUnavailable(await tokenRequest(small, clients[2]));
      } finally {
        await locker.end();
      }
      expect((await Promise.all(held)).map((response) => response.status)).toEqual([200, 200]);
    } finally {
      await small.close();
    }
  }, 30_000);
});
