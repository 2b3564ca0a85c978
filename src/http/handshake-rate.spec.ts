import { HandshakeRate } from './handshake-rate.js';

describe('HandshakeRate', () => {
  it('admits a burst of the rate from one address, then refuses until the bucket refills', () => {
    const rate = new HandshakeRate(3);
    const now = 1_000_000;
    expect([1, 2, 3, 4].map(() => rate.admit('192.0.2.1', now))).toEqual([true, true, true, false]);
    expect(rate.admit('192.0.2.1', now + 100)).toBe(false);
    expect(rate.admit('192.0.2.1', now + 400)).toBe(true);
  });

  it('keeps each address to its own bucket', () => {
    const rate = new HandshakeRate(1);
    expect(rate.admit('192.0.2.1', 0)).toBe(true);
    expect(rate.admit('192.0.2.1', 0)).toBe(false);
    expect(rate.admit('192.0.2.2', 0)).toBe(true);
  });
});
