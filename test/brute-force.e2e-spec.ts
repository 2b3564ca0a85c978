import request from 'supertest';
import { FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../src/auth/auth-throttle.js';
import { basic, createClient, type TestClient } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let server: TestApp;

// TRUST_PROXY lets each test speak from its own address through X-Forwarded-For.
beforeAll(async () => {
  server = await startTestApp({ TRUST_PROXY: 'loopback' });
});

afterAll(() => server.close());

beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

let addressCounter = 0;
const newAddress = () => `198.51.100.${(addressCounter += 1)}`;

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
    expect(response.body.error).toBe('too_many_requests');
    expect(response.body.error_description).toBeTruthy();
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('refuses even the right secret once blocked, unless it was verified recently', async () => {
    const client = await createClient(server.app);
    await failTimes(client, FAILURES_PER_CLIENT, newAddress);
    expect((await attempt(client, client.clientSecret, newAddress())).status).toBe(429);
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
    expect(rows[0]!.points).toBe(3);
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
