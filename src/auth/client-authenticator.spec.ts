import { jest } from '@jest/globals';
import type { ClientRecord } from '../clients/client-record.js';

// The slow hash is replaced by a counting fake: these tests are about when it runs.
const verifyClientSecret = jest.fn((secret: string, hash: string) => Promise.resolve(hash === `hash-of:${secret}`));
jest.unstable_mockModule('../clients/client-secrets.js', () => ({
  verifyClientSecret,
  decoySecretHash: () => Promise.resolve('decoy-hash'),
}));
const { ClientAuthenticator } = await import('./client-authenticator.js');
const { WorkGate } = await import('./slow-hash-gate.js');
const { admit } = await import('./auth-throttle.js');
type Standing = import('./auth-throttle.js').Standing;
type AdmitOptions = import('./auth-throttle.js').AdmitOptions;

function record(secretHash: string): ClientRecord {
  return {
    id: 1,
    clientId: 'reader',
    clientName: 'Reader',
    authenticationType: 'client_secret_basic',
    clientType: 'CONFIDENTIAL',
    grantTypes: new Set(['client_credentials']),
    allowedScopes: new Set(['read']),
    secretHash,
    jwksRaw: null,
    jwksUri: null,
    dpopBound: false,
  };
}

function setup(stored: ClientRecord | null, limits: Partial<Standing> = {}, gate = new WorkGate(4, 4)) {
  const directory = { current: stored, find: jest.fn(() => Promise.resolve(directory.current)) };
  const throttle = {
    standing: jest.fn((): Promise<Standing> => Promise.resolve({ failing: false, ...limits })),
    claimLockedVerification: jest.fn(() => Promise.resolve(true)),
    countRefusal: jest.fn(() => Promise.resolve(undefined)),
    recordFailure: jest.fn(() => Promise.resolve(undefined)),
    clearFailing: jest.fn(() => Promise.resolve(undefined)),
    rememberSuccess: jest.fn(),
    // The real decision, on the stand-in counts above.
    admit: (clientId: string, address: string, options?: AdmitOptions) => admit(throttle, clientId, address, options),
  };
  const authenticator = new ClientAuthenticator(directory as never, throttle as never, gate);
  const attempt = (clientSecret: string, method: ClientRecord['authenticationType'] = 'client_secret_basic') =>
    authenticator.authenticate({ clientId: 'reader', clientSecret, method, sourceAddress: '192.0.2.1' });
  return { directory, throttle, attempt };
}

beforeEach(() => verifyClientSecret.mockClear());

