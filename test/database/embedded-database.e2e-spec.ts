import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { basic } from '../support/factories.js';
import { eventually, finished, runCli, startServerProcess } from '../support/processes.js';
import { freePorts } from '../support/test-app.js';
import type { CliClientJson } from '../support/bodies.js';

const asRoot = process.getuid?.() === 0;

/** The error code of a TCP connection to host:port, or undefined when it connects. */
function connectionError(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}

/** Command lines of the processes that mention `text` (a postmaster names its data folder). */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (commandLine.includes(text)) found.push(commandLine);
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

function occupy(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}

describe('the embedded PostgreSQL in a private folder (mode 700)', () => {
  let privateFolder: string;
  let dataDir: string;

  beforeAll(async () => {
    privateFolder = await mkdtemp(join(tmpdir(), 'authorization-server-private-'));
    await chmod(privateFolder, 0o700);
    dataDir = join(privateFolder, 'checkout', '.data');
  });

  afterAll(async () => {
    const record = join(dataDir, 'postgres-location');
    if (existsSync(record)) await rm(dirname((await readFile(record, 'utf8')).trim()), { recursive: true, force: true });
    await rm(privateFolder, { recursive: true, force: true });
  });

  it('starts, serves a token to a client made with the CLI, and after a restart the same client still works', async () => {
    const [port, adminPort] = await freePorts(2);
    const environment = { DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) };
    const url = `http://127.0.0.1:${port}`;
    const token = (clientId: string, secret: string) =>
      request(url).post('/oauth2/token').set('Authorization', basic(clientId, secret)).type('form').send({ grant_type: 'client_credentials', scope: 'read' });
    const run = async (work: () => Promise<void>) => {
      const child = startServerProcess(environment);
      const exit = finished(child);
      await eventually(async () => ((await request(url).get('/health/ready')).status === 200 ? true : undefined), 60_000, 200);
      await work();
      child.kill('SIGTERM');
      const result = await exit;
      expect(result.code).toBe(0);
      return result;
    };

    let secret = '';
    const first = await run(async () => {
      const created = await runCli(['client', 'create', '--client-id', 'private', '--name', 'Private', '--scopes', 'read', '--json'], environment);
      expect(created.code).toBe(0);
      secret = (JSON.parse(created.stdout) as CliClientJson).client_secret;
      expect((await token('private', secret)).status).toBe(200);
    });
    expect((await stat(join(dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
    // The user's folder is left as it was.
    expect((await stat(privateFolder)).mode & 0o777).toBe(0o700);
    if (asRoot) {
      const location = (await readFile(join(dataDir, 'postgres-location'), 'utf8')).trim();
      expect(location).toMatch(/^\/var\/lib\/authorization-server\/[0-9a-f]{16}\/postgres$/);
      expect(first.stdout).toContain(`data in ${location}`);
    }

    await run(async () => {
      expect((await token('private', secret)).status).toBe(200);
      // With the embedded database the admin listener binds 127.0.0.1 only (ADMIN_HOST's default).
      expect((await request(`http://127.0.0.1:${adminPort}`).get('/health/live')).status).toBe(200);
      expect(await connectionError('127.0.0.2', adminPort)).toBe('ECONNREFUSED');
    });
  }, 180_000);
});

describe('a failed start leaves nothing behind', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-failed-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('stops with one line naming ADMIN_TOKEN_FILE when it cannot be read, and starts no database', async () => {
    const [port, adminPort] = await freePorts(2);
    const result = await finished(
      startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), ADMIN_TOKEN_FILE: join(dataDir, 'missing') }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('ADMIN_TOKEN_FILE')]);
    expect(processesMentioning(dataDir)).toEqual([]);
  });

  it.each([['PORT'], ['ADMIN_PORT']])(
    'stops with one line naming %s when the port is taken, and closes the listener, the pool and the embedded database',
    async (variable) => {
      const [port, adminPort] = await freePorts(2);
      const taken = await occupy(variable === 'PORT' ? port : adminPort);
      try {
        const result = await finished(startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) }));
        expect(result.code).not.toBe(0);
        expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(`(${variable}) is already in use`)]);
        expect(processesMentioning(dataDir)).toEqual([]);
        // The public port was released too (ADMIN_PORT case: it had been listening).
        taken.close();
        const again = await occupy(port);
        again.close();
      } finally {
        taken.close();
      }
    },
    60_000,
  );
});
