import { SECRET_VARIABLES } from '../config/variables.js';

/**
 * With WORKERS > 1, what a worker needs from the primary that must not sit in its environment
 * (`/proc/<pid>/environ` can be read by the same user, and by anything that inspects the
 * process): the database URL with its password, the admin token, the key-encryption secret and
 * any other secret variable. The primary takes them out of its own `process.env` before it forks
 * (a worker inherits that environment) and hands them over the cluster's IPC channel when the
 * worker asks.
 */

/** A worker's request for its settings, once it listens for the answer. */
export const WORKER_SETTINGS_REQUEST = 'authorization-server:settings-request';
/** The primary's answer. */
export const WORKER_SETTINGS = 'authorization-server:settings';

export type WorkerSettings = {
  /** The secret variables taken out of the environment, as they were. */
  environment: Record<string, string>;
  /** Resolved by the primary: the embedded database's URL, or DATABASE_URL. */
  databaseUrl: string;
  /** Resolved by the primary: ADMIN_TOKEN, ADMIN_TOKEN_FILE's content, or the generated token. */
  adminToken: string;
};

/**
 * Names of variables whose values are secrets: the project's own, as src/config/variables.ts
 * declares them, and any other variable named like a secret (PGPASSWORD, AWS_SECRET_ACCESS_KEY,
 * a platform's *_TOKEN, ...).
 */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PASSPHRASE|CREDENTIAL|PRIVATE|_KEY$|API_?KEY/i;

export function isSecretVariable(name: string): boolean {
  return (SECRET_VARIABLES as readonly string[]).includes(name) || SECRET_NAME.test(name);
}

/** Removes the secret variables from `environment` and returns them. */
export function withdrawSecrets(environment: NodeJS.ProcessEnv): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of Object.keys(environment)) {
    const value = environment[name];
    if (!isSecretVariable(name)) continue;
    if (value !== undefined) secrets[name] = value;
    delete environment[name];
  }
  return secrets;
}

type Channel = Pick<NodeJS.Process, 'on' | 'off'> & { send?: (message: unknown) => boolean };

/** In a worker: asks the primary for the settings and waits for them (a worker without them cannot start). */
export function receiveWorkerSettings(channel: Channel = process, timeoutMs = 30_000): Promise<WorkerSettings> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string; settings?: WorkerSettings }) => {
      if (message?.type !== WORKER_SETTINGS || !message.settings) return;
      finish();
      resolve(message.settings);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`the primary process sent no settings within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      channel.off('message', onMessage);
    };
    channel.on('message', onMessage);
    if (!channel.send) {
      finish();
      reject(new Error('a worker needs the IPC channel of its primary process'));
      return;
    }
    channel.send({ type: WORKER_SETTINGS_REQUEST });
  });
}
