import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { basic } from '../support/factories.js';
import { eventually, finished, runCli, startServerProcess, type Finished } from '../support/processes.js';
import { slowPost } from '../support/raw-http.js';
import { freePorts } from '../support/test-app.js';
import type { CliClientJson } from '../support/bodies.js';

// Servers on the embedded PostgreSQL of one DATA_DIR, each leading a process group of its own as
// in a terminal, so that a signal can go to the whole group (a terminal's Ctrl-C or hang-up).

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const TOKEN_BODY = 'grant_type=client_credentials&scope=read';

type Running = { child: ChildProcess; exit: Promise<Finished>; log: () => string; port: number; adminPort: number };

let dataDir: string;
const started = new Set<ChildProcess>();

/** The folder of the cluster: DATA_DIR/postgres, or where DATA_DIR/postgres-location says. */
function clusterDir(): string {
  const record = join(dataDir, 'postgres-location');
  return existsSync(record) ? readFileSync(record, 'utf8').trim() : join(dataDir, 'postgres');
}

/** The running postmaster's pid, from its postmaster.pid. */
function postmasterPid(): number | undefined {
  const file = join(clusterDir(), 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

/** Alive and not a zombie (an orphaned postmaster is reaped by whoever adopted it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

/** The worker processes of a primary: its children running main.js. */
function workersOf(primary: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return (
          new RegExp(`^PPid:\\s+${primary}$`, 'm').test(readFileSync(`/proc/${pid}/status`, 'utf8')) &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('main.js')
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function start(environment: Record<string, string> = {}): Promise<Running> {
  const [port, adminPort] = await freePorts(2);
  const child = startServerProcess({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), ...environment }, { detached: true });
  started.add(child);
  let log = '';
  child.stdout?.on('data', (chunk) => (log += chunk));
  child.stderr?.on('data', (chunk) => (log += chunk));
  const exit = finished(child);
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the server ended at start: ${log}`);
      return (await request(`http://127.0.0.1:${port}`).get('/health/ready')).status === 200 ? true : undefined;
    },
    60_000,
    100,
  );
  return { child, exit, log: () => log, port, adminPort };
}

async function createClient(): Promise<{ clientId: string; secret: string }> {
  const clientId = `signals-${randomBytes(6).toString('hex')}`;
  const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Signals', '--scopes', 'read', '--json'], { DATA_DIR: dataDir });
  expect(created.code).toBe(0);
  return { clientId, secret: (JSON.parse(created.stdout) as CliClientJson).client_secret };
}

const adminToken = () => readFile(join(dataDir, 'admin-token'), 'utf8').then((text) => text.trim());

/** Messages of the JSON log lines, in order. */
function messages(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

/**
 * Sends `signal` (to the process group, or to the server alone) while token requests are still
 * sending their bodies and new admin and token requests arrive during the drain: each gets its
 * real answer, the database is up until the drain has ended, and the server exits 0 having
 * stopped the database.
 */
async function expectDrainOn(server: Running, signal: NodeJS.Signals, target: 'group' | 'process'): Promise<void> {
  const { clientId, secret } = await createClient();
  const token = adminToken();
  const authorization = basic(clientId, secret);
  const slow = Array.from({ length: 10 }, () => slowPost(server.port, '/oauth2/token', { ...FORM, Authorization: authorization }, TOKEN_BODY));
  const postmaster = postmasterPid()!;
  await pause(300);

  process.kill(target === 'group' ? -server.child.pid! : server.child.pid!, signal);
  await pause(300);
  const early = await Promise.all([
    request(`http://127.0.0.1:${server.adminPort}`)
      .get('/admin/purpose')
      .set('Authorization', await token)
      .set('Connection', 'close'),
    request(`http://127.0.0.1:${server.port}`).post('/oauth2/token').set('Authorization', authorization).type('form').send(TOKEN_BODY),
  ]);
  for (const pending of slow) pending.finish();
  const answers = await Promise.all(slow.map((pending) => pending.response));
  // The drain lasts at least the 2 s readiness grace: the database must still be up.
  const databaseUpDuringDrain = alive(postmaster);

  expect(early.map((answer) => answer.status)).toEqual([200, 200]);
  expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
  expect(databaseUpDuringDrain).toBe(true);
  const result = await server.exit;
  expect(result.code).toBe(0);
  const log = server.log();
  expect(log).toContain(`${signal} received: not ready any more`);
  expect(log).not.toContain('notifications lost');
  expect(log).not.toContain('ECONNREFUSED');
  expect(log).not.toContain('cannot be reached');
  expect(log).not.toMatch(/"level":50/);
  // The server owned the database and stopped it after itself.
  expect(alive(postmaster)).toBe(false);
}

/** What became of the requests sent before the signal: a status, or the error that ended them. */
type Outcomes = Array<number | string>;

/**
 * A keep-alive connection (Node's Agent) sending token requests one after the other until
 * `signalled()`; the outcome of each request sent before then.
 */
async function keepAliveLoop(port: number, agent: Agent, authorization: string, signalled: () => boolean, outcomes: Outcomes): Promise<void> {
  while (!signalled()) {
    outcomes.push(
      await new Promise<number | string>((resolve) => {
        const sent = httpRequest(
          { host: '127.0.0.1', port, path: '/oauth2/token', method: 'POST', agent, headers: { ...FORM, Authorization: authorization } },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        sent.end(TOKEN_BODY);
      }),
    );
  }
}

/**
 * A connection pipelining `depth` token requests at a time (as autocannon's `-p` does), written at
 * once, the next batch once the last is answered, until `signalled()`; the outcome of each request
 * sent before then ('lost' when the connection closed without its answer).
 */
function pipelinedLoop(port: number, authorization: string, depth: number, signalled: () => boolean, outcomes: Outcomes): Promise<void> {
  const head = `POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${TOKEN_BODY.length}\r\n\r\n`;
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let outstanding = 0;
    const send = () => {
      if (signalled()) return socket.end();
      outstanding = depth;
      socket.write((head + TOKEN_BODY).repeat(depth));
    };
    socket.setEncoding('latin1');
    socket.on('connect', send);
    socket.on('data', (chunk: string) => {
      received += chunk;
      for (;;) {
        const headEnd = received.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)/i.exec(received.slice(0, headEnd));
        if (headEnd < 0 || !length || received.length < headEnd + 4 + Number(length[1])) break;
        outcomes.push(Number(received.slice(9, 12)));
        received = received.slice(headEnd + 4 + Number(length[1]));
        outstanding -= 1;
      }
      if (outstanding === 0) send();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (; outstanding > 0; outstanding -= 1) outcomes.push('lost');
      done();
    });
  });
}

