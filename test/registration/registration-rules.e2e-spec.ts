import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import request from 'supertest';
import { JSON_API } from '../support/admin.js';
import { bodyOf } from '../support/bodies.js';
import { clientKey, type ClientKey } from '../support/keys.js';
import { eventually, runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { SlowHashGate } from '../../src/auth/slow-hash-gate.js';
import { REGISTRATION_WAIT_MS, RegistrationLine } from '../../src/registration/registration-line.js';

// Rules of dynamic registration (docs/guides/dynamic-registration.md) that need a server of their
// own: software statements from a configured publisher, the per-address limit, the command line's
// initial access tokens, and the switch that removes the endpoints.

type Registered = Record<string, unknown> & { client_id: string; error?: string; error_description?: string };

let dir: string;
let server: TestApp;
let publisher: ClientKey;
let stranger: ClientKey;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'registration-rules-test-'));
  publisher = await clientKey('ES256');
  stranger = await clientKey('ES256');
  const jwksFile = join(dir, 'publishers.json');
  writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...publisher.jwk, kid: 'publisher-1' }] }));
  server = await startTestApp({ DCR_SOFTWARE_STATEMENT_JWKS_FILE: jwksFile, TRUST_PROXY: 'loopback' });
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function newIat(attributes: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const response = await request(server.adminUrl)
    .post('/admin/initial-access-token')
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'initial-access-token', attributes: { name: 'rules', scopeCeiling: 'read write', maxUses: 10, ...attributes } } }));
  expect(response.status).toBe(201);
  const document = bodyOf<{ data: { id: string; meta: { token: string } } }>(response);
  return { id: document.data.id, token: document.data.meta.token };
}

async function register(
  token: string,
  body: Record<string, unknown>,
  address = '192.0.2.1',
): Promise<{ status: number; body: Registered; headers: Record<string, string> }> {
  const response = await request(server.url)
    .post('/oauth2/register')
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Forwarded-For', address)
    .send(JSON.stringify(body));
  return { status: response.status, body: bodyOf<Registered>(response), headers: response.headers };
}

function statement(key: ClientKey, claims: Record<string, unknown>, kid = 'publisher-1'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).sign(key.privateKey);
}

/** The failures counted for a source address (the throttle's key is the address's SHA-256). */
async function addressFailures(address: string): Promise<number> {
  const key = `address:${createHash('sha256').update(address).digest('base64url')}`;
  const rows = await server.dataSource.query<{ points: number }[]>('SELECT points FROM auth_failure WHERE key = $1', [key]);
  return rows[0]?.points ?? 0;
}

async function usesOf(id: string): Promise<number> {
  const [row] = await server.dataSource.query<{ uses: number }[]>('SELECT uses FROM initial_access_token WHERE id = $1', [id]);
  return row.uses;
}

const now = () => Math.floor(Date.now() / 1000);

describe('software statements', () => {
  it("takes a configured publisher's members over the request's", async () => {
    const iat = await newIat();
    const signed = await statement(publisher, { iss: 'https://publisher.example', iat: now(), software_id: 'gw-7', client_name: 'Published gateway' });
    const registered = await register(iat.token, { software_statement: signed, client_name: 'Typed by the client', software_id: 'other' });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ client_name: 'Published gateway', software_id: 'gw-7' });
    expect(registered.body.software_statement).toBeUndefined();
  });

  it.each([
    ['signed by a key the file does not hold', () => statement(stranger, { iss: 'https://publisher.example', iat: now() })],
    ['without iss', () => statement(publisher, { iat: now() })],
    ['issued in the future', () => statement(publisher, { iss: 'https://publisher.example', iat: now() + 120 })],
    ['expired', () => statement(publisher, { iss: 'https://publisher.example', iat: now() - 120, exp: now() - 60 })],
    ['without iat', () => statement(publisher, { iss: 'https://publisher.example' })],
    ['issued in 2001', () => statement(publisher, { iss: 'https://publisher.example', iat: 978_307_200 })],
    ['older than a year', () => statement(publisher, { iss: 'https://publisher.example', iat: now() - 366 * 86_400 })],
    [
      "meant for another server's registration endpoint",
      () => statement(publisher, { iss: 'https://publisher.example', iat: now(), aud: 'https://other.example/register' }),
    ],
  ])('refuses a statement %s with invalid_software_statement, using nothing', async (_case, make) => {
    const iat = await newIat();
    const refused = await register(iat.token, { software_statement: await make() });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_software_statement');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(await usesOf(iat.id)).toBe(0);
  });

  it('accepts a statement whose aud names this registration_endpoint', async () => {
    const iat = await newIat();
    const signed = await statement(publisher, { iss: 'https://publisher.example', iat: now(), aud: `${server.url}/oauth2/register` });
    expect((await register(iat.token, { software_statement: signed })).status).toBe(201);
  });

  it("still holds a statement's members to the initial access token's ceilings", async () => {
    const iat = await newIat();
    const signed = await statement(publisher, { iss: 'https://publisher.example', iat: now(), scope: 'read admin' });
    const refused = await register(iat.token, { software_statement: signed });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_client_metadata');
    expect(refused.body.error_description).toMatch(/scope/);
    expect(await usesOf(iat.id)).toBe(0);
  });
});

