import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ChangeFeed } from '../../src/database/change-feed.js';
import { MAX_REVOCATIONS_IN_MEMORY, RevocationState } from '../../src/revocation/revocation-state.js';
import { revokeTokens, type Revocation } from '../../src/revocation/revoked-tokens.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// docs/reference/token-endpoint.md#revocations-from-memory: each instance holds every live revoked
// jti, reads what other instances commit after each change notification, and misses none of them.
let server: TestApp;
let state: RevocationState;

beforeAll(async () => {
  server = await startTestApp();
  state = server.app.get(RevocationState);
  await eventually(() => (server.app.get(ChangeFeed).live ? true : undefined));
});

afterAll(() => server?.close());

const inAnHour = () => new Date(Date.now() + 3_600_000);
const revocation = (jti: string, expiresAt = inAnHour()): Revocation => ({ jti, clientId: 'another-instance', expiresAt, statusListId: null, statusIdx: null });

/** This instance's count of revocation answers served from memory (`hit`) or read from the database (`miss`). */
async function lookups(result: 'hit' | 'miss'): Promise<number> {
  const text = (await request(server.adminUrl).get('/metrics')).text;
  const line = text.split('\n').find((entry) => entry.startsWith(`cache_lookups_total{cache="revocations",result="${result}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('revocations in memory', () => {
  it('answers a revocation another process committed once its change has been read, from memory', async () => {
    const jti = randomUUID();
    // Written as another instance would: straight to the database, heard of through the feed alone.
    await revokeTokens(server.dataSource, [revocation(jti)]);
    await eventually(async () => ((await state.isRevoked(jti)) ? true : undefined));
    const hits = await lookups('hit');
    const misses = await lookups('miss');
    expect(await state.isRevoked(jti)).toBe(true);
    expect(await state.isRevoked(randomUUID())).toBe(false);
    expect(await lookups('hit')).toBe(hits + 2);
    expect(await lookups('miss')).toBe(misses);
  });

  it('sees a revocation whose transaction began before a read and committed after it', async () => {
    const jti = randomUUID();
    const runner = server.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await revokeTokens(runner.manager, [revocation(jti)]);
      // A read while that transaction is open: it cannot see the row, and must not move past it.
      await state.refresh();
      expect(await state.isRevoked(jti)).toBe(false);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await state.refresh();
    const misses = await lookups('miss');
    expect(await state.isRevoked(jti)).toBe(true);
    expect(await lookups('miss')).toBe(misses);
  });

  it('does not count a revocation of a token already expired', async () => {
    const jti = randomUUID();
    await revokeTokens(server.dataSource, [revocation(jti, new Date(Date.now() - 60_000))]);
    await state.refresh();
    expect(await state.isRevoked(jti)).toBe(false);
  });

  it('reads a token not in memory from the database while more revocations are live than memory holds', async () => {
    const flood = Array.from({ length: MAX_REVOCATIONS_IN_MEMORY + 1 }, (_, i) => `flood-${i}-${randomUUID()}`);
    const expiresAt = inAnHour();
    await revokeTokens(
      server.dataSource,
      flood.map((jti) => revocation(jti, expiresAt)),
    );
    await state.refresh();
    const last = randomUUID();
    await revokeTokens(server.dataSource, [revocation(last)]);
    await state.refresh();
    const misses = await lookups('miss');
    expect(await state.isRevoked(last)).toBe(true);
    expect(await state.isRevoked(randomUUID())).toBe(false);
    expect(await lookups('miss')).toBe(misses + 2);
    await server.dataSource.query('DELETE FROM revoked_token WHERE jti = ANY($1)', [flood]);
  });
});
