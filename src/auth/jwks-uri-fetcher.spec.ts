import { freshness } from './jwks-uri-fetcher.js';

describe('freshness of a jwks_uri document', () => {
  it.each([
    [null, 300_000],
    ['no-cache', 300_000],
    ['max-age=60', 300_000],
    ['public, max-age=3600', 3_600_000],
    ['max-age=999999', 86_400_000],
    ['max-age="7200"', 7_200_000],
  ])('keeps a document with Cache-Control %p for %d ms', (header, expected) => {
    expect(freshness(header)).toBe(expected);
  });
});
