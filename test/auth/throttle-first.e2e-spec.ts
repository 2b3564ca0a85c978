import { AuthThrottle, FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../../src/auth/auth-throttle.js';
import { JwksServer } from '../support/jwks-server.js';
import { addressCount, clientCount, Flood, loopbackAddress, onceASecondUntilOk, postToken, sleep } from '../support/flood.js';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, type ClientKey } from '../support/keys.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The throttle comes first: a private_key_jwt client over its failure limit is answered 429
 * before its jwks_uri is fetched or any key is tried. The key set is served `no-store`, so every
 * assertion that gets as far as key work costs one fetch, which the key server counts.
 */

let server: TestApp;
let keys: JwksServer;

beforeAll(async () => {
  keys = new JwksServer();
  await keys.start();
  server = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true' });
});

afterAll(async () => {
  await server.close();
  await keys.stop();
});

type KeyClient = { clientId: string; key: ClientKey; path: string };

async function noStoreClient(): Promise<KeyClient> {
  const key = await clientKey('ES256');
  const path = keys.nextPath();
  const uri = keys.serve(path, { keys: [key.jwk] }, { 'Cache-Control': 'no-store' });
  const clientId = await createKeyClient(server.app, key, { jwksRaw: null, jwksUri: uri });
  return { clientId, key, path };
}

/** Assertions signed by an attacker's key under the client's kid: each one that reaches key work fetches the key set and fails. */
async function garbageAssertions(client: KeyClient): Promise<(index: number) => Record<string, string>> {
  const attacker = await clientKey('ES256', client.key.jwk.kid);
  const forged = await assertion(attacker, client.clientId, server.url);
  return () => ({ grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE, client_assertion: forged });
}

async function validAssertion(client: KeyClient): Promise<Record<string, string>> {
  return {
    grant_type: 'client_credentials',
    scope: 'read',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await assertion(client.key, client.clientId, server.url),
  };
}

describe('a flood of garbage assertions for a client with a no-store jwks_uri', () => {
  it('stops fetching the key set once the client is throttled, and the flooding address reaches its own limit', async () => {
    const client = await noStoreClient();
    const address = loopbackAddress();
    const flood = new Flood({ urls: [server.url], address, form: await garbageAssertions(client), connections: 8, pauseMs: 0 });
    let fetchesWhenThrottled: number;
    try {
      await eventually(async () => ((await addressCount(server.dataSource, address)) >= FAILURES_PER_ADDRESS ? true : undefined), 60_000, 100);
      fetchesWhenThrottled = keys.fetches(client.path);
      // The flood goes on against a throttled client: not one more fetch.
      await sleep(1_500);
      expect(keys.fetches(client.path)).toBe(fetchesWhenThrottled);
    } finally {
      await flood.stop();
    }
    // Only attempts admitted before the lock (at most one per connection in flight past the limit) fetched.
    expect(fetchesWhenThrottled).toBeLessThanOrEqual(FAILURES_PER_CLIENT + 8);
    expect(await clientCount(server.dataSource, client.clientId)).toBeLessThanOrEqual(FAILURES_PER_CLIENT + 8);
    expect(flood.count(429)).toBeGreaterThan(0);
    expect([...flood.statuses.keys()].filter((status) => ![401, 429].includes(status))).toEqual([]);
  }, 120_000);

  it('fetches at most once for a client already over its limit, and lets its valid assertion through from another address', async () => {
    const client = await noStoreClient();
    const throttle = server.app.get(AuthThrottle);
    for (let index = 0; index < FAILURES_PER_CLIENT; index += 1) await throttle.recordFailure(client.clientId, `198.51.100.${index + 1}`);
    const flood = new Flood({ urls: [server.url], address: loopbackAddress(), form: await garbageAssertions(client), connections: 8, pauseMs: 0 });
    try {
      await sleep(2_000);
      // The flooding address was clean for this client: its first attempt may take the client's one check of that second; after that it is failing.
      expect(keys.fetches(client.path)).toBeLessThanOrEqual(1);
      const working = loopbackAddress();
      const statuses = await onceASecondUntilOk(async () => postToken(server.url, working, await validAssertion(client)), 3);
      expect(statuses).toContain(200);
    } finally {
      await flood.stop();
    }
    expect(flood.count(429)).toBeGreaterThan(0);
    expect(flood.count(200)).toBe(0);
  }, 120_000);
});
