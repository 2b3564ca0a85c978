import { freshness } from './jwks-uri-fetcher.js';

describe('freshness of a jwks_uri document', () => {
  it.each([
    [null, 300_000],
    ['public', 300_000],
    ['no-cache', 0],
    ['no-store', 0],
    ['max-age=0', 0],
    ['max-age=3600, no-cache', 0],
    ['no-cache="set-cookie", max-age=600', 0],
    ['max-age=60', 60_000],
    ['public, max-age=3600', 3_600_000],
    ['Max-Age=120', 120_000],
    ['max-age=999999', 86_400_000],
    ['max-age="7200"', 7_200_000],
    ['max-age=soon', 300_000],
  ])('keeps a document with Cache-Control %p for %d ms', (header, expected) => {
    expect(freshness(header)).toBe(expected);
  });
});