/**
 * Ctrl-C as a newcomer gives it: keep-alive connections, some pipelining, sending token requests
 * as fast as they are answered; a second in, SIGINT to the whole process group. Every request
 * sent before the signal is answered 200 (none reset, none dropped) and the server exits 0.
 */
async function expectLoadDrainedOnCtrlC(server: Running): Promise<void> {
  const { clientId, secret } = await createClient();
  const authorization = basic(clientId, secret);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  let signalled = false;
  const outcomes: Outcomes = [];
  const loops = [
    ...Array.from({ length: 16 }, () => keepAliveLoop(server.port, agent, authorization, () => signalled, outcomes)),
    ...Array.from({ length: 16 }, () => pipelinedLoop(server.port, authorization, 8, () => signalled, outcomes)),
  ];
  await pause(1_000);
  signalled = true;
  process.kill(-server.child.pid!, 'SIGINT');
  await Promise.all(loops);
  agent.destroy();

  expect(outcomes.length).toBeGreaterThan(16 + 16 * 8);
  expect(outcomes.filter((outcome) => outcome !== 200)).toEqual([]);
  const result = await server.exit;
  expect(result.code).toBe(0);
  expect(server.log()).not.toContain('requests still in flight');
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-signals-'));
  await chmod(dataDir, 0o755);
});

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  const postmaster = postmasterPid();
  if (postmaster !== undefined && alive(postmaster)) {
    process.kill(postmaster, 'SIGQUIT');
    await eventually(() => (alive(postmaster) ? undefined : true), 15_000, 100).catch(() => process.kill(postmaster, 'SIGKILL'));
  }
  const record = join(dataDir, 'postgres-location');
  if (existsSync(record)) await rm(dirname((await readFile(record, 'utf8')).trim()), { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('the start log', () => {
  it('ends with the public URL, the admin URL, the console URL and where the admin token is', async () => {
    const server = await start();
    await eventually(() => (messages(server.log()).some((line) => line.startsWith('admin token:')) ? true : undefined));
    const lines = messages(server.log());
    expect(lines.slice(-4)).toEqual([
      `public URL: http://localhost:${server.port} (token endpoint /oauth2/token; issuer http://localhost:${server.port})`,
      expect.stringMatching(new RegExp(`^admin URL: http://localhost:${server.adminPort}/admin `)),
      `console URL: http://localhost:${server.adminPort}/console`,
      `admin token: kept in ${join(dataDir, 'admin-token')}`,
    ]);
    server.child.kill('SIGTERM');
    expect((await server.exit).code).toBe(0);
  }, 120_000);
});

describe('signals to a server on the embedded PostgreSQL', () => {
  it('drains on SIGINT to the whole process group (Ctrl-C) and stops the database only after the drain', async () => {
    await expectDrainOn(await start(), 'SIGINT', 'group');
  }, 120_000);

  it('drains on SIGHUP to the whole process group (the terminal closed), without reloading', async () => {
    await expectDrainOn(await start(), 'SIGHUP', 'group');
  }, 120_000);

  it('drains every worker on SIGINT to the whole process group with WORKERS=2', async () => {
    const server = await start({ WORKERS: '2' });
    await eventually(() => (workersOf(server.child.pid!).length === 2 ? true : undefined), 30_000, 100);
    await expectDrainOn(server, 'SIGINT', 'group');
  }, 120_000);

  it('drains every worker on SIGTERM to the primary with WORKERS=2', async () => {
    const server = await start({ WORKERS: '2' });
    await eventually(() => (workersOf(server.child.pid!).length === 2 ? true : undefined), 30_000, 100);
    await expectDrainOn(server, 'SIGTERM', 'process');
    expect(workersOf(server.child.pid!)).toEqual([]);
  }, 120_000);
});

describe('Ctrl-C under keep-alive load', () => {
  it('answers every request sent before SIGINT to the process group, pipelined ones too, and exits 0', async () => {
    await expectLoadDrainedOnCtrlC(await start());
  }, 120_000);

  it('answers every request sent before SIGINT to the process group with WORKERS=2, and exits 0', async () => {
    const server = await start({ WORKERS: '2' });
    await eventually(() => (workersOf(server.child.pid!).length === 2 ? true : undefined), 30_000, 100);
    await expectLoadDrainedOnCtrlC(server);
  }, 120_000);
});

describe('secrets and the workers of WORKERS=2', () => {
  it('keeps the database password, the admin token and other secret variables out of every worker environment', async () => {
    const token = `admin-${randomBytes(12).toString('hex')}`;
    const other = `other-${randomBytes(12).toString('hex')}`;
    const server = await start({ WORKERS: '2', ADMIN_TOKEN: token, DEPLOYMENT_API_TOKEN: other });
    const workers = await eventually(() => {
      const found = workersOf(server.child.pid!);
      return found.length === 2 ? found : undefined;
    }, 30_000);
    const password = (await readFile(join(dataDir, 'postgres-password'), 'utf8')).trim();
    // The primary was given the token in its environment: the check below can see one.
    expect(readFileSync(`/proc/${server.child.pid}/environ`, 'utf8')).toContain(token);
    for (const worker of workers) {
      const environment = readFileSync(`/proc/${worker}/environ`, 'utf8');
      expect(environment).not.toContain(token);
      expect(environment).not.toContain(other);
      expect(environment).not.toContain(password);
      expect(environment).not.toContain(encodeURIComponent(password));
    }
    // The workers got them over the IPC channel: the admin interface takes the token.
    const admin = await request(`http://127.0.0.1:${server.adminPort}`).get('/admin/purpose').set('Authorization', token).set('Connection', 'close');
    expect(admin.status).toBe(200);
    server.child.kill('SIGTERM');
    expect((await server.exit).code).toBe(0);
  }, 120_000);
});

describe('the embedded PostgreSQL across server restarts', () => {
  it('is taken over by the next server after a server died by SIGKILL, and stopped at that server’s graceful stop', async () => {
    const killed = await start();
    const postmaster = postmasterPid()!;
    process.kill(-killed.child.pid!, 'SIGKILL');
    await killed.exit;
    // Its own process group: the kill did not reach it.
    expect(alive(postmaster)).toBe(true);

    const next = await start();
    expect(postmasterPid()).toBe(postmaster);
    expect(next.log()).toContain(`taking over the embedded PostgreSQL left running by a server that ended without stopping it (pid ${postmaster})`);
    next.child.kill('SIGTERM');
    expect((await next.exit).code).toBe(0);
    await eventually(() => (alive(postmaster) ? undefined : true), 5_000, 50);
  }, 120_000);

  it('keeps its port when the server that started it restarts, so a second server on the same DATA_DIR is ready again without a restart', async () => {
    const first = await start();
    const second = await start();
    expect(second.log()).not.toContain('taking over');
    const { clientId, secret } = await createClient();
    const token = (server: Running) =>
      request(`http://127.0.0.1:${server.port}`).post('/oauth2/token').set('Authorization', basic(clientId, secret)).type('form').send(TOKEN_BODY);
    expect((await token(second)).status).toBe(200);
    const port = readFileSync(join(dataDir, 'postgres-port'), 'utf8').trim();

    // The first server started the cluster: it stops it with itself, and starts it again.
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);
    expect(postmasterPid()).toBeUndefined();
    const restarted = await start();
    expect(readFileSync(join(dataDir, 'postgres-port'), 'utf8').trim()).toBe(port);

    await eventually(async () => ((await request(`http://127.0.0.1:${second.port}`).get('/health/ready')).status === 200 ? true : undefined), 10_000, 100);
    expect((await token(second)).status).toBe(200);

    // The second server attached: its stop leaves the cluster to the first.
    const postmaster = postmasterPid()!;
    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
    expect(alive(postmaster)).toBe(true);
    restarted.child.kill('SIGTERM');
    expect((await restarted.exit).code).toBe(0);
    expect(alive(postmaster)).toBe(false);
  }, 180_000);
});
