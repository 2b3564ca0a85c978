import { runEvery } from './run-every.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 5 s, however loaded the machine) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 5_000) throw new Error('not reached within 5 s');
    await pause(5);
  }
}

describe('runEvery', () => {
  it('runs at once with `now`, then every interval, until stopped', async () => {
    let runs = 0;
    const stop = runEvery(
      10,
      () => {
        runs += 1;
        return Promise.resolve();
      },
      { now: true },
    );
    expect(runs).toBe(1);
    await until(() => runs >= 3);
    stop();
    const seen = runs;
    await pause(40);
    expect(runs).toBe(seen);
  });

  it('waits for the first interval without `now`', () => {
    let runs = 0;
    const stop = runEvery(10, () => Promise.resolve((runs += 1)));
    expect(runs).toBe(0);
    stop();
  });

  it('hands a failed run to onError and keeps running', async () => {
    const errors: string[] = [];
    const stop = runEvery(10, () => Promise.reject(new Error('down')), { onError: (error) => errors.push(error.message) });
    await until(() => errors.length >= 2);
    stop();
    expect(new Set(errors)).toEqual(new Set(['down']));
  });
});
