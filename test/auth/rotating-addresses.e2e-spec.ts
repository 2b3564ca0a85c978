import { randomBytes } from 'node:crypto';
import { FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../../src/auth/auth-throttle.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { clientCount, Flood, loopbackAddress, postToken, sleep } from '../support/flood.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Lock-out with rotating addresses, made as the third probe made it: wrong secrets for a victim
 * behind a proxy (TRUST_PROXY), each request from a new IPv6 X-Forwarded-For address. Failure
 * counts of IPv6 sources are kept per /64, and an address from which the client authenticated
 * (remembered in PostgreSQL: here on another instance) keeps one verification a second that no
 * flood from elsewhere can take. No timings are asserted beyond "within about a second".
 */

let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  [first, second] = await Promise.all([startTestApp({ TRUST_PROXY: 'loopback' }), startTestApp({ TRUST_PROXY: 'loopback' })]);
}, 120_000);

afterAll(() => Promise.all([first?.close(), second?.close()]));

const scope = { grant_type: 'client_credentials', scope: 'read' };
// Each run draws its own documentation /48, so the counts of an earlier run never meet this one's.
const site = `2001:db8:${randomBytes(2).readUInt16BE(0).toString(16)}`;
let subnet = 0;
/** A fresh /64 of this run's /48, and a random address in it. */
const freshSubnet = () => `${site}:${(subnet += 1).toString(16)}`;
const inSubnet = (prefix: string) => `${prefix}:${[0, 0, 0, 0].map(() => randomBytes(2).readUInt16BE(0).toString(16)).join(':')}`;

function tokenFrom(server: TestApp, client: TestClient, forwardedFor: string, secret = client.clientSecret) {
  return postToken(server.url, '127.0.0.1', scope, { Authorization: basic(client.clientId, secret), 'X-Forwarded-For': forwardedFor });
}

it('counts the failures of every address of one IPv6 /64 together, up to the address limit, and no other /64 with them', async () => {
  const prefix = freshSubnet();
  const victim = await createClient(first.app);
  // Each attempt from a new address of the same /64 (a host's own prefix gives it 2^64 of them).
  for (let index = 0; index < FAILURES_PER_ADDRESS; index += 1) {
    const { status } = await tokenFrom(first, victim, inSubnet(prefix), 'wrong-secret');
    expect([401, 429]).toContain(status);
  }
  const bystander = await createClient(first.app);
  expect(await tokenFrom(first, bystander, inSubnet(prefix), 'wrong-secret')).toMatchObject({ status: 429 });
  expect(await tokenFrom(first, bystander, inSubnet(freshSubnet()), 'wrong-secret')).toMatchObject({ status: 401 });
});

it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
  const victim = await createClient(first.app);
  // An address of the benchmarking range (198.18.0.0/15), which no other suite uses: the failures it
  // leaves in the shared throttle table must not lock out another suite's fixed address.
  const [high, low] = randomBytes(2);
  const address = `198.${18 + (high % 2)}.${high}.${1 + (low % 250)}`;
  for (let index = 0; index < FAILURES_PER_ADDRESS; index += 1) await tokenFrom(first, victim, index % 2 === 0 ? address : `::ffff:${address}`, 'wrong-secret');
  const bystander = await createClient(first.app);
  expect(await tokenFrom(first, bystander, address, 'wrong-secret')).toMatchObject({ status: 429 });
});

it('lets the right secret through within about a second from an address the client used before, under a flood from ever new /64s, on an instance that never verified it', async () => {
  const victim = await createClient(first.app);
  const home = inSubnet(freshSubnet());
  // The client worked from its home address (on the first instance): remembered in PostgreSQL.
  expect(await tokenFrom(first, victim, home)).toMatchObject({ status: 200 });
  await eventually(async () => {
    const rows: unknown[] = await first.dataSource.query(`SELECT 1 FROM auth_failure WHERE key LIKE 'known:%'`);
    return rows.length > 0 || undefined;
  });
  // The flood, on the second instance: every request from an address of a /64 never seen before.
  const flood = new Flood({
    urls: [second.url],
    address: loopbackAddress(),
    form: () => scope,
    headers: (index) => ({ Authorization: basic(victim.clientId, `wrong-${index}`), 'X-Forwarded-For': inSubnet(freshSubnet()) }),
    connections: 4,
    pauseMs: 0,
  });
  try {
    await eventually(async () => ((await clientCount(second.dataSource, victim.clientId)) >= FAILURES_PER_CLIENT ? true : undefined), 30_000, 50);
    await sleep(1_000);
    // Tries every 250 ms for about a second and a half (a slow hash under load may take a while).
    const statuses: number[] = [];
    for (let tries = 0; tries < 6 && !statuses.includes(200); tries += 1) {
      statuses.push((await tokenFrom(second, victim, home)).status);
      if (!statuses.includes(200)) await sleep(250);
    }
    expect(statuses).toContain(200);
    // The flood itself stayed refused.
    expect(flood.count(200)).toBe(0);
  } finally {
    await flood.stop();
  }
}, 60_000);
