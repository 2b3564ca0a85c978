import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('exceedsJsonDepth', () => {
  it('accepts nesting up to the bound', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
  });

  it('refuses one level more, and 8,000 levels without overflowing the stack', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(nested(8_000))).toBe(true);
    expect(exceedsJsonDepth('['.repeat(100_000))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(JSON.stringify({ a: '['.repeat(100), b: '\\"{{{{'.repeat(50) }))).toBe(false);
  });
});
