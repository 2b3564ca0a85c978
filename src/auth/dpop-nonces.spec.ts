import { randomBytes } from 'node:crypto';
import { DpopNonces, NONCE_STEP_SECONDS, nonceFor } from './dpop-nonces.js';

// A fake data source holding one server_secret row, as PostgreSQL would.
function dataSource(secret: Buffer) {
  return { query: (sql: string) => Promise.resolve(sql.startsWith('SELECT') ? [{ value: secret.toString('base64url') }] : []) };
}

describe('DpopNonces', () => {
  const secret = randomBytes(32);
  const step = NONCE_STEP_SECONDS * 1000;
  const start = 1_800_000_000_000;

  it('agrees between two instances reading the same secret', async () => {
    const first = new DpopNonces(dataSource(secret) as never, {});
    const second = new DpopNonces(dataSource(secret) as never, {});
    expect(await second.isValid(await first.current(start), start)).toBe(true);
  });

  it('accepts the previous step, refuses older ones', async () => {
    const nonces = new DpopNonces(dataSource(secret) as never, {});
    const issued = await nonces.current(start);
    expect(await nonces.isValid(issued, start + step)).toBe(true);
    expect(await nonces.isValid(issued, start + 2 * step)).toBe(false);
  });

  it('refuses a nonce made with another secret', async () => {
    const nonces = new DpopNonces(dataSource(secret) as never, {});
    expect(await nonces.isValid(nonceFor(randomBytes(32), Math.floor(start / step)), start)).toBe(false);
    expect(await nonces.isValid('', start)).toBe(false);
  });
});
