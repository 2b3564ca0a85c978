import { OAuthError } from '../oauth/oauth-error.js';
import { slowHashBounds, WorkGate } from './slow-hash-gate.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('WorkGate', () => {
  it('runs at most the given number at once and queues the next ones in order', async () => {
    const gate = new WorkGate(2, 2);
    const started: number[] = [];
    const blockers = [deferred(), deferred(), deferred(), deferred()];
    const runs = blockers.map((blocker, index) =>
      gate.run(async () => {
        started.push(index);
        await blocker.promise;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    blockers[0].resolve();
    await runs[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const blocker of blockers) blocker.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
  });

  it('refuses work past the queue with 503 temporarily_unavailable and Retry-After', async () => {
    const gate = new WorkGate(1, 1);
    const blocker = deferred();
    const first = gate.run(() => blocker.promise);
    const second = gate.run(() => Promise.resolve());
    const third = gate.run(() => Promise.resolve()).catch((error: unknown) => error);
    const refused = (await third) as OAuthError;
    expect(refused).toBeInstanceOf(OAuthError);
    expect(refused.status).toBe(503);
    expect(refused.code).toBe('temporarily_unavailable');
    expect(refused.headers['Retry-After']).toBe('1');
    blocker.resolve();
    await Promise.all([first, second]);
  });

  it('says in advance when work would be refused', async () => {
    const gate = new WorkGate(1, 1);
    const blocker = deferred();
    expect(() => gate.refuseIfFull()).not.toThrow();
    const first = gate.run(() => blocker.promise);
    expect(() => gate.refuseIfFull()).not.toThrow();
    const second = gate.run(() => Promise.resolve());
    expect(() => gate.refuseIfFull()).toThrow(OAuthError);
    blocker.resolve();
    await Promise.all([first, second]);
    expect(() => gate.refuseIfFull()).not.toThrow();
  });

  it('frees its place when the work fails', async () => {
    const gate = new WorkGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });

  it('refuses a piece of work that waited longer than its maximum wait, with the refusal it was given, and takes it out of the queue', async () => {
    const refusal = () => OAuthError.temporarilyUnavailable('line full', 1);
    const gate = new WorkGate(1, 1, { refusal, maxWaitMs: 20 });
    const blocker = deferred();
    const first = gate.run(() => blocker.promise);
    const waited = await gate.run(() => Promise.resolve('ran')).catch((error: unknown) => error);
    expect(waited).toBeInstanceOf(OAuthError);
    expect((waited as OAuthError).description).toBe('line full');
    // Its place in the queue is free again: the next one waits instead of being refused at once.
    const next = gate.run(() => Promise.resolve('next'));
    blocker.resolve();
    await first;
    await expect(next).resolves.toBe('next');
  });

  it('hands the slot over to a piece of work whose turn comes within its maximum wait', async () => {
    const gate = new WorkGate(1, 1, { maxWaitMs: 5_000 });
    const blocker = deferred();
    const first = gate.run(() => blocker.promise);
    const second = gate.run(() => Promise.resolve('second'));
    blocker.resolve();
    await first;
    await expect(second).resolves.toBe('second');
  });
});

describe('slowHashBounds', () => {
  it("leaves two of libuv's threads free and takes at most half the cores", () => {
    expect(slowHashBounds(4, 2).atOnce).toBe(1);
    expect(slowHashBounds(4, 16).atOnce).toBe(2);
    expect(slowHashBounds(16, 8).atOnce).toBe(4);
  });

  it('runs one at least, with a queue of four at least', () => {
    expect(slowHashBounds(1, 1)).toEqual({ atOnce: 1, waiting: 4 });
    expect(slowHashBounds(64, 32)).toEqual({ atOnce: 16, waiting: 64 });
  });
});
