import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ReplayStore } from '../../src/auth/replay-store.js';
import { durablePool, GroupCommit } from '../../src/database/group-commit.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';

let pool: pg.Pool;

beforeAll(() => {
  pool = durablePool(testDatabaseUrl(), 'group-commit-test');
});

afterAll(() => pool.end());

describe('group commit', () => {
  it('writes the items of concurrent requests in one batch and one commit, each answered in order', async () => {
    const batches: number[] = [];
    const commits = new GroupCommit<number, string>(
      pool,
      async (client, items) => {
        batches.push(items.length);
        const { rows } = await client.query<{ doubled: string }>(
          'SELECT (x * 2)::text AS doubled FROM unnest($1::int[]) WITH ORDINALITY AS t(x, n) ORDER BY n',
          [items],
        );
        return rows.map((row) => row.doubled);
      },
      { transaction: true },
    );
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => commits.submit(index)));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, index) => String(index * 2)));
    expect(batches).toEqual([50]);
  });

  it('commits with synchronous_commit on, whatever the server default', async () => {
    const commits = new GroupCommit<null, string>(pool, async (client, items) => {
      const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      return items.map(() => rows[0].synchronous_commit);
    });
    expect(await commits.submit(null)).toBe('on');
  });

  it('sends the next batch before the requests of the finished one are answered', async () => {
    const written: number[][] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const commits = new GroupCommit<number, number>(pool, async (client, items) => {
      written.push([...items]);
      await client.query('SELECT 1');
      if (items.includes(1)) await firstHeld;
      return [...items];
    });
    const first = commits.submit(1);
    while (written.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = commits.submit(2);
    releaseFirst();
    // What the first request sees when it is answered: the second batch already written.
    const seenByFirst = await first.then(() => written.map((batch) => [...batch]));
    expect(seenByFirst).toEqual([[1], [2]]);
    expect(await second).toBe(2);
  });

  it('keeps answering after a connection breaks mid-batch', async () => {
    const commits = new GroupCommit<number, number>(pool, async (client, items) => {
      if (items.includes(13)) await client.query('SELECT pg_terminate_backend(pg_backend_pid())');
      await client.query('SELECT 1');
      return [...items];
    });
    await expect(commits.submit(13)).rejects.toThrow();
    expect(await commits.submit(14)).toBe(14);
  });

  it('fails every waiter of a failed batch, and rolls the batch back', async () => {
    const table = `group_commit_${randomUUID().replace(/-/g, '')}`;
    await pool.query(`CREATE TABLE ${table} (value int PRIMARY KEY)`);
    try {
      const commits = new GroupCommit<number, number>(
        pool,
        async (client, items) => {
          await client.query(`INSERT INTO ${table} (value) SELECT unnest($1::int[])`, [items]);
          return [...items];
        },
        { transaction: true },
      );
      // 3 twice in one batch: the primary key refuses the whole INSERT.
      const outcomes = await Promise.allSettled([1, 2, 3, 3].map((value) => commits.submit(value)));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
      expect((await pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table}`)).rows[0].count).toBe(0);
      // The next batch is not affected.
      expect(await commits.submit(4)).toBe(4);
    } finally {
      await pool.query(`DROP TABLE ${table}`);
    }
  });
});

describe('the replay store on group commit', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp();
  });

  afterAll(() => server.close());

  it('accepts a jti once even when the same jti arrives twice in one batch, and gives back the fresh one of a refused set', async () => {
    const store = server.app.get(ReplayStore);
    const expiresAt = Math.floor(Date.now() / 1000) + 60;
    const jti = randomUUID();
    const results = await Promise.all([1, 2, 3].map(() => store.firstUse('test', 'ns', jti, expiresAt)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const fresh = randomUUID();
    expect(
      await store.useOnce([
        { kind: 'test', namespace: 'ns', jti: fresh, expiresAt },
        { kind: 'test', namespace: 'ns', jti, expiresAt },
      ]),
    ).toBe(1);
    // The fresh one of the refused pair was given back: it can still be used.
    expect(await store.firstUse('test', 'ns', fresh, expiresAt)).toBe(true);
  });
});
