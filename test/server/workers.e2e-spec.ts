import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { basic } from '../support/factories.js';
import { eventually, finished, runCli, startServerProcess } from '../support/processes.js';
import { slowPost } from '../support/raw-http.js';
import { freePorts, testDatabaseUrl } from '../support/test-app.js';
import type { CliClientJson } from '../support/bodies.js';

/** The worker processes of a primary: its children running main.js. */
function workersOf(primary: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return new RegExp(`^PPid:\\s+${primary}$`, 'm').test(status) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('main.js');
      } catch {
        return false;
      }
    })
    .map(Number)
    .sort();
}

function issuedTokens(metrics: string): number {
  return Number(/^oauth_tokens_issued_total (\d+)$/m.exec(metrics)?.[1]);
}

describe('WORKERS=2 (server process)', () => {
  let running: ChildProcess | undefined;

  // A failed or timed-out test must not leave the server running (the workers follow the primary).
  afterAll(() => {
    if (running && running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
  });

  it('serves tokens from both workers, counts them together in /metrics, replaces a killed worker, and drains every worker on SIGTERM', async () => {
    const [port, adminPort] = await freePorts(2);
    const adminToken = randomBytes(16).toString('hex');
    const child = startServerProcess({
      WORKERS: '2',
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: adminToken,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
    });
    running = child;
    const exit = finished(child);
    const url = `http://127.0.0.1:${port}`;
    const admin = `http://127.0.0.1:${adminPort}`;
    await eventually(
      async () => (workersOf(child.pid!).length === 2 && (await request(url).get('/health/ready')).status === 200 ? true : undefined),
      60_000,
      200,
    );

    const clientId = `workers-${randomBytes(6).toString('hex')}`;
    const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Workers', '--scopes', 'read', '--json'], {
      DATABASE_URL: testDatabaseUrl(),
    });
    const secret = (JSON.parse(created.stdout) as CliClientJson).client_secret;
    // One connection per request: the primary hands connections to the workers in turn.
    const token = () =>
      request(url)
        .post('/oauth2/token')
        .set('Connection', 'close')
        .set('Authorization', basic(clientId, secret))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
    for (let index = 0; index < 10; index += 1) expect((await token()).status).toBe(200);

    // Whichever worker answers, it reports both workers' counts (each served some of the ten).
    for (let scrape = 0; scrape < 2; scrape += 1) {
      const metrics = await request(admin).get('/metrics').set('Connection', 'close');
      expect(metrics.status).toBe(200);
      expect(issuedTokens(metrics.text)).toBe(10);
    }

    const [killed] = workersOf(child.pid!);
    process.kill(killed, 'SIGKILL');
    const replaced = await eventually(
      () => {
        const workers = workersOf(child.pid!);
        return workers.length === 2 && !workers.includes(killed) ? workers : undefined;
      },
      30_000,
      100,
    );
    expect(replaced).toHaveLength(2);
    await eventually(
      async () => {
        const answers = await Promise.all([token(), token()]);
        return answers.every((answer) => answer.status === 200) ? true : undefined;
      },
      30_000,
      200,
    );

    // Requests still sending their bodies across the SIGTERM, spread over both workers.
    const form = { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(clientId, secret) };
    const slow = Array.from({ length: 10 }, () => slowPost(port, '/oauth2/token', form, 'grant_type=client_credentials&scope=read'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const pending of slow) pending.finish();
    const answers = await Promise.all(slow.map((pending) => pending.response));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    const result = await exit;
    expect(result.code).toBe(0);
    expect(workersOf(child.pid!)).toEqual([]);
    expect(result.stdout).not.toContain(adminToken);
  }, 180_000);
});
