import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Express } from 'express';
import request from 'supertest';
import type { ExpressServerAdapter } from '../../src/http/express-server.js';
import { ADMIN_FAILURES_PER_ADDRESS } from '../../src/admin/admin-token.guard.js';
import { JSON_API } from '../support/admin.js';
import { bodyOf, type JsonApiDocument, type JsonApiResource } from '../support/bodies.js';
import { eventually, finished, startServerProcess } from '../support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

// TRUST_PROXY is the public listener's (docs/operations/security.md): the admin listener takes the
// connection's peer address, unless ADMIN_TRUST_PROXY names its own proxies; HOST and ADMIN_HOST
// choose the interfaces each listener binds.

let counter = 0;
const nextAddress = () => {
  counter += 1;
  return `203.0.${113 + Math.floor(counter / 250)}.${(counter % 250) + 1}`;
};

function wrongToken(server: TestApp, forwardedFor: string) {
  return request(server.adminUrl).get('/admin/purpose').set('Authorization', `wrong-${counter}`).set('X-Forwarded-For', forwardedFor);
}

/** Creates a purpose as the admin, from `forwardedFor` as far as X-Forwarded-For says; answers the actor of its audit event. */
async function actorOfCreation(server: TestApp, forwardedFor: string): Promise<string> {
  const created = await request(server.adminUrl)
    .post('/admin/purpose')
    .set('Authorization', server.adminToken)
    .set('X-Forwarded-For', forwardedFor)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'purpose', attributes: { name: 'actor address' } } }));
  expect(created.status).toBe(201);
  const id = Number(bodyOf<JsonApiDocument<JsonApiResource>>(created).data.id);
  const [event] = await server.dataSource.query<{ actor: string }[]>(
    `SELECT actor FROM audit_event WHERE record_type = 'purpose' AND record_id = $1 AND operation = 'add'`,
    [id],
  );
  return event.actor;
}

describe('the admin listener with TRUST_PROXY=loopback (the public listener’s proxies only)', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp({ TRUST_PROXY: 'loopback' });
  });

  afterAll(() => server.close());

  beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

  it(`keeps answering 429 after ${ADMIN_FAILURES_PER_ADDRESS} wrong admin tokens however X-Forwarded-For rotates`, async () => {
    for (let index = 0; index < ADMIN_FAILURES_PER_ADDRESS; index += 1) {
      expect((await wrongToken(server, nextAddress())).status).toBe(401);
    }
    for (let index = 0; index < 5; index += 1) {
      const response = await wrongToken(server, nextAddress());
      expect(response.status).toBe(429);
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('keeps TRUST_PROXY for the public listener and nothing for the admin listener', () => {
    const adapter = server.app.getHttpAdapter() as ExpressServerAdapter;
    expect(adapter.getInstance<Express>().get('trust proxy')).toEqual(['loopback']);
    expect(adapter.adminInstance.get('trust proxy')).toBe(false);
  });

  it("records the connection's peer address as the audit event's actor, not X-Forwarded-For", async () => {
    const actor = await actorOfCreation(server, '198.51.100.77');
    expect(actor).toBe('admin-token@127.0.0.1');
  });
});

describe('the admin listener with ADMIN_TRUST_PROXY=loopback (its own proxies)', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp({ ADMIN_TRUST_PROXY: 'loopback' });
  });

  afterAll(() => server.close());

  beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

  it('counts wrong admin tokens per address that the trusted proxy names', async () => {
    const attacker = nextAddress();
    for (let index = 0; index < ADMIN_FAILURES_PER_ADDRESS; index += 1) expect((await wrongToken(server, attacker)).status).toBe(401);
    expect((await wrongToken(server, attacker)).status).toBe(429);
    expect((await wrongToken(server, nextAddress())).status).toBe(401);
  });

  it('records the address the trusted proxy names as the audit event’s actor', async () => {
    expect(await actorOfCreation(server, '198.51.100.78')).toBe('admin-token@198.51.100.78');
  });
});

