import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import request from 'supertest';
import { add, patchAdmin } from '../support/admin.js';
import { JwksServer } from '../support/jwks-server.js';
import { eventually } from '../support/processes.js';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type JsonApiDocument, type JsonApiResource, type OAuthErrorBody, type PointedJsonApiErrors } from '../support/bodies.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../src/oauth/oauth-error.js';

// A body no description may ever repeat: the jwks_uri's answer is none of the caller's business.
const DISTINCTIVE = 'ZQX-internal-admin-secret-shape-7731';

let relaxed: TestApp;
let strict: TestApp;
let keys: JwksServer;
const strictLogs: string[] = [];
const relaxedLogs: string[] = [];

/** A log destination that keeps every line in `lines`. */
function collect(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
}

beforeAll(async () => {
  keys = new JwksServer();
  await keys.start();
  relaxed = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true' }, { logs: collect(relaxedLogs) });
  strict = await startTestApp({ ISSUER: relaxed.url }, { logs: collect(strictLogs) });
});

afterAll(async () => {
  await strict.close();
  await relaxed.close();
  await keys.stop();
});

beforeEach(() => relaxed.dataSource.query('TRUNCATE auth_failure'));

function askWithKey(target: TestApp, key: ClientKey, clientId: string) {
  return assertion(key, clientId, `${relaxed.url}/oauth2/token`).then((jwt) =>
    request(target.url)
      .post('/oauth2/token')
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: jwt }),
  );
}

/** A client of the relaxed instance (where loopback targets may be registered) whose keys are at `uri`. */
function clientAt(key: ClientKey, uri: string): Promise<string> {
  return createKeyClient(relaxed.app, key, { jwksRaw: null, jwksUri: uri });
}

/** Registers through the admin interface of `target`; answers the response. */
function register(target: TestApp, jwksUri: string) {
  return patchAdmin(target, [
    add('uma-client', {
      attributes: {
        clientId: `targets-${Math.random().toString(36).slice(2, 10)}`,
        clientName: 'Backend',
        allowedScopes: 'read',
        clientAuthenticationType: 'private_key_jwt',
        jwksUri,
      },
    }),
  ]);
}

describe('jwks_uri caching follows the response Cache-Control, counted at the key server', () => {
  const cases: [string, Record<string, string>, number][] = [
    ['max-age=600 is reused', { 'Cache-Control': 'max-age=600' }, 1],
    ['no Cache-Control is reused (5 minutes)', {}, 1],
    ['no-store is fetched again for the next request', { 'Cache-Control': 'no-store' }, 2],
    ['no-cache is fetched again for the next request', { 'Cache-Control': 'no-cache' }, 2],
    ['max-age=0 is fetched again for the next request', { 'Cache-Control': 'max-age=0' }, 2],
  ];

  it.each(cases)('a document with %s', async (_name, headers, fetches) => {
    const key = await clientKey('ES384');
    const path = keys.nextPath();
    const id = await clientAt(key, keys.serve(path, { keys: [key.jwk] }, headers));
    expect((await askWithKey(relaxed, key, id)).status).toBe(200);
    expect((await askWithKey(relaxed, key, id)).status).toBe(200);
    expect(keys.fetches(path)).toBe(fetches);
  });

  it('is not kept past its max-age', async () => {
    const key = await clientKey('ES256');
    const path = keys.nextPath();
    const id = await clientAt(key, keys.serve(path, { keys: [key.jwk] }, { 'Cache-Control': 'max-age=1' }));
    expect((await askWithKey(relaxed, key, id)).status).toBe(200);
    expect((await askWithKey(relaxed, key, id)).status).toBe(200);
    expect(keys.fetches(path)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await askWithKey(relaxed, key, id)).status).toBe(200);
    expect(keys.fetches(path)).toBe(2);
  });

  it('asks for application/json', async () => {
    const key = await clientKey('ES256');
    const path = keys.nextPath();
    const id = await clientAt(key, keys.serve(path, { keys: [key.jwk] }));
    await askWithKey(relaxed, key, id);
    const fetched = keys.requests.filter((incoming) => incoming.url === path);
    expect(fetched.map((incoming) => incoming.headers.accept)).toEqual(['application/json']);
  });
});

describe('a failed jwks_uri fetch tells the caller nothing of the target', () => {
  it.each([500, 404, 200])('answers HTTP %d with a distinctive body: 401 without its status or body', async (status) => {
    const key = await clientKey('ES256');
    const path = keys.nextPath();
    keys.routes.set(path, (response) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: DISTINCTIVE })));
    const response = await askWithKey(relaxed, key, await clientAt(key, keys.url(path)));
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_client');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
    expect(response.text).not.toContain(DISTINCTIVE);
    expect(response.text).not.toContain(String(status));
    // The operator still learns why: the status and the start of the body are in the log.
    // Nest's Logger is process-wide (the last app started owns it), so either instance's lines may hold it.
    const logged = () => [...relaxedLogs, ...strictLogs].some((line) => line.includes(`HTTP ${status}`) && line.includes(DISTINCTIVE));
    if (status !== 200) await eventually(() => Promise.resolve(logged() ? true : undefined));
  });
});

