import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { stopPostmaster } from './embedded-postgres.js';

/** A stand-in postmaster: a Node process that handles the given signals as told, and says when it is listening. */
async function fakePostmaster(handlers: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `${handlers}; setInterval(() => {}, 1000); console.log('ready');`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout, 'data');
  return child;
}

const quick = { quit: 200, kill: 400 };

describe('stopPostmaster', () => {
  it('stops a postmaster with a fast shutdown (SIGINT) when it obeys', async () => {
    const child = await fakePostmaster(`process.on('SIGINT', () => process.exit(2))`);
    await stopPostmaster(child, quick);
    expect(child.exitCode).toBe(2);
  });

  it('sends an immediate shutdown (SIGQUIT) to a postmaster that ignores the fast one', async () => {
    const child = await fakePostmaster(`process.on('SIGINT', () => {}); process.on('SIGQUIT', () => process.exit(3))`);
    await stopPostmaster(child, quick);
    expect(child.exitCode).toBe(3);
  });

  it('kills a postmaster that ignores both shutdowns', async () => {
    const child = await fakePostmaster(`process.on('SIGINT', () => {}); process.on('SIGQUIT', () => {})`);
    await stopPostmaster(child, quick);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('resolves at once for a postmaster that has already exited', async () => {
    const child = await fakePostmaster('');
    child.kill('SIGKILL');
    await once(child, 'exit');
    await expect(stopPostmaster(child, quick)).resolves.toBeUndefined();
  });
});