type Reached = { status: number } | { error: string };

/** One plain HTTP GET to host:port on a connection of its own: the status, or the connection error's code. */
function reach(host: string, port: number, path = '/health/live'): Promise<Reached> {
  return new Promise((resolve) => {
    const pending = httpRequest({ host, port, path, agent: false, timeout: 5_000 }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0 }));
    });
    pending.on('timeout', () => pending.destroy(new Error('timeout')));
    pending.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    pending.end();
  });
}

describe.each<{ name: string; environment: Record<string, string> }>([
  { name: 'HOST=127.0.0.2, ADMIN_HOST=127.0.0.1, WORKERS=2', environment: { HOST: '127.0.0.2', ADMIN_HOST: '127.0.0.1', WORKERS: '2' } },
  { name: 'neither set, with DATABASE_URL', environment: {} },
])('the interfaces the listeners bind: $name (server process)', ({ environment }) => {
  let child: ChildProcess | undefined;
  let exit: ReturnType<typeof finished>;
  let port: number;
  let adminPort: number;
  const publicHost = 'HOST' in environment ? '127.0.0.2' : '127.0.0.1';

  beforeAll(async () => {
    [port, adminPort] = await freePorts(2);
    child = startServerProcess({
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: randomBytes(16).toString('hex'),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: 'warn',
      ...environment,
    });
    exit = finished(child);
    await eventually(
      async () => {
        const [publicAnswer, adminAnswer] = await Promise.all([reach(publicHost, port, '/health/ready'), reach('127.0.0.1', adminPort, '/health/ready')]);
        return 'status' in publicAnswer && publicAnswer.status === 200 && 'status' in adminAnswer && adminAnswer.status === 200 ? true : undefined;
      },
      60_000,
      200,
    );
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exit;
    }
  });

  if ('HOST' in environment) {
    it('serves the public listener on HOST only', async () => {
      expect(await reach('127.0.0.2', port)).toEqual({ status: 200 });
      expect(await reach('127.0.0.1', port)).toEqual({ error: 'ECONNREFUSED' });
    });

    it('refuses connections to the admin port on any address but ADMIN_HOST', async () => {
      expect(await reach('127.0.0.1', adminPort)).toEqual({ status: 200 });
      expect(await reach('127.0.0.2', adminPort)).toEqual({ error: 'ECONNREFUSED' });
    });
  } else {
    it('serves the public listener on every interface', async () => {
      expect(await reach('127.0.0.1', port)).toEqual({ status: 200 });
      expect(await reach('127.0.0.2', port)).toEqual({ status: 200 });
    });

    it('binds the admin listener to 0.0.0.0 with DATABASE_URL', async () => {
      expect(await reach('127.0.0.1', adminPort)).toEqual({ status: 200 });
      expect(await reach('127.0.0.2', adminPort)).toEqual({ status: 200 });
    });
  }
});

describe('the start with a bad HOST or ADMIN_HOST', () => {
  async function start(environment: Record<string, string>) {
    const [port, adminPort] = await freePorts(2);
    return finished(
      startServerProcess({ DATABASE_URL: testDatabaseUrl(), ADMIN_TOKEN: 'x'.repeat(32), PORT: String(port), ADMIN_PORT: String(adminPort), ...environment }),
    );
  }

  it.each([
    ['HOST', 'localhost'],
    ['ADMIN_HOST', '127.0.0.1:3001'],
  ])('refuses %s=%s with one line naming it', async (variable, value) => {
    const result = await start({ [variable]: value });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^configuration error: ${variable} must be`));
  });

  it('refuses an ADMIN_HOST that is no address of this host with one line naming it', async () => {
    const result = await start({ ADMIN_HOST: '192.0.2.1' });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe('cannot start: 192.0.2.1 (ADMIN_HOST) is no address of this host');
  });
});