describe('ClientAuthenticator', () => {
  it("claims a known source's own verification while the client is over its limit, not the one every address shares", async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12, known: true });
    await expect(attempt('s3cret')).resolves.toMatchObject({ clientId: 'reader' });
    expect(throttle.claimLockedVerification).toHaveBeenCalledWith('reader', '192.0.2.1', true);
  });

  it('remembers the source of a success, on the slow path and on the cheap one', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'));
    await attempt('s3cret');
    await attempt('s3cret');
    expect(throttle.rememberSuccess).toHaveBeenCalledTimes(2);
    expect(throttle.rememberSuccess).toHaveBeenCalledWith('reader', '192.0.2.1');
  });

  it('runs the slow hash once, then recognises the secret cheaply without touching the throttle', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'));
    await attempt('s3cret');
    await attempt('s3cret');
    await attempt('s3cret');
    expect(verifyClientSecret).toHaveBeenCalledTimes(1);
    expect(throttle.standing).toHaveBeenCalledTimes(1);
    expect(throttle.recordFailure).not.toHaveBeenCalled();
  });

  it('shares one slow hash among concurrent first requests', async () => {
    const { attempt } = setup(record('hash-of:s3cret'));
    await Promise.all(Array.from({ length: 20 }, () => attempt('s3cret')));
    expect(verifyClientSecret).toHaveBeenCalledTimes(1);
  });

  it('answers 429 without running the slow hash when the address limit is used up', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { address: 42.2 });
    await expect(attempt('s3cret')).rejects.toMatchObject({ code: 'too_many_requests', status: 429, headers: { 'Retry-After': '43' } });
    expect(verifyClientSecret).not.toHaveBeenCalled();
    expect(throttle.claimLockedVerification).not.toHaveBeenCalled();
  });

  it('answers 429 without hashing, and counts the refusal toward the address, when the address has failed for a client over its limit', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12, failing: true });
    await expect(attempt('s3cret')).rejects.toMatchObject({ code: 'too_many_requests', status: 429 });
    expect(verifyClientSecret).not.toHaveBeenCalled();
    expect(throttle.claimLockedVerification).not.toHaveBeenCalled();
    expect(throttle.countRefusal).toHaveBeenCalledWith('192.0.2.1');
  });

  it('counts a refusal toward the address when the verification of this second is taken', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12 });
    throttle.claimLockedVerification.mockResolvedValue(false);
    await expect(attempt('guess')).rejects.toMatchObject({ code: 'too_many_requests' });
    expect(throttle.countRefusal).toHaveBeenCalledTimes(1);
    expect(throttle.recordFailure).not.toHaveBeenCalled();
  });

  it('marks its 429 and 503 as refusals that protect the server, naming the client', async () => {
    const gate = new WorkGate(1, 0);
    const { throttle, attempt } = setup(record('hash-of:s3cret'), {}, gate);
    let release!: () => void;
    const busy = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(attempt('guess')).rejects.toMatchObject({ status: 503, refusal: { clientId: 'reader', reason: 'slow hashes busy' } });
    release();
    await busy;
    throttle.standing.mockResolvedValue({ address: 5, failing: false });
    await expect(attempt('guess')).rejects.toMatchObject({ status: 429, refusal: { clientId: 'reader', reason: 'address over its limit' } });
  });

  it('does not waste the verification of a locked client on a request the slow-hash bound refuses', async () => {
    const gate = new WorkGate(1, 0);
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12 }, gate);
    let release!: () => void;
    const busy = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(attempt('s3cret')).rejects.toMatchObject({ status: 503 });
    expect(throttle.claimLockedVerification).not.toHaveBeenCalled();
    release();
    await busy;
  });

  it('keeps the queue for clean addresses: an address failing for the client is 429, counted, when no slow hash is free', async () => {
    const gate = new WorkGate(1, 4);
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { failing: true }, gate);
    let release!: () => void;
    const busy = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(attempt('guess')).rejects.toMatchObject({ status: 429, refusal: { reason: 'address failing for this client' } });
    expect(throttle.countRefusal).toHaveBeenCalledWith('192.0.2.1');
    expect(throttle.clearFailing).not.toHaveBeenCalled();
    // A clean address waits in the queue and is verified.
    throttle.standing.mockResolvedValue({ failing: false });
    const clean = attempt('s3cret');
    release();
    await busy;
    await expect(clean).resolves.toMatchObject({ clientId: 'reader' });
  });

  it("does not leave the address that claimed a locked client's verification failing when the slow-hash bound refuses it", async () => {
    const gate = new WorkGate(1, 0);
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12 }, gate);
    let release!: () => void;
    const busy = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    // The gate fills between the claim and the hash: refuseIfFull passes, then run() is refused.
    gate.refuseIfFull = () => undefined;
    await expect(attempt('s3cret')).rejects.toMatchObject({ status: 503 });
    expect(throttle.clearFailing).toHaveBeenCalledWith('reader', '192.0.2.1');
    release();
    await busy;
  });

  it('makes the address clean again for the client when the right secret comes from it', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { failing: true });
    await expect(attempt('s3cret')).resolves.toMatchObject({ clientId: 'reader' });
    expect(throttle.clearFailing).toHaveBeenCalledWith('reader', '192.0.2.1');
  });

  it("answers 429 without running the slow hash when the client is over its limit and this second's verification is taken", async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12 });
    throttle.claimLockedVerification.mockResolvedValue(false);
    await expect(attempt('s3cret')).rejects.toMatchObject({ code: 'too_many_requests', headers: { 'Retry-After': '12' } });
    expect(verifyClientSecret).not.toHaveBeenCalled();
  });

  it('verifies the one attempt per second of a client over its limit: the right secret passes, a wrong one is 429', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12 });
    await expect(attempt('guess')).rejects.toMatchObject({ code: 'too_many_requests', status: 429 });
    expect(throttle.recordFailure).toHaveBeenCalledTimes(1);
    await expect(attempt('s3cret')).resolves.toMatchObject({ clientId: 'reader' });
    expect(throttle.claimLockedVerification).toHaveBeenCalledTimes(2);
    expect(verifyClientSecret).toHaveBeenCalledTimes(2);
  });

  it('marks the address that claims the verification of a locked client as failing until its secret proves right', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'), { client: 12 });
    await expect(attempt('s3cret')).resolves.toMatchObject({ clientId: 'reader' });
    expect(throttle.claimLockedVerification).toHaveBeenCalledWith('reader', '192.0.2.1', false);
    expect(throttle.clearFailing).toHaveBeenCalledWith('reader', '192.0.2.1');
  });

  it('lets a recently verified secret through a lock-out', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'));
    await attempt('s3cret');
    throttle.standing.mockResolvedValue({ client: 30, failing: false });
    throttle.claimLockedVerification.mockResolvedValue(false);
    await expect(attempt('s3cret')).resolves.toMatchObject({ clientId: 'reader' });
    await expect(attempt('guess')).rejects.toMatchObject({ code: 'too_many_requests' });
  });

  it('answers 503 with Retry-After when the slow hashes are all busy, yet lets a recently verified secret through', async () => {
    const gate = new WorkGate(1, 0);
    const { attempt } = setup(record('hash-of:s3cret'), {}, gate);
    await attempt('s3cret');
    let release!: () => void;
    const busy = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(attempt('guess')).rejects.toMatchObject({ code: 'temporarily_unavailable', status: 503, headers: { 'Retry-After': '1' } });
    await expect(attempt('s3cret')).resolves.toMatchObject({ clientId: 'reader' });
    release();
    await busy;
  });

  it('refuses credentials holding a NUL without looking the client up or hashing', async () => {
    const { directory, attempt } = setup(record('hash-of:s3cret'));
    await expect(attempt('s3cret\u0000')).rejects.toMatchObject({ code: 'invalid_client', status: 401 });
    expect(directory.find).not.toHaveBeenCalled();
    expect(verifyClientSecret).not.toHaveBeenCalled();
  });

  it('records a failure and answers invalid_client for a wrong secret', async () => {
    const { throttle, attempt } = setup(record('hash-of:s3cret'));
    await expect(attempt('guess')).rejects.toMatchObject({ code: 'invalid_client', status: 401 });
    expect(throttle.recordFailure).toHaveBeenCalledWith('reader', '192.0.2.1');
  });

  it('stops accepting a cached secret once the stored hash changes (rotation)', async () => {
    const { directory, attempt } = setup(record('hash-of:old'));
    await attempt('old');
    directory.current = record('hash-of:new');
    await expect(attempt('old')).rejects.toMatchObject({ code: 'invalid_client' });
    await expect(attempt('new')).resolves.toBeDefined();
  });

  it('hashes against a decoy for an unknown client, and refuses it', async () => {
    const { throttle, attempt } = setup(null);
    await expect(attempt('anything')).rejects.toMatchObject({ code: 'invalid_client' });
    expect(verifyClientSecret).toHaveBeenCalledWith('anything', 'decoy-hash');
    expect(throttle.recordFailure).toHaveBeenCalled();
  });

  it('refuses the right secret sent with the method the client is not registered for', async () => {
    const { attempt } = setup(record('hash-of:s3cret'));
    await attempt('s3cret');
    await expect(attempt('s3cret', 'client_secret_post')).rejects.toMatchObject({ code: 'invalid_client' });
  });

  it('challenges with WWW-Authenticate only when Basic was tried', async () => {
    const { attempt } = setup(record('hash-of:s3cret'));
    await expect(attempt('guess')).rejects.toMatchObject({ headers: { 'WWW-Authenticate': expect.stringMatching(/^Basic /) as unknown } });
    await expect(attempt('guess', 'client_secret_post')).rejects.toMatchObject({ headers: {} });
  });
});
