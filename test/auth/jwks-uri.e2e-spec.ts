import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { basic, createClient } from '../support/factories.js';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { LogLines } from '../support/log-lines.js';

/** A client's key server on loopback: each path answers as its handler says, and is counted. */
class KeyServer {
  readonly hits = new Map<string, number>();
  readonly routes = new Map<string, (response: ServerResponse) => void>();
  private readonly server: Server = createServer((incoming: IncomingMessage, response) => {
    const path = incoming.url ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    const route = this.routes.get(path);
    if (route) route(response);
    else response.writeHead(404).end();
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  serve(path: string, body: unknown, headers: Record<string, string> = {}): string {
    this.routes.set(path, (response) =>
      response.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body)),
    );
    return this.url(path);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let server: TestApp;
// Every invalid_client says the same; the request's log line names the check.
const logs = new LogLines();
let keys: KeyServer;
let path = 0;
const nextPath = () => `/jwks-${(path += 1)}`;

beforeAll(async () => {
  keys = new KeyServer();
  await keys.start();
  server = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true', LOG_LEVEL: 'info' }, { logs: logs.stream });
});

afterAll(async () => {
  await server.close();
  await keys.stop();
});

// Failed authentications from 127.0.0.1 add up across tests; each test starts from none.
beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

async function askWithKey(target: TestApp, key: ClientKey, clientId: string, header: Record<string, unknown> = {}) {
  return request(target.url)
    .post('/oauth2/token')
    .type('form')
    .send({
      grant_type: 'client_credentials',
      scope: 'read',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(key, clientId, target.url, {}, header),
    });
}

async function clientAt(key: ClientKey, jwksUri: string, app: TestApp = server): Promise<string> {
  return createKeyClient(app.app, key, { jwksRaw: null, jwksUri });
}

describe('a client whose keys are at its jwks_uri', () => {
  it('gets tokens, and the document is fetched once while fresh', async () => {
    const key = await clientKey('ES256');
    const route = nextPath();
    const id = await clientAt(key, keys.serve(route, { keys: [key.jwk] }));
    expect((await askWithKey(server, key, id)).status).toBe(200);
    expect((await askWithKey(server, key, id)).status).toBe(200);
    expect(keys.hits.get(route)).toBe(1);
  });

  it('shares one fetch among concurrent requests', async () => {
    const key = await clientKey('ES256');
    const route = nextPath();
    const id = await clientAt(key, keys.serve(route, { keys: [key.jwk] }));
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => askWithKey(server, key, id)))).map((response) => response.status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(keys.hits.get(route)).toBe(1);
  });

  it('fetches again for an unknown kid, at most once a minute', async () => {
    const key = await clientKey('ES256');
    const added = await clientKey('ES256');
    const route = nextPath();
    const id = await clientAt(key, keys.serve(route, { keys: [key.jwk] }));
    expect((await askWithKey(server, key, id)).status).toBe(200);
    keys.serve(route, { keys: [key.jwk, added.jwk] });
    expect((await askWithKey(server, added, id)).status).toBe(200);
    expect(keys.hits.get(route)).toBe(2);
    const unknown = await askWithKey(server, added, id, { kid: 'still-unknown' });
    expect(unknown.status).toBe(401);
    expect(await logs.refusedBecause(unknown)).toMatch(/no key of the client's key set has the assertion's "kid"/);
    expect(keys.hits.get(route)).toBe(2);
  });

  const unusable: [string, (route: string) => void, RegExp][] = [
    ['an HTTP error', (route) => keys.routes.set(route, (response) => response.writeHead(500).end()), /could not be used/],
    ['a redirect', (route) => keys.routes.set(route, (response) => response.writeHead(302, { Location: '/elsewhere' }).end()), /could not be used/],
    ['a document over 64 KiB', (route) => keys.serve(route, JSON.stringify({ keys: [], padding: 'x'.repeat(70_000) })), /could not be used/],
    ['a document that is not JSON', (route) => keys.serve(route, '<html>'), /could not be used/],
    ['a document holding a private key', (route) => keys.serve(route, { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }), /could not be used/],
  ];

  it.each(unusable)('answers 401 invalid_client for %s', async (_name, arrange, description) => {
    const key = await clientKey('ES256');
    const route = nextPath();
    arrange(route);
    const response = await askWithKey(server, key, await clientAt(key, keys.url(route)));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(description);
  });

  it('answers 401 invalid_client when nothing listens at the jwks_uri', async () => {
    const key = await clientKey('ES256');
    const response = await askWithKey(server, key, await clientAt(key, 'http://127.0.0.1:9/jwks'));
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/could not be used/);
  });

  it('keeps serving other clients while one jwks_uri hangs, and answers the hung one 401 after its timeout', async () => {
    const key = await clientKey('ES256');
    const route = nextPath();
    keys.routes.set(route, () => undefined); // never answers
    const hung = askWithKey(server, key, await clientAt(key, keys.url(route))).then((response) => ({ response, at: Date.now() }));
    const other = await createClient(server.app);
    const fast = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(other.clientId, other.clientSecret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read' });
    const fastAt = Date.now();
    expect(fast.status).toBe(200);
    const { response, at } = await hung;
    expect(fastAt).toBeLessThan(at);
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/could not be used/);
  });
});

describe('a plain-http jwks_uri without JWKS_URI_ALLOW_HTTP', () => {
  it('is refused with 401 invalid_client', async () => {
    const strict = await startTestApp({ LOG_LEVEL: 'info' }, { logs: logs.stream });
    try {
      const key = await clientKey('ES256');
      // Registered where loopback targets are allowed; the strict instance shares the database.
      const id = await clientAt(key, keys.serve(nextPath(), { keys: [key.jwk] }), server);
      const response = await askWithKey(strict, key, id);
      expect(response.status).toBe(401);
      expect(await logs.refusedBecause(response)).toMatch(/could not be used/);
    } finally {
      await strict.close();
    }
  });
});
