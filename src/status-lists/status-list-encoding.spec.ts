import { inflateSync } from 'node:zlib';
import { StatusList } from '@sd-jwt/jwt-status-list';
import { BLOCK_SIZE, IndexPermutation, encodeStatusList, newListId, newPermutationKey } from './status-list-encoding.js';

describe('encodeStatusList', () => {
  it('puts index i in bit i mod 8, counted from the least significant bit, of byte i / 8', async () => {
    const bytes = inflateSync(Buffer.from(await encodeStatusList(1024, [0, 9, 1023]), 'base64url'));
    expect(bytes.length).toBe(128);
    expect(bytes[0]).toBe(0b0000_0001);
    expect(bytes[1]).toBe(0b0000_0010);
    expect(bytes[127]).toBe(0b1000_0000);
    expect(bytes.subarray(2, 127).every((byte) => byte === 0)).toBe(true);
  });

  it('reads the same in an independent decoder', async () => {
    const set = [3, 100, 511, 777];
    const decoded = StatusList.decompressStatusList(await encodeStatusList(1024, set), 1);
    for (let index = 0; index < 1024; index += 1) expect(decoded.getStatus(index)).toBe(set.includes(index) ? 1 : 0);
  });

  it('compresses an empty list of 2^20 entries to a few hundred bytes', async () => {
    expect((await encodeStatusList(1 << 20, [])).length).toBeLessThan(1000);
  });
});

describe('IndexPermutation', () => {
  it.each([1024, 2048, 1 << 20])('hands out every index of a list of %i exactly once', (size) => {
    const permutation = new IndexPermutation(newPermutationKey(), size);
    const seen = new Set<number>();
    const sample = Math.min(size, 8192);
    for (let from = 0; from < sample; from += BLOCK_SIZE) for (const index of permutation.indices(from, BLOCK_SIZE)) seen.add(index);
    expect(seen.size).toBe(sample);
    expect([...seen].every((index) => Number.isInteger(index) && index >= 0 && index < size)).toBe(true);
  });

  it('is not sequential, and differs from key to key', () => {
    const first = new IndexPermutation(newPermutationKey(), 1 << 20).indices(0, BLOCK_SIZE);
    const second = new IndexPermutation(newPermutationKey(), 1 << 20).indices(0, BLOCK_SIZE);
    expect(first).not.toEqual([...first].sort((a, b) => a - b));
    expect(first).not.toEqual(second);
  });

  it('gives the same indices for the same key', () => {
    const key = newPermutationKey();
    expect(new IndexPermutation(key, 4096).indices(256, 256)).toEqual(new IndexPermutation(key, 4096).indices(256, 256));
  });
});

describe('newListId', () => {
  it('is 22 base64url characters', () => {
    expect(newListId()).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