describe('jwks_uri targets on loopback, private, link-local or unspecified addresses', () => {
  it.each([
    ['the admin listener', () => `http://127.0.0.1:${new URL(strict.adminUrl).port}/admin/uma-client`],
    ['a cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
    ['a private address', () => 'https://10.0.0.7/jwks'],
    ['an IPv6 loopback', () => 'https://[::1]/jwks'],
    ['the unspecified address', () => 'https://0.0.0.0/jwks'],
    ['userinfo', () => 'https://user:password@keys.example/jwks'],
    ['shared address space (cloud metadata)', () => 'https://100.100.100.200/latest/meta-data/'],
    ['the benchmarking range', () => 'https://198.18.0.1/jwks'],
    ['NAT64 of the metadata address', () => 'https://[64:ff9b::a9fe:a9fe]/latest/meta-data/'],
    ['an IPv4-compatible loopback', () => 'https://[::7f00:1]/jwks'],
    ['an IPv4-mapped loopback', () => 'https://[::ffff:127.0.0.1]/jwks'],
    ['an IPv4-translated loopback', () => 'https://[::ffff:0:7f00:1]/jwks'],
    ['an IPv4-translated metadata address', () => 'https://[::ffff:0:169.254.169.254]/jwks'],
    ['a site-local IPv6 address (fec0::/10)', () => 'https://[fec0::1]/jwks'],
    ['a Teredo address (2001::/32)', () => 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/jwks'],
    ['an IETF protocol assignment (192.0.0.0/24)', () => 'https://192.0.0.170/jwks'],
    ['the discard-only prefix (100::/64)', () => 'https://[100::1]/jwks'],
    ['a documentation address', () => 'https://203.0.113.9/jwks'],
    ['plain http to a public name', () => 'http://keys.example/jwks'],
  ])('refuses %s at registration with 422 naming jwksUri', async (_name, uri) => {
    const response = await register(strict, uri());
    expect(response.status).toBe(422);
    expect(bodyOf<PointedJsonApiErrors[]>(response)[0].errors[0].source.pointer).toBe('/0/value/attributes/jwksUri');
  });

  it('accepts a name that does not resolve (it is judged when fetched)', async () => {
    const response = await register(strict, 'https://keys.no-such-host.invalid/jwks');
    expect(response.status).toBe(200);
  });

  it('accepts a loopback target when JWKS_URI_ALLOW_HTTP=true', async () => {
    expect((await register(relaxed, keys.url('/anything'))).status).toBe(200);
  });

  it('never fetches a literal loopback target registered before the rule, and says only that the key set could not be used', async () => {
    const key = await clientKey('ES256');
    const path = keys.nextPath();
    keys.routes.set(path, (response) => response.writeHead(500).end(DISTINCTIVE));
    const id = await clientAt(key, keys.url(path).replace('http:', 'https:'));
    const response = await askWithKey(strict, key, id);
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
    expect(response.text).not.toContain(DISTINCTIVE);
    expect(keys.fetches(path)).toBe(0);
  });

  it.each(['[::7f00:1]', '[::ffff:0:7f00:1]', '[64:ff9b::7f00:1]'])(
    'never fetches an IPv6 form %s of the loopback key server registered before the rule',
    async (host) => {
      const key = await clientKey('ES256');
      const path = keys.nextPath();
      keys.serve(path, { keys: [key.jwk] });
      const id = await clientAt(key, keys.url(path, host).replace('http:', 'https:'));
      const response = await askWithKey(strict, key, id);
      expect(response.status).toBe(401);
      expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
      expect(keys.fetches(path)).toBe(0);
    },
  );

  it('refuses, after resolving it, a name that resolves to a loopback or private address, and logs why', async () => {
    const name = hostname();
    const resolved = await lookup(name);
    // Precondition: this machine's own name resolves to a loopback or private address (as in containers and CI).
    expect(resolved.address).toMatch(/^(127\.|10\.|172\.(1[6-9]|2\d|3[01])\.|192\.168\.|::1$|f[cd])/);
    const key = await clientKey('ES256');
    const path = keys.nextPath();
    keys.serve(path, { keys: [key.jwk] });
    const registered = await register(strict, keys.url(path, name).replace('http:', 'https:'));
    expect(registered.status).toBe(200);
    const id = bodyOf<JsonApiDocument<JsonApiResource>[]>(registered)[0].data.attributes.clientId as string;
    const response = await askWithKey(strict, key, id);
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(CLIENT_AUTHENTICATION_FAILED);
    expect(keys.fetches(path)).toBe(0);
    expect(strictLogs.join('\n')).toContain(`resolves to a loopback, private, link-local or unspecified address (${resolved.address})`);
  });
});
