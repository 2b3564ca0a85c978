import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cleanEnvironment, eventually, finished, lowFreePorts, type Finished } from '../support/processes.js';

/**
 * A newcomer's first commands on a fresh clone (README "The two commands"): in a private (mode
 * 700) temporary folder, as this machine's user, `npm install` (from the npm cache when it can),
 * `npm start` until the token endpoint answers, a client and a token, SIGTERM, and then nothing
 * tracked has changed and nothing untracked is offered to git. `npm test` is not run here (it
 * would run this test again); `.ci/run` checks `git status` after both test scripts.
 */
const ROOT = resolve(import.meta.dirname, '../..');

function git(args: string[], cwd: string): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

function npm(args: string[], cwd: string, environment: Record<string, string> = {}): ChildProcess {
  // Its own process group, so that whatever npm started can be ended with it if the test fails.
  return spawn('npm', args, { cwd, detached: true, env: cleanEnvironment({ ...environment, npm_config_update_notifier: 'false' }) });
}

describe('a fresh clone: npm install, npm start, a token, SIGTERM', () => {
  let folder: string;
  let clone: string;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'authorization-server-clone-'));
    clone = join(folder, 'checkout');
    git(['clone', '--quiet', ROOT, clone], ROOT);
  });

  afterAll(async () => {
    if (server?.pid && server.exitCode === null && server.signalCode === null) {
      const exit = finished(server);
      process.kill(-server.pid, 'SIGTERM');
      await exit;
    }
    await rm(folder, { recursive: true, force: true });
  }, 60_000);

  it('is cloned into a private folder (mode 700), as a newcomer would with mktemp -d', async () => {
    expect(((await stat(folder)).mode & 0o777).toString(8)).toBe('700');
  });

  it('installs, serves a token and stops on SIGTERM, leaving git status empty', async () => {
    const install = await finished(npm(['install', '--prefer-offline', '--no-audit', '--no-fund'], clone));
    expect({ code: install.code, stderr: install.code === 0 ? '' : install.stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
    expect(git(['status', '--porcelain', '--untracked-files=all'], clone)).toBe('');

    const [port, adminPort] = await lowFreePorts();
    server = npm(['start'], clone, { PORT: String(port), ADMIN_PORT: String(adminPort) });
    const exit: Promise<Finished> = finished(server);
    const tokenUrl = `http://127.0.0.1:${port}/oauth2/token`;
    // The token endpoint answers (a 4xx for an empty request) once the build is done and the server listens.
    await eventually(async () => ((await fetch(tokenUrl, { method: 'POST' })).status < 500 ? true : undefined), 480_000, 500);

    const adminToken = (await readFile(join(clone, '.data', 'admin-token'), 'utf8')).trim();
    const created = await fetch(`http://127.0.0.1:${adminPort}/admin`, {
      method: 'PATCH',
      headers: { Authorization: adminToken, 'Content-Type': 'application/vnd.api+json; ext=jsonpatch' },
      body: JSON.stringify([
        {
          op: 'add',
          path: '/uma-client',
          value: { type: 'uma-client', attributes: { clientId: 'my-first-client', clientName: 'My first client', allowedScopes: 'read' } },
        },
      ]),
    });
    expect(created.status).toBe(200);
    const secret = ((await created.json()) as { meta: { clientSecret: string } }[])[0].meta.clientSecret;
    const token = await fetch(tokenUrl, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`my-first-client:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: 'Bearer', scope: 'read' });

    server.kill('SIGTERM');
    const stopped = await exit;
    expect({ code: stopped.code, stderr: stopped.code === 0 ? '' : stopped.stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
    expect(git(['status', '--porcelain', '--untracked-files=all'], clone)).toBe('');
  }, 900_000);
});
