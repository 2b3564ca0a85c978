import request from 'supertest';
import { remove, patchAdmin } from '../support/admin.js';
import { bodyOf, type IntrospectionBody, type TokenBody } from '../support/bodies.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { ChangeFeed } from '../../src/database/change-feed.js';

// docs/reference/token-endpoint.md#revocations-from-memory: introspection answers a token's
// revocation from memory; a revocation or withdrawal on another instance reaches it within a
// second through the change feed, and while its feed is cut it reads the database.
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  first = await startTestApp();
  // The same issuer, as instances behind one load balancer.
  second = await startTestApp({ ISSUER: first.url });
});

afterAll(() => Promise.all([first?.close(), second?.close()]));

async function issued(grant: ConsentGrant, scope: string): Promise<string> {
  const response = await request(first.url)
    .post('/oauth2/token')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
  expect(response.status).toBe(200);
  return bodyOf<TokenBody>(response).access_token;
}

async function activeOn(server: TestApp, grant: ConsentGrant, token: string): Promise<boolean> {
  const response = await request(server.url).post('/oauth2/introspect').set('Authorization', basic(grant.clientId, grant.secret)).type('form').send({ token });
  expect(response.status).toBe(200);
  return bodyOf<IntrospectionBody>(response).active;
}

type Answer = { sentAt: number; active: boolean };

/** Introspects `token` on `server` back to back until `stop` resolves; every answer with when its request was sent. */
async function introspectUntil(server: TestApp, grant: ConsentGrant, token: string, stop: Promise<unknown>): Promise<Answer[]> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const answers: Answer[] = [];
  while (!stopped) {
    const sentAt = Date.now();
    answers.push({ sentAt, active: await activeOn(server, grant, token) });
  }
  return answers;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `change` while `token` is introspected on the first instance; answers the answers and when the change had completed. */
async function whileIntrospected(grant: ConsentGrant, token: string, change: () => Promise<void>): Promise<{ answers: Answer[]; changedAt: number }> {
  let changedAt = Number.POSITIVE_INFINITY;
  const done = (async () => {
    await pause(200);
    await change();
    changedAt = Date.now();
    await pause(1_500);
  })();
  const answers = await introspectUntil(first, grant, token, done);
  await done;
  return { answers, changedAt };
}

/** No answer sent a second or more after the change says active, and none after the first inactive one. */
function expectEndedWithinASecond({ answers, changedAt }: { answers: Answer[]; changedAt: number }): void {
  expect(answers[0].active).toBe(true);
  expect(answers.filter((answer) => answer.sentAt >= changedAt + 1_000 && answer.active)).toEqual([]);
  const firstInactive = answers.findIndex((answer) => !answer.active);
  expect(firstInactive).toBeGreaterThan(0);
  expect(answers.slice(firstInactive).filter((answer) => answer.active)).toEqual([]);
}

function revokeOnSecond(grant: ConsentGrant, token: string) {
  return async () => {
    const response = await request(second.url).post('/oauth2/revoke').set('Authorization', basic(grant.clientId, grant.secret)).type('form').send({ token });
    expect(response.status).toBe(200);
  };
}

/** This instance's count of revocation answers served from memory (`hit`) or read from the database (`miss`). */
async function revocationLookups(server: TestApp, result: 'hit' | 'miss'): Promise<number> {
  const text = (await request(server.adminUrl).get('/metrics')).text;
  const line = text.split('\n').find((entry) => entry.startsWith(`cache_lookups_total{cache="revocations",result="${result}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('introspection from memory', () => {
  it("answers a known token's revocation state from memory in the steady state", async () => {
    const grant = await consentWorld(first);
    const token = await issued(grant, 'uma_protection');
    expect(await activeOn(first, grant, token)).toBe(true);
    const [hits, misses] = [await revocationLookups(first, 'hit'), await revocationLookups(first, 'miss')];
    for (let i = 0; i < 5; i += 1) expect(await activeOn(first, grant, token)).toBe(true);
    expect(await revocationLookups(first, 'hit')).toBe(hits + 5);
    expect(await revocationLookups(first, 'miss')).toBe(misses);
  });

  it('answers inactive at once on the instance that revoked', async () => {
    const grant = await consentWorld(first);
    const token = await issued(grant, 'uma_protection');
    expect(await activeOn(first, grant, token)).toBe(true);
    const response = await request(first.url).post('/oauth2/revoke').set('Authorization', basic(grant.clientId, grant.secret)).type('form').send({ token });
    expect(response.status).toBe(200);
    expect(await activeOn(first, grant, token)).toBe(false);
  });

  it('answers inactive within a second, and never active again, for a token another instance revoked while it was introspected', async () => {
    const grant = await consentWorld(first);
    const token = await issued(grant, 'uma_protection');
    expectEndedWithinASecond(await whileIntrospected(grant, token, revokeOnSecond(grant, token)));
  });

  it("answers inactive within a second, and never active again, for a token another instance's change withdrew while it was introspected", async () => {
    const grant = await consentWorld(first);
    const token = await issued(grant, `${grant.definitionName}:read`);
    expectEndedWithinASecond(
      await whileIntrospected(grant, token, async () => {
        expect((await patchAdmin(second, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
      }),
    );
  });

  it('never answers active for a token another instance revoked while its own change feed was cut, and answers from memory again once the feed is back', async () => {
    const grant = await consentWorld(first);
    const token = await issued(grant, 'uma_protection');
    const feed = first.app.get(ChangeFeed);
    // The answer is in memory before the cut.
    expect(await activeOn(first, grant, token)).toBe(true);
    expect(await activeOn(first, grant, token)).toBe(true);
    const cutPid = feed.listenerPid;
    expect(cutPid).toEqual(expect.any(Number));
    const answers: Answer[] = [];
    await first.dataSource.query('SELECT pg_terminate_backend($1)', [cutPid]);
    await revokeOnSecond(grant, token)();
    const revokedAt = Date.now();
    // Through the cut, the reconnection and after it.
    while (Date.now() < revokedAt + 1_500) answers.push({ sentAt: Date.now(), active: await activeOn(first, grant, token) });
    expect(answers.filter((answer) => answer.active)).toEqual([]);
    const newPid = await eventually(() => (feed.listenerPid !== undefined && feed.listenerPid !== cutPid ? feed.listenerPid : undefined));
    expect(newPid).not.toBe(cutPid);
    const hits = await revocationLookups(first, 'hit');
    expect(await activeOn(first, grant, token)).toBe(false);
    expect(await activeOn(first, grant, token)).toBe(false);
    expect(await revocationLookups(first, 'hit')).toBeGreaterThan(hits);
  });
});
