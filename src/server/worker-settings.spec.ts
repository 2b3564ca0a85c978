import { EventEmitter } from 'node:events';
import { isSecretVariable, receiveWorkerSettings, withdrawSecrets, WORKER_SETTINGS, WORKER_SETTINGS_REQUEST, type WorkerSettings } from './worker-settings.js';

describe('withdrawSecrets', () => {
  it('takes the secret variables out of the environment and returns them as they were', () => {
    const environment: NodeJS.ProcessEnv = {
      DATABASE_URL: 'postgres://user:pw@db/x',
      ADMIN_TOKEN: 'admin',
      KEY_ENCRYPTION_SECRET: 'sealed',
      PGPASSWORD: 'pg',
      AWS_SECRET_ACCESS_KEY: 'aws',
      PORT: '3000',
      WORKERS: '2',
      PATH: '/usr/bin',
    };
    expect(withdrawSecrets(environment)).toEqual({
      DATABASE_URL: 'postgres://user:pw@db/x',
      ADMIN_TOKEN: 'admin',
      KEY_ENCRYPTION_SECRET: 'sealed',
      PGPASSWORD: 'pg',
      AWS_SECRET_ACCESS_KEY: 'aws',
    });
    expect(environment).toEqual({ PORT: '3000', WORKERS: '2', PATH: '/usr/bin' });
  });

  it.each(['PORT', 'ADMIN_PORT', 'DATA_DIR', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'LOG_LEVEL', 'ISSUER'])('leaves %s in the environment', (name) => {
    expect(isSecretVariable(name)).toBe(false);
  });
});

describe('receiveWorkerSettings', () => {
  const settings: WorkerSettings = { environment: { ADMIN_TOKEN: 'admin' }, databaseUrl: 'postgres://x', adminToken: 'admin' };

  /** A stand-in for the worker's IPC channel; `answer` is the primary's reply to a request. */
  function channel(answer: (send: (message: unknown) => void) => void) {
    const emitter = new EventEmitter();
    const sent: unknown[] = [];
    const fake = Object.assign(emitter, {
      send: (message: unknown) => {
        sent.push(message);
        answer((reply) => emitter.emit('message', reply));
        return true;
      },
    });
    return { fake: fake as unknown as Parameters<typeof receiveWorkerSettings>[0], sent, emitter };
  }

  it('asks the primary, ignores other messages, and resolves with the settings', async () => {
    const { fake, sent, emitter } = channel((reply) =>
      setImmediate(() => {
        reply({ type: 'something-else' });
        reply({ type: WORKER_SETTINGS, settings });
      }),
    );
    await expect(receiveWorkerSettings(fake, 1_000)).resolves.toEqual(settings);
    expect(sent).toEqual([{ type: WORKER_SETTINGS_REQUEST }]);
    expect(emitter.listenerCount('message')).toBe(0);
  });

  it('fails with a clear message when the primary does not answer', async () => {
    const { fake } = channel(() => undefined);
    await expect(receiveWorkerSettings(fake, 50)).rejects.toThrow('the primary process sent no settings');
  });
});