describe("the address's limit of failures", () => {
  it('answers 429 with Retry-After after 100 unknown tokens from one address, even to a valid token, and uses nothing', async () => {
    const address = '198.51.100.77';
    for (let attempt = 0; attempt < 100; attempt += 1) {
      expect((await register('A'.repeat(43), {}, address)).status).toBe(401);
    }
    const iat = await newIat();
    const limited = await register(iat.token, {}, address);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('too_many_requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await usesOf(iat.id)).toBe(0);
    expect((await register(iat.token, {}, '198.51.100.78')).status).toBe(201);
  });
});

describe('the bound of slow hashes', () => {
  it('answers 503 with Retry-After to a secret registration while every slow hash is taken, storing and using nothing', async () => {
    const iat = await newIat();
    const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
    // Every slot and every place in the queue held by work that waits for this test.
    const gate = server.app.get(SlowHashGate);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = Array.from({ length: gate.atOnce + gate.queueLength }, () => gate.run(() => released));
    try {
      const refused = await register(iat.token, { token_endpoint_auth_method: 'client_secret_basic' });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toBe('temporarily_unavailable');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      release();
      await Promise.all(held);
    }
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
    expect(after).toBe(before);
    expect(await usesOf(iat.id)).toBe(0);
    expect((await register(iat.token, {})).status).toBe(201);
  });
});

describe('a registration flood meeting a full bound', () => {
  /** Every slot and queue place of the bound held until `release`. */
  function fillBound(): { release: () => Promise<void> } {
    const gate = server.app.get(SlowHashGate);
    let open!: () => void;
    const released = new Promise<void>((resolve) => (open = resolve));
    const held = Array.from({ length: gate.atOnce + gate.queueLength }, () => gate.run(() => released));
    return {
      release: async () => {
        open();
        await Promise.all(held);
      },
    };
  }

  it('answers an unknown token 401 at once, never 503, and a valid secret registration 503 with Retry-After', async () => {
    const address = '192.0.2.77';
    const iat = await newIat();
    const bound = fillBound();
    try {
      for (const body of [{}, { token_endpoint_auth_method: 'client_secret_post' }]) {
        expect((await register('an-unknown-initial-access-token', body, address)).status).toBe(401);
        const refused = await register(iat.token, body, '192.0.2.76');
        expect(refused.status).toBe(503);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
    } finally {
      await bound.release();
    }
    expect(await addressFailures(address)).toBe(2);
    expect(await usesOf(iat.id)).toBe(0);
  });

  it('still answers a registration without a secret (private_key_jwt) on its merits while the bound is full', async () => {
    const bound = fillBound();
    try {
      const refused = await register('an-unknown-initial-access-token', { token_endpoint_auth_method: 'private_key_jwt' }, '192.0.2.78');
      expect(refused.status).toBe(401);
    } finally {
      await bound.release();
    }
  });
});

describe('the line of registrations', () => {
  /** Every turn of the line held until `release`. */
  function holdLine(): { release: () => Promise<void> } {
    const line = server.app.get(RegistrationLine);
    let open!: () => void;
    const released = new Promise<void>((resolve) => (open = resolve));
    const held = Array.from({ length: line.atOnce }, () => line.run(() => released));
    return {
      release: async () => {
        open();
        await Promise.all(held);
      },
    };
  }

  it('makes a registration wait for its turn while others are in progress, then registers it', async () => {
    const iat = await newIat();
    const line = holdLine();
    const waiting = register(iat.token, { client_name: 'Waits its turn' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await usesOf(iat.id)).toBe(0);
    await line.release();
    const answer = await waiting;
    expect(answer.status).toBe(201);
    expect(await usesOf(iat.id)).toBe(1);
  });

  it('makes RFC 7592 management wait its turn too, then answers it', async () => {
    const iat = await newIat();
    const { body } = await register(iat.token, { client_name: 'Managed in turn' });
    const line = holdLine();
    let answered = false;
    const reading = request(server.url)
      .get(`/oauth2/register/${body.client_id}`)
      .set('Authorization', `Bearer ${String(body.registration_access_token)}`)
      .then((response) => {
        answered = true;
        return response;
      });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    await line.release();
    const response = await reading;
    expect(response.status).toBe(200);
    expect(bodyOf<Registered>(response).client_name).toBe('Managed in turn');
  });

  it('answers 503 with Retry-After to a registration whose turn does not come within the wait, storing and using nothing', async () => {
    const iat = await newIat();
    const address = '192.0.2.79';
    const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
    const line = holdLine();
    const started = Date.now();
    let refused;
    try {
      refused = await register(iat.token, { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publisher.jwk] } }, address);
    } finally {
      await line.release();
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(REGISTRATION_WAIT_MS - 50);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('temporarily_unavailable');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
    expect(after).toBe(before);
    expect(await usesOf(iat.id)).toBe(0);
    expect(await addressFailures(address)).toBe(0);
  });

  it('writes and uses nothing for a registration whose client hung up while it waited its turn', async () => {
    const iat = await newIat({ maxUses: 1 });
    const address = '192.0.2.80';
    const line = holdLine();
    const outgoing = httpRequest(`${server.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${iat.token}`, 'X-Forwarded-For': address },
    });
    outgoing.on('error', () => undefined);
    outgoing.end(JSON.stringify({ client_name: 'Gone', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publisher.jwk] } }));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      outgoing.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await line.release();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await usesOf(iat.id)).toBe(0);
    // One use only: had the abandoned registration been written, this one would find the token used up.
    expect((await register(iat.token, {}, address)).status).toBe(201);
  });

  it('answers unknown tokens 401 at once, never 503, while the line is held, and lets a valid registration through when its turn comes', async () => {
    const iat = await newIat();
    const line = holdLine();
    let refusals: number[];
    let waiting;
    try {
      // A flood of unknown initial and registration access tokens from many connections.
      waiting = register(iat.token, { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publisher.jwk] } }, '192.0.2.81');
      const flood = Array.from({ length: 60 }, (_, index) =>
        index % 2 === 0
          ? register(`unknown-${index}`, {}, `192.0.2.${100 + (index % 50)}`).then((answer) => answer.status)
          : request(server.url)
              .get('/oauth2/register/dcr-unknown')
              .set('Authorization', `Bearer unknown-${index}`)
              .then((answer) => answer.status),
      );
      refusals = await Promise.all(flood);
    } finally {
      await line.release();
    }
    expect(new Set(refusals)).toEqual(new Set([401]));
    expect((await waiting).status).toBe(201);
  });
});

