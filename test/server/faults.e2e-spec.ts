import pg from 'pg';
import request from 'supertest';
import { JSON_PATCH } from '../support/admin.js';
import { basic, createClient } from '../support/factories.js';
import { eventually, finished, startServerProcess } from '../support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl } from '../support/test-app.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';

describe('kill -9 in the middle of a stream of admin PATCHes', () => {
  it('keeps every acknowledged request whole and no request partly stored', async () => {
    const [port, adminPort] = await freePorts(2);
    const adminToken = 'fault-test-admin-token-0123456789';
    const environment = { DATABASE_URL: testDatabaseUrl(), ADMIN_TOKEN: adminToken, PORT: String(port), ADMIN_PORT: String(adminPort) };
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const start = async () => {
      const child = startServerProcess(environment);
      const exit = finished(child);
      await eventually(async () => ((await request(`http://127.0.0.1:${port}`).get('/oauth2/jwks')).status === 200 ? true : undefined), 60_000, 100);
      return { child, exit };
    };
    const { child, exit } = await start();

    // Each request adds two purposes at once: ids base and base + 1.
    const base = 1_500_000_000 + Math.floor(Math.random() * 10_000) * 10_000;
    const acknowledged: number[] = [];
    const attempted: number[] = [];
    let stop = false;
    const stream = async (lane: number) => {
      for (let index = 0; !stop; index += 1) {
        const id = base + (index * 8 + lane) * 2;
        attempted.push(id);
        const body = JSON.stringify(
          [1, 0].map((offset) => ({ op: 'add', path: '/purpose', value: { type: 'purpose', id: id + 1 - offset, attributes: { name: `stream ${id}` } } })),
        );
        const response = await request(adminUrl)
          .patch('/admin')
          .set('Authorization', adminToken)
          .set('Content-Type', JSON_PATCH)
          .send(body)
          .catch(() => undefined);
        if (response?.status === 200) acknowledged.push(id);
      }
    };
    const lanes = Array.from({ length: 8 }, (_, lane) => stream(lane));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.kill('SIGKILL');
    await exit;
    stop = true;
    await Promise.all(lanes);
    expect(acknowledged.length).toBeGreaterThan(10);

    const { child: again, exit: againExit } = await start();
    try {
      const { DataSource } = await import('typeorm');
      const { buildDataSourceOptions } = await import('../../src/database/typeorm-options.js');
      const { ENTITIES } = await import('../../src/entities.js');
      const dataSource = await new DataSource(buildDataSourceOptions(testDatabaseUrl(), ENTITIES)).initialize();
      const rows: { id: number }[] = await dataSource.query('SELECT id FROM purpose WHERE id >= $1 AND id < $2', [base, base + 10_000_000]);
      await dataSource.destroy();
      const stored = new Set(rows.map((row) => row.id));
      const lost = acknowledged.filter((id) => !stored.has(id) || !stored.has(id + 1));
      const partial = attempted.filter((id) => stored.has(id) !== stored.has(id + 1));
      console.log(
        `kill -9: ${attempted.length} requests sent, ${acknowledged.length} acknowledged, ${lost.length} acknowledged writes lost, ${partial.length} partly stored`,
      );
      expect(lost).toEqual([]);
      expect(partial).toEqual([]);
      // The restarted server reads what was stored.
      const read = await request(adminUrl).get(`/admin/purpose/${acknowledged[0]}`).set('Authorization', adminToken);
      expect(read.status).toBe(200);
    } finally {
      again.kill('SIGTERM');
      expect((await againExit).code).toBe(0);
    }
  }, 120_000);
});

describe('database connections terminated under load', () => {
  it('answers 200 or 503 temporarily_unavailable, never another 5xx, and recovers within 5 s', async () => {
    const server = await startTestApp();
    try {
      const client = await createClient(server.app);
      const statuses = new Map<number, number>();
      let lastFailure = 0;
      let recoveredAt = 0;
      let terminatedAt = 0;
      let stop = false;
      const ask = async () => {
        while (!stop) {
          const response = await request(server.url)
            .post('/oauth2/token')
            .set('Authorization', basic(client.clientId, client.clientSecret))
            .type('form')
            .send({ grant_type: 'client_credentials', scope: 'read' });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status === 503) {
            expect(bodyOf<OAuthErrorBody>(response).error).toBe('temporarily_unavailable');
            expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
            lastFailure = Date.now();
          }
          if (response.status === 200 && terminatedAt && lastFailure && !recoveredAt) recoveredAt = Date.now();
        }
      };
      const workers = Array.from({ length: 10 }, ask);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Every connection of the server, the pool's and the change feed's, cut from the database side.
      const killer = new pg.Client({ connectionString: testDatabaseUrl(), application_name: 'fault-injector' });
      await killer.connect();
      terminatedAt = Date.now();
      const { rows } = await killer.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name LIKE 'authorization-server%' AND datname = current_database()`,
      );
      await killer.end();
      expect(rows.length).toBeGreaterThan(1);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      stop = true;
      await Promise.all(workers);
      console.log(`connections terminated: statuses ${[...statuses.entries()].map(([status, count]) => `${status}×${count}`).join(' ')}`);
      expect([...statuses.keys()].every((status) => status === 200 || status === 503)).toBe(true);
      if (lastFailure) expect(recoveredAt - terminatedAt).toBeLessThan(5_000);
      const final = await request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
      expect(final.status).toBe(200);
    } finally {
      await server.close();
    }
  }, 60_000);
});
