import { randomBytes } from 'node:crypto';
import { add, patchAdmin } from '../support/admin.js';
import { bodyOf, type JsonApiDocument, type JsonApiResource } from '../support/bodies.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A caller-chosen id at the top of the 32-bit range once moved the table's sequence to its end,
// and every later add without an id answered 500 for good (docs/operations/security.md).
const TOP = 2_147_483_647;

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

const purpose = (id?: number) => add('purpose', { ...(id === undefined ? {} : { id }), attributes: { name: `purpose ${randomBytes(4).toString('hex')}` } });
const client = (id?: number) => {
  const clientId = `ids-${randomBytes(5).toString('hex')}`;
  return add('uma-client', { ...(id === undefined ? {} : { id }), attributes: { clientId, clientName: 'Ids', allowedScopes: 'read' } });
};

async function addedId(operation: unknown): Promise<number> {
  const response = await patchAdmin(server, [operation]);
  expect(response.status).toBe(200);
  return Number(bodyOf<JsonApiDocument<JsonApiResource>[]>(response)[0].data.id);
}

async function sequenceValue(table: string): Promise<number> {
  const [{ value }] = await server.dataSource.query<{ value: number }[]>(`SELECT last_value::int AS value FROM pg_sequences WHERE sequencename = $1`, [
    `${table}_id_seq`,
  ]);
  return value;
}

describe('server-assigned ids', () => {
  it('keeps assigning purpose ids after a caller chose 2147483647, also once that record is removed', async () => {
    expect(await addedId(purpose(TOP))).toBe(TOP);
    const assigned = [await addedId(purpose()), await addedId(purpose())];
    expect(new Set(assigned).size).toBe(2);
    expect(assigned).not.toContain(TOP);
    const removed = await patchAdmin(server, [{ op: 'remove', path: `/purpose/${TOP}` }]);
    expect(removed.status).toBe(200);
    expect(await addedId(purpose())).toBeLessThan(TOP);
  });

  it('keeps assigning uma-client ids after a caller chose 2147483647', async () => {
    expect(await addedId(client(TOP))).toBe(TOP);
    const first = await addedId(client());
    const second = await addedId(client());
    expect([first, second]).not.toContain(TOP);
    expect(second).not.toBe(first);
  });

  it('skips ids that callers have already taken', async () => {
    const next = (await sequenceValue('purpose')) + 1;
    expect(await addedId(purpose(next))).toBe(next);
    expect(await addedId(purpose(next + 1))).toBe(next + 1);
    const assigned = await addedId(purpose());
    expect([next, next + 1]).not.toContain(assigned);
    expect(assigned).toBe(next + 2);
  });

  it('starts again from the first free id when the sequence is at its end (left there by an older version)', async () => {
    await server.dataSource.query(`SELECT setval(pg_get_serial_sequence('purpose', 'id'), ${TOP})`);
    const assigned = await addedId(purpose());
    expect(assigned).toBeGreaterThan(0);
    expect(assigned).toBeLessThan(TOP);
    expect(await addedId(purpose())).not.toBe(assigned);
  });

  it('refuses an id beyond the 32-bit range with 400 and stores nothing', async () => {
    const [{ count }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM purpose');
    const response = await patchAdmin(server, [purpose(TOP + 1)]);
    expect(response.status).toBe(400);
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM purpose');
    expect(after).toBe(count);
  });
});
