import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../../src/auth/auth-throttle.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { eventually, finished, startServerProcess } from '../support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

let server: TestApp;

// TRUST_PROXY lets each test speak from its own address through X-Forwarded-For.
beforeAll(async () => {
  server = await startTestApp({ TRUST_PROXY: 'loopback' });
});

afterAll(() => server.close());

beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

/** The per-client failure count in PostgreSQL (keys are SHA-256 of the client id). */
async function clientFailures(client: TestClient): Promise<number> {
  const key = `client:${createHash('sha256').update(client.clientId).digest('base64url')}`;
  const rows: { points: number }[] = await server.dataSource.query('SELECT points FROM auth_failure WHERE key = $1', [key]);
  return rows[0]?.points ?? 0;
}

let addressCounter = 0;
const newAddress = () => {
  addressCounter += 1;
  return `198.51.${100 + Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
};

function attempt(client: TestClient, secret: string, address: string) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(client.clientId, secret))
    .set('X-Forwarded-For', address)
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read' });
}

async function failTimes(client: TestClient, count: number, address: () => string): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const response = await attempt(client, `wrong-secret-${index}`, address());
    expect(response.status).toBe(401);
  }
}

describe('brute-force protection', () => {
  it(`answers 429 with Retry-After after ${FAILURES_PER_CLIENT} failures for one client from many addresses`, async () => {
    const client = await createClient(server.app);
    await failTimes(client, FAILURES_PER_CLIENT, newAddress);
    const response = await attempt(client, 'yet-another-guess', newAddress());
    expect(response.status).toBe(429);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('too_many_requests');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBeTruthy();
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('lets the right secret through a lock-out within seconds, though this process never verified it', async () => {
    const client = await createClient(server.app);
    await failTimes(client, FAILURES_PER_CLIENT, newAddress);
    expect((await attempt(client, 'attacker-guess', newAddress())).status).toBe(429);
    // One attempt per client and second is still verified: retried, the right secret gets through.
    const statuses = await eventually(
      async () => {
        const response = await attempt(client, client.clientSecret, newAddress());
        return response.status === 200 ? response.status : undefined;
      },
      10_000,
      1_100,
    );
    expect(statuses).toBe(200);
  });

  it('verifies at most one attempt per second of a locked-out client, on every instance together', async () => {
    const client = await createClient(server.app);
    await failTimes(client, FAILURES_PER_CLIENT, newAddress);
    const before = await clientFailures(client);
    const second = await startTestApp({ TRUST_PROXY: 'loopback' });
    try {
      const burst = Array.from({ length: 10 }, (_, index) =>
        request(index % 2 === 0 ? server.url : second.url)
          .post('/oauth2/token')
          .set('Authorization', basic(client.clientId, `burst-guess-${index}`))
          .set('X-Forwarded-For', newAddress())
          .type('form')
          .send({ grant_type: 'client_credentials', scope: 'read' }),
      );
      const statuses = (await Promise.all(burst)).map((response) => response.status);
      expect(statuses).toEqual(Array(10).fill(429));
    } finally {
      await second.close();
    }
    // Each verified guess counts one more failure; the burst lasted well under two seconds.
    const verified = (await clientFailures(client)) - before;
    expect(verified).toBeGreaterThanOrEqual(1);
    expect(verified).toBeLessThanOrEqual(2);
  });

  it('lets a working client through a lock-out with its recently verified secret', async () => {
    const client = await createClient(server.app);
    expect((await attempt(client, client.clientSecret, newAddress())).status).toBe(200);
    await failTimes(client, FAILURES_PER_CLIENT, newAddress);
    expect((await attempt(client, 'attacker-guess', newAddress())).status).toBe(429);
    expect((await attempt(client, client.clientSecret, newAddress())).status).toBe(200);
  });

  it(`answers 429 after ${FAILURES_PER_ADDRESS} failures from one address across clients`, async () => {
    const address = newAddress();
    const clients = await Promise.all(Array.from({ length: Math.ceil(FAILURES_PER_ADDRESS / 10) }, () => createClient(server.app)));
    for (const client of clients) await failTimes(client, 10, () => address);
    const fresh = await createClient(server.app);
    const response = await attempt(fresh, 'guess', address);
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBeDefined();
    // Another address is not affected.
    expect((await attempt(fresh, fresh.clientSecret, newAddress())).status).toBe(200);
  }, 120_000);

  it('throttles unknown client ids too', async () => {
    const ghost = { clientId: 'ghost-client', clientSecret: '' };
    await failTimes(ghost, FAILURES_PER_CLIENT, newAddress);
    expect((await attempt(ghost, 'guess', newAddress())).status).toBe(429);
  });

  it('counts failures in the database, shared by every instance', async () => {
    const client = await createClient(server.app);
    await failTimes(client, 3, newAddress);
    const rows: { points: number }[] = await server.dataSource.query('SELECT points FROM auth_failure ORDER BY points DESC LIMIT 1');
    expect(rows[0].points).toBe(3);
    const second = await startTestApp({ TRUST_PROXY: 'loopback' });
    try {
      await failTimes(client, FAILURES_PER_CLIENT - 3, newAddress);
      const response = await request(second.url)
        .post('/oauth2/token')
        .set('Authorization', basic(client.clientId, 'guess'))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
      expect(response.status).toBe(429);
    } finally {
      await second.close();
    }
  });
});

describe('a flood of wrong secrets', () => {
  it('answers a known client 200 throughout, and the excess of slow hashes 503 with Retry-After', async () => {
    const known = await createClient(server.app);
    expect((await attempt(known, known.clientSecret, newAddress())).status).toBe(200);
    // 24 connections, unknown client ids, 40 addresses each kept under its limit.
    const addresses = Array.from({ length: 40 }, () => newAddress());
    const floodAnswers: Array<{ status: number; error?: string; retryAfter?: string }> = [];
    let flooding = true;
    const flooder = async (lane: number) => {
      for (let index = 0; flooding; index += 1) {
        const ghost = { clientId: `ghost-${lane}-${index}-${randomBytes(3).toString('hex')}`, clientSecret: '' };
        const response = await attempt(ghost, 'wrong-secret', addresses[(lane + index) % addresses.length]);
        floodAnswers.push({ status: response.status, error: bodyOf<Partial<OAuthErrorBody>>(response).error, retryAfter: response.headers['retry-after'] });
      }
    };
    const lanes = Array.from({ length: 24 }, (_, lane) => flooder(lane));
    const knownStatuses: number[] = [];
    try {
      // Once the flood is under way, the known client asks for twenty tokens, one after the other.
      await eventually(() => Promise.resolve(floodAnswers.length >= 24 ? true : undefined), 30_000, 20);
      for (let index = 0; index < 20; index += 1) knownStatuses.push((await attempt(known, known.clientSecret, newAddress())).status);
    } finally {
      flooding = false;
      await Promise.all(lanes);
    }
    expect(knownStatuses).toEqual(Array(20).fill(200));
    const busy = floodAnswers.filter((answer) => answer.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((answer) => answer.error === 'temporarily_unavailable' && Number(answer.retryAfter) >= 1)).toBe(true);
    // Every other flood answer is a plain refusal: never a token, never another 5xx.
    expect(floodAnswers.filter((answer) => ![401, 503].includes(answer.status))).toEqual([]);
  }, 60_000);
});

describe('a locked-out client with WORKERS=2 (server process)', () => {
  let running: ChildProcess | undefined;

  afterAll(() => {
    if (running && running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
  });

  it('gets 200 from every worker within seconds, not 200 and 429 in turn', async () => {
    const [port, adminPort] = await freePorts(2);
    const child = startServerProcess({
      WORKERS: '2',
      TRUST_PROXY: 'loopback',
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: randomBytes(16).toString('hex'),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: 'warn',
    });
    running = child;
    const exit = finished(child);
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => ((await request(url).get('/health/ready')).status === 200 ? true : undefined), 60_000, 200);
    const client = await createClient(server.app);
    // One connection per request: the primary hands connections to the workers in turn.
    const send = (secret: string, address: string) =>
      request(url)
        .post('/oauth2/token')
        .set('Connection', 'close')
        .set('Authorization', basic(client.clientId, secret))
        .set('X-Forwarded-For', address)
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'read' });
    // The case: one worker verified the secret, then 20 wrong secrets from 4 addresses.
    expect((await send(client.clientSecret, newAddress())).status).toBe(200);
    const attackers = [newAddress(), newAddress(), newAddress(), newAddress()];
    for (let index = 0; index < FAILURES_PER_CLIENT; index += 1) {
      expect((await send(`wrong-${index}`, attackers[index % 4])).status).toBe(401);
    }
    expect((await send('one-more-guess', attackers[0])).status).toBe(429);
    // Each worker verifies one attempt per second at most: four answers in a row are soon all 200.
    const fourInARow = await eventually(
      async () => {
        const statuses: number[] = [];
        for (let index = 0; index < 4; index += 1) statuses.push((await send(client.clientSecret, newAddress())).status);
        return statuses.every((status) => status === 200) ? statuses : undefined;
      },
      15_000,
      1_100,
    );
    expect(fourInARow).toEqual([200, 200, 200, 200]);
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
    running = undefined;
  }, 90_000);
});
