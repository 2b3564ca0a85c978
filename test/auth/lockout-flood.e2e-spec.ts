import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AuthThrottle, FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../../src/auth/auth-throttle.js';
import { ClientsService } from '../../src/clients/clients.service.js';
import { basic, createClient, FACTORY_ACTOR, type TestClient } from '../support/factories.js';
import { addressCount, clientCount, Flood, loopbackAddress, onceASecondUntilOk, postToken, sleep } from '../support/flood.js';
import { eventually, finished, startServerProcess } from '../support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

/**
 * The lock-out attack, made as the security probe made it: wrong secrets for one client from one
 * source address, one connection every 20 ms or as fast as eight connections go, while the right
 * secret is sent once a second from another address. The server has never verified that secret
 * (a new client, a fresh process, a rotated secret). It must be answered 200 within about a
 * second (here: by the second try, a second after the first), and the flooding address must
 * reach its own limit. No timings are asserted beyond that behaviour.
 */

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

const scope = { grant_type: 'client_credentials', scope: 'read' };

function wrongSecrets(client: TestClient) {
  return (index: number) => ({ Authorization: basic(client.clientId, `wrong-secret-${index}`) });
}

function rightSecret(url: string, client: TestClient, address: string) {
  return () => postToken(url, address, scope, { Authorization: basic(client.clientId, client.clientSecret) });
}

async function rotate(client: TestClient): Promise<TestClient> {
  const issued = await server.app.get(ClientsService).rotateSecret(client.clientId, { actor: FACTORY_ACTOR });
  return { clientId: client.clientId, clientSecret: issued.clientSecret! };
}

/** Floods until the flooding address has reached its own limit (bounded), so every refusal after it is 429 before any work. */
async function untilAddressLimit(address: string): Promise<number> {
  return eventually(
    async () => {
      const count = await addressCount(server.dataSource, address);
      return count >= FAILURES_PER_ADDRESS ? count : undefined;
    },
    30_000,
    100,
  );
}

/**
 * The client is already over its limit, as after the first second of the probe's flood: 20
 * failures recorded from other addresses (on a loaded machine the flood itself would take tens of
 * seconds of slow hashes to get there; a test below gets there by flooding alone).
 */
async function lockedByEarlierAttack(client: TestClient): Promise<void> {
  const throttle = server.app.get(AuthThrottle);
  for (let index = 0; index < FAILURES_PER_CLIENT; index += 1) await throttle.recordFailure(client.clientId, `198.51.100.${index + 1}`);
  expect(await clientCount(server.dataSource, client.clientId)).toBeGreaterThanOrEqual(FAILURES_PER_CLIENT);
}

// "Within about a second": the second try, a second after the first, is answered 200 at the
// latest; a third try is allowed for a loaded machine, where one slow hash can take a second.
const TRIES = 3;

describe.each([
  { pace: 'one connection, a request every 20 ms', connections: 1, pauseMs: 20, locked: true },
  { pace: 'eight connections, as fast as they go', connections: 8, pauseMs: 0, locked: false },
])('a flood of wrong secrets from one address ($pace), one worker', ({ connections, pauseMs, locked }) => {
  it('lets the right secret from another address through within about a second, before and after a rotation', async () => {
    let client = await createClient(server.app);
    await lockedByEarlierAttack(client);
    const flood = new Flood({ urls: [server.url], address: loopbackAddress(), form: () => scope, headers: wrongSecrets(client), connections, pauseMs });
    try {
      await sleep(500);
      // Never verified by this process: the slow path, with the client over its limit.
      expect(await onceASecondUntilOk(rightSecret(server.url, client, loopbackAddress()), TRIES)).toContain(200);
      // A rotated secret has never been verified either; the flood goes on with wrong ones.
      client = await rotate(client);
      expect(await onceASecondUntilOk(rightSecret(server.url, client, loopbackAddress()), TRIES)).toContain(200);
    } finally {
      await flood.stop();
    }
    expect(flood.count(200)).toBe(0);
  }, 120_000);

  it(`counts the refusals toward the flooding address until it reaches its own limit, then refuses it 429${locked ? '' : ' (the flood alone puts the client over its limit)'}`, async () => {
    const client = await createClient(server.app);
    if (locked) await lockedByEarlierAttack(client);
    const address = loopbackAddress();
    const flood = new Flood({ urls: [server.url], address, form: () => scope, headers: wrongSecrets(client), connections, pauseMs });
    try {
      expect(await untilAddressLimit(address)).toBeGreaterThanOrEqual(FAILURES_PER_ADDRESS);
      await sleep(300);
    } finally {
      await flood.stop();
    }
    // Few of the flood's attempts were verified (401, or 503 when no slow hash was free); the rest
    // were refused (429) before any hash, and counted all the same.
    const verified = flood.count(401);
    expect(verified).toBeLessThanOrEqual(FAILURES_PER_CLIENT);
    expect(flood.count(429)).toBeGreaterThanOrEqual(FAILURES_PER_ADDRESS - verified);
    expect(flood.count(200)).toBe(0);
    expect([...flood.statuses.keys()].filter((status) => ![401, 429, 503].includes(status))).toEqual([]);
    // The address's own limit: even the right secret is 429 from it now, and no hash runs for it.
    const fromFlooder = await rightSecret(server.url, client, address)();
    expect(fromFlooder).toMatchObject({ status: 429, error: 'too_many_requests' });
  }, 120_000);
});