describe('a client that hangs up', () => {
  it('gets nothing written, and uses nothing, while its registration waited for a slow hash', async () => {
    // One use only: had the abandoned registration been written, the next one would find the token used up.
    const iat = await newIat({ maxUses: 1 });
    const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
    const gate = server.app.get(SlowHashGate);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Every slot taken and the queue one short of full: the registration waits last in it.
    const held = Array.from({ length: gate.atOnce + gate.queueLength - 1 }, () => gate.run(() => released));
    const queueFull = () => {
      try {
        gate.refuseIfFull();
        return undefined;
      } catch {
        return true;
      }
    };
    const outgoing = httpRequest(`${server.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${iat.token}`, 'X-Forwarded-For': '192.0.2.50' },
    });
    outgoing.on('error', () => undefined);
    outgoing.end(JSON.stringify({ client_name: 'Gone' }));
    try {
      await eventually(queueFull);
      outgoing.destroy();
    } finally {
      release();
      await Promise.all(held);
    }
    // This one queues behind the abandoned one, whose slow hash runs first.
    const next = await register(iat.token, { client_name: 'Next' }, '192.0.2.51');
    expect(next.status).toBe(201);
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
    expect(after).toBe(before + 1);
    expect(await usesOf(iat.id)).toBe(1);
  });
});

describe('the command line', () => {
  it('creates an initial access token printed once and revokes it', async () => {
    const environment = { DATABASE_URL: testDatabaseUrl() };
    const created = await runCli(
      ['initial-access-token', 'create', '--name', 'CLI gateways', '--scopes', 'read', '--max-uses', '2', '--expires-in', '3600', '--json'],
      environment,
    );
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout) as { id: string; token: string; expires_at: string };
    expect(issued.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await server.dataSource.query<{ token_hash: string; max_uses: number }[]>(
      'SELECT token_hash, max_uses FROM initial_access_token WHERE id = $1',
      [issued.id],
    );
    expect(row.max_uses).toBe(2);
    expect(row.token_hash).not.toBe(issued.token);
    expect((await register(issued.token, {})).status).toBe(201);

    const revoked = await runCli(['initial-access-token', 'revoke', issued.id], environment);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).not.toContain(issued.token);
    expect((await register(issued.token, {})).status).toBe(401);
  });

  it('refuses a maximum of uses beyond the rules with a failing exit code and a message on stderr, storing nothing', async () => {
    const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM initial_access_token');
    const refused = await runCli(['initial-access-token', 'create', '--name', 'Too many', '--scopes', 'read', '--max-uses', '100001'], {
      DATABASE_URL: testDatabaseUrl(),
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/max/i);
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM initial_access_token');
    expect(after).toBe(before);
  });
});

describe('DYNAMIC_CLIENT_REGISTRATION=false', () => {
  it('answers 404 on every path and advertises no registration_endpoint', async () => {
    const closed = await startTestApp({ DYNAMIC_CLIENT_REGISTRATION: 'false' });
    try {
      expect((await request(closed.url).post('/oauth2/register').set('Content-Type', 'application/json').send('{}')).status).toBe(404);
      expect((await request(closed.url).get('/oauth2/register/dcr-x')).status).toBe(404);
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/uma2-configuration', '/.well-known/smart-configuration']) {
        const document = await request(closed.url).get(path);
        expect([path, document.status]).toEqual([path, 200]);
        expect(bodyOf<Record<string, unknown>>(document).registration_endpoint).toBeUndefined();
      }
    } finally {
      await closed.close();
    }
  });
});
