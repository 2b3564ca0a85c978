import { jest } from '@jest/globals';
import { isRefusal, markRefusal, RefusalLog } from './refusal-log.js';

type Line = { msg: string; clientId: string; reason: string; refused: number; suppressed: number };

function capture() {
  const lines: Line[] = [];
  const log = new RefusalLog({ warn: (message) => lines.push(message as Line) });
  return { lines, log };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('RefusalLog', () => {
  it('writes the first refusal of a client and reason at once, then the count of the following second in one line', () => {
    const { lines, log } = capture();
    for (let index = 0; index < 500; index += 1) log.note('reader', 'client over its limit');
    expect(lines).toEqual([expect.objectContaining({ clientId: 'reader', reason: 'client over its limit', refused: 1, suppressed: 0 })]);
    jest.advanceTimersByTime(1_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ refused: 499, suppressed: 499 });
    log.stop();
  });

  it('writes at most one line a second per client and reason during a sustained flood', () => {
    const { lines, log } = capture();
    for (let millisecond = 0; millisecond < 5_000; millisecond += 1) {
      log.note('reader', 'client over its limit');
      jest.advanceTimersByTime(1);
    }
    // The first line, then one a second.
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(lines.reduce((sum, line) => sum + line.refused, 0)).toBeGreaterThanOrEqual(4_000);
    log.stop();
  });

  it('keeps clients and reasons apart', () => {
    const { lines, log } = capture();
    log.note('reader', 'client over its limit');
    log.note('reader', 'slow hashes busy');
    log.note('writer', 'client over its limit');
    log.note('reader', 'client over its limit');
    expect(lines.map((line) => `${line.clientId}/${line.reason}`)).toEqual([
      'reader/client over its limit',
      'reader/slow hashes busy',
      'writer/client over its limit',
    ]);
    log.stop();
  });

  it('writes nothing more after a quiet second, and starts afresh at the next refusal', () => {
    const { lines, log } = capture();
    log.note('reader', 'client over its limit');
    jest.advanceTimersByTime(3_000);
    expect(lines).toHaveLength(1);
    log.note('reader', 'client over its limit');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ refused: 1, suppressed: 0 });
    log.stop();
  });

  it('folds a flood of made-up client ids into one line per reason past 50 clients', () => {
    const { lines, log } = capture();
    for (let index = 0; index < 1_000; index += 1) log.note(`ghost-${index}`, 'client over its limit');
    expect(lines.length).toBe(51);
    expect(lines[50]).toMatchObject({ clientId: '(other clients)' });
    log.stop();
  });

  it('shows at most 100 characters of a client id', () => {
    const { lines, log } = capture();
    log.note('x'.repeat(300), 'address over its limit');
    expect(lines[0].clientId).toHaveLength(100);
    log.stop();
  });
});

describe('markRefusal', () => {
  it('marks a response for the request log', () => {
    const response = {};
    expect(isRefusal(response)).toBe(false);
    markRefusal(response);
    expect(isRefusal(response)).toBe(true);
  });
});
