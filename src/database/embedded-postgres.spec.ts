import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { stopPostmaster, stopPostmasterProcess } from './embedded-postgres.js';

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

describe('stopPostmasterProcess (a postmaster taken over, known by its pid only)', () => {
  it('stops it with a fast shutdown (SIGINT) when it obeys', async () => {
    const child = await fakePostmaster(`process.on('SIGINT', () => process.exit(2))`);
    const exited = once(child, 'exit');
    await stopPostmasterProcess(child.pid!, quick);
    expect((await exited)[0]).toBe(2);
  });

  it('escalates to SIGQUIT, then SIGKILL, for one that ignores the fast shutdown', async () => {
    const child = await fakePostmaster(`process.on('SIGINT', () => {}); process.on('SIGQUIT', () => {})`);
    const exited = once(child, 'exit');
    await stopPostmasterProcess(child.pid!, quick);
    expect((await exited)[1]).toBe('SIGKILL');
  });
});