describe('a flood of wrong secrets on two instances sharing the database', () => {
  it('lets the right secret through on either instance within about a second', async () => {
    const second = await startTestApp();
    const client = await createClient(server.app);
    await lockedByEarlierAttack(client);
    const flood = new Flood({
      urls: [server.url, second.url],
      address: loopbackAddress(),
      form: () => scope,
      headers: wrongSecrets(client),
      connections: 4,
      pauseMs: 0,
    });
    try {
      await sleep(500);
      // Neither instance has verified the secret: each one's first try takes the slow path.
      for (const url of [second.url, server.url]) {
        expect(await onceASecondUntilOk(rightSecret(url, client, loopbackAddress()), TRIES)).toContain(200);
      }
    } finally {
      await flood.stop();
      await second.close();
    }
    expect(flood.count(200)).toBe(0);
  }, 120_000);
});

describe('a flood of wrong secrets with WORKERS=2, and after a restart (server process)', () => {
  let running: ChildProcess | undefined;

  afterAll(() => {
    if (running && running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
  });

  async function start(port: number, adminPort: number): Promise<{ child: ChildProcess; exit: ReturnType<typeof finished> }> {
    const child = startServerProcess({
      WORKERS: '2',
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: randomBytes(16).toString('hex'),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: 'warn',
    });
    running = child;
    const exit = finished(child);
    await eventually(async () => ((await request(`http://127.0.0.1:${port}`).get('/health/ready')).status === 200 ? true : undefined), 120_000, 200);
    return { child, exit };
  }

  it('answers the right secret 200 on each worker within about a second, and again once the server restarted', async () => {
    const [port, adminPort] = await freePorts(2);
    const url = `http://127.0.0.1:${port}`;
    const client = await createClient(server.app);
    await lockedByEarlierAttack(client);
    const flooder = loopbackAddress();
    let { child, exit } = await start(port, adminPort);
    const flood = new Flood({ urls: [url], address: flooder, form: () => scope, headers: wrongSecrets(client), connections: 8, pauseMs: 0 });
    try {
      await sleep(500);
      // A new connection per try: the primary hands them to the workers in turn, so both workers meet the lock.
      for (let round = 0; round < 2; round += 1) {
        expect(await onceASecondUntilOk(rightSecret(url, client, loopbackAddress()), TRIES)).toContain(200);
      }
      expect(await untilAddressLimit(flooder)).toBeGreaterThanOrEqual(FAILURES_PER_ADDRESS);
      // A restart: the new processes have verified nothing; the counts in PostgreSQL remain.
      child.kill('SIGTERM');
      expect((await exit).code).toBe(0);
      ({ child, exit } = await start(port, adminPort));
      for (let round = 0; round < 2; round += 1) {
        expect(await onceASecondUntilOk(rightSecret(url, client, loopbackAddress()), TRIES)).toContain(200);
      }
    } finally {
      await flood.stop();
    }
    expect(flood.count(200)).toBe(0);
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
    running = undefined;
  }, 240_000);
});
