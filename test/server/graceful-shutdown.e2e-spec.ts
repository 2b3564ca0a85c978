import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Agent, get as httpGet } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { basic } from '../support/factories.js';
import { eventually, finished, runCli, startServerProcess, type Finished } from '../support/processes.js';
import { RawConnection, slowPost } from '../support/raw-http.js';
import { freePorts, testDatabaseUrl } from '../support/test-app.js';
import type { TokenBody, CliClientJson } from '../support/bodies.js';

const ADMIN_TOKEN = `admin-${randomBytes(12).toString('hex')}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Running = { child: ChildProcess; exit: Promise<Finished>; port: number; adminPort: number };

async function startServer(): Promise<Running> {
  const [port, adminPort] = await freePorts(2);
  const child = startServerProcess({ DATABASE_URL: testDatabaseUrl(), ADMIN_TOKEN, PORT: String(port), ADMIN_PORT: String(adminPort) });
  const exit = finished(child);
  await eventually(async () => ((await request(`http://127.0.0.1:${port}`).get('/health/ready')).status === 200 ? true : undefined), 60_000, 100);
  return { child, exit, port: port, adminPort: adminPort };
}

async function createClient(method = 'client_secret_basic'): Promise<{ clientId: string; secret: string }> {
  const clientId = `drain-${randomBytes(6).toString('hex')}`;
  const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Drain', '--scopes', 'read', '--auth-method', method, '--json'], {
    DATABASE_URL: testDatabaseUrl(),
  });
  expect(created.code).toBe(0);
  return { clientId, secret: (JSON.parse(created.stdout) as CliClientJson).client_secret };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('shutdown on SIGTERM (server process)', () => {
  it('answers every token and admin request whose body is still arriving when SIGTERM comes, then exits 0', async () => {
    const server = await startServer();
    // Created after the server started: their secrets are verified for the first time by these requests.
    const { clientId, secret } = await createClient();
    const poster = await createClient('client_secret_post');
    const body = 'grant_type=client_credentials&scope=read';
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const tokenRequests = Array.from({ length: 40 }, (_, index) =>
      index % 2 === 0
        ? slowPost(server.port, '/oauth2/token', { ...form, Authorization: basic(clientId, secret) }, body)
        : slowPost(server.port, '/oauth2/token', form, `${body}&client_id=${poster.clientId}&client_secret=${encodeURIComponent(poster.secret)}`),
    );
    const adminRequests = Array.from({ length: 5 }, (_, index) =>
      slowPost(
        server.adminPort,
        '/admin',
        { Authorization: ADMIN_TOKEN, 'Content-Type': 'application/vnd.api+json; ext=jsonpatch' },
        JSON.stringify([{ op: 'add', path: '/purpose', value: { type: 'purpose', attributes: { name: `Drained ${clientId} ${index}` } } }]),
        'PATCH',
      ),
    );
    await pause(300);
    server.child.kill('SIGTERM');
    await pause(500);
    for (const pending of [...tokenRequests, ...adminRequests]) pending.finish();

    const tokens = await Promise.all(tokenRequests.map((pending) => pending.response));
    expect(tokens.map((response) => response.status)).toEqual(Array(40).fill(200));
    expect(tokens.every((response) => typeof (JSON.parse(response.body) as Partial<TokenBody>).access_token === 'string')).toBe(true);
    const admin = await Promise.all(adminRequests.map((pending) => pending.response));
    expect(admin.map((response) => response.status)).toEqual(Array(5).fill(200));
    const result = await server.exit;
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('unexpected failure');
  }, 120_000);

  it('reports not ready at once, answers requests arriving on existing keep-alive connections with Connection: close, and refuses new connections once the listeners stop accepting', async () => {
    const server = await startServer();
    const { clientId, secret } = await createClient();
    const probe = await RawConnection.open(server.port);
    expect((await probe.send('GET', '/health/ready')).status).toBe(200);
    const idle = await RawConnection.open(server.port);
    expect((await idle.send('GET', '/health/live')).status).toBe(200);
    // Keeps the drain going past the grace period.
    const slow = slowPost(
      server.port,
      '/oauth2/token',
      { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(clientId, secret) },
      'grant_type=client_credentials&scope=read',
    );
    await pause(200);

    server.child.kill('SIGTERM');
    await pause(200);
    const notReady = await probe.send('GET', '/health/ready');
    expect(notReady.status).toBe(503);
    expect((JSON.parse(notReady.body) as { error: Record<string, unknown> }).error.serving).toMatchObject({
      status: 'down',
      message: 'the server is shutting down',
    });
    expect(notReady.headers.connection).toBe('close');
    await probe.whenClosed();

    // Past the grace period the listeners accept no connection; the idle keep-alive one still works.
    await eventually(async () => ((await refused(server.port)) ? true : undefined), 5_000, 100);
    const late = await idle.send(
      'POST',
      '/oauth2/token',
      { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(clientId, secret) },
      'grant_type=client_credentials&scope=read',
    );
    expect(late.status).toBe(200);
    expect(late.headers.connection).toBe('close');
    await idle.whenClosed();

    slow.finish();
    expect((await slow.response).status).toBe(200);
    const result = await server.exit;
    expect(result.code).toBe(0);
  }, 120_000);
});

describe('Ctrl-C under keep-alive load (server process)', () => {
  it('answers every request in flight at SIGINT, none reset, then exits 0', async () => {
    const server = await startServer();
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const get = () =>
      new Promise<number | string>((resolve) => {
        const sent = httpGet({ host: '127.0.0.1', port: server.port, path: '/oauth2/jwks', agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    // 32 keep-alive connections, each sending its next request as soon as the last is answered,
    // until SIGINT; the requests still open then are the ones in flight.
    let signalled = false;
    const current: Promise<number | string>[] = [];
    const loops = Array.from({ length: 32 }, async (_, index) => {
      while (!signalled) await (current[index] = get());
    });
    await pause(1_000);
    signalled = true;
    const inFlightAtSignal = [...current];
    server.child.kill('SIGINT');
    await Promise.all(loops);
    const answers = await Promise.all(inFlightAtSignal);
    agent.destroy();
    expect(answers.filter((answer) => answer !== 200)).toEqual([]);
    const result = await server.exit;
    expect(result.code).toBe(0);
  }, 120_000);
});
