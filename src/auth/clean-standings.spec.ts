import { CLEAN_STANDING_MS, CleanStandings } from './clean-standings.js';

function clock() {
  const time = { now: 1_000_000 };
  return { time, standings: new CleanStandings(() => time.now) };
}

describe('CleanStandings', () => {
  it('holds a pair read clean for less than a second', () => {
    const { time, standings } = clock();
    standings.add('reader', '192.0.2.1', standings.generation);
    time.now += CLEAN_STANDING_MS - 1;
    expect(standings.has('reader', '192.0.2.1')).toBe(true);
  });

  it('reads a pair again once its second is over', () => {
    const { time, standings } = clock();
    standings.add('reader', '192.0.2.1', standings.generation);
    time.now += CLEAN_STANDING_MS;
    expect(standings.has('reader', '192.0.2.1')).toBe(false);
  });

  it('holds a pair for its own address only', () => {
    const { standings } = clock();
    standings.add('reader', '192.0.2.1', standings.generation);
    expect(standings.has('reader', '192.0.2.2')).toBe(false);
    expect(standings.has('writer', '192.0.2.1')).toBe(false);
  });

  it('forgets every pair when a failure is counted', () => {
    const { standings } = clock();
    standings.add('reader', '192.0.2.1', standings.generation);
    standings.add('writer', '192.0.2.2', standings.generation);
    standings.clear();
    expect(standings.has('reader', '192.0.2.1')).toBe(false);
    expect(standings.has('writer', '192.0.2.2')).toBe(false);
  });

  it('does not remember a read that a failure counted meanwhile may have missed', () => {
    const { standings } = clock();
    const before = standings.generation;
    standings.clear();
    standings.add('reader', '192.0.2.1', before);
    expect(standings.has('reader', '192.0.2.1')).toBe(false);
  });

  it('drops the pair read longest ago past 100,000 pairs', () => {
    const { standings } = clock();
    for (let index = 0; index <= 100_000; index += 1) standings.add(`client-${index}`, '192.0.2.1', standings.generation);
    expect(standings.has('client-0', '192.0.2.1')).toBe(false);
    expect(standings.has('client-1', '192.0.2.1')).toBe(true);
    expect(standings.has('client-100000', '192.0.2.1')).toBe(true);
  });
});
