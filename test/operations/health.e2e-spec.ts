import request from 'supertest';
import { startBehindProxy } from '../support/tcp-proxy.js';
import type { TestApp } from '../support/test-app.js';
import { eventually } from '../support/processes.js';
import { bodyOf } from '../support/bodies.js';

/** A readiness report: each check's status, failed checks under `error`. */
type HealthBody = { status: string; details: Record<string, { status: string }>; error?: Record<string, { status: string }> };

describe('health endpoints', () => {
  let database: Awaited<ReturnType<typeof startBehindProxy>>;
  let server: TestApp;

  beforeAll(async () => {
    database = await startBehindProxy();
    server = database.server;
  });

  afterAll(() => database.close());

  it('reports ready on the public port when the database answers, migrations are applied and a signing key loads', async () => {
    // An orchestrator polls: each check has 1.5 s, which a loaded machine can miss once.
    const response = await eventually(async () => {
      const answer = await request(server.url).get('/health/ready');
      return answer.status === 200 ? answer : undefined;
    }, 15_000);
    expect(bodyOf<HealthBody>(response).status).toBe('ok');
    expect(Object.keys(bodyOf<HealthBody>(response).details).sort()).toEqual(['changeFeed', 'database', 'migrations', 'serving', 'signingKey']);
  });

  it('answers liveness and readiness on the admin port too', async () => {
    expect((await request(server.adminUrl).get('/health/live')).status).toBe(200);
    expect((await request(server.adminUrl).get('/health/ready')).status).toBe(200);
  });

  it('fails readiness with 503 while the database is unreachable, stays live, and recovers after', async () => {
    await database.proxy.cut();
    const down = await request(server.url).get('/health/ready');
    expect(down.status).toBe(503);
    expect(bodyOf<HealthBody>(down).status).toBe('error');
    expect(bodyOf<HealthBody>(down).error?.database.status).toBe('down');
    expect(JSON.stringify(down.body)).not.toMatch(/ECONN|postgres|127\.0\.0\.1|SELECT|pg_is_in_recovery/i);
    expect((await request(server.url).get('/health/live')).status).toBe(200);

    await database.restore();
    await eventually(async () => ((await request(server.url).get('/health/ready')).status === 200 ? true : undefined), 15_000, 200);
  });
});
