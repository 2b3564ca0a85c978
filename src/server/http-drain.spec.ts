import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { HttpDrain } from './http-drain.js';

type Connection = { socket: Socket; received: () => string; closed: Promise<void> };

async function open(server: Server): Promise<Connection> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('HttpDrain', () => {
  let server: Server;
  let drain: HttpDrain;
  const held: ServerResponse[] = [];

  beforeEach(async () => {
    // /hold answers only when the test says so; everything else at once.
    server = createServer((request, response) => {
      if (request.url === '/hold') held.push(response);
      else response.end('ok');
    });
    drain = new HttpDrain();
    drain.track(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  });

  afterEach(() => {
    held.splice(0);
    server.closeAllConnections();
  });

  it('lets a request in flight finish, answered with Connection: close, before the drain resolves', async () => {
    const connection = await open(server);
    connection.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => held.length === 1);
    let drained = false;
    const draining = drain.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(drained).toBe(false);
    held[0].end('late');
    await draining;
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(connection.received()).toMatch(/\r\nConnection: close\r\n/i);
    expect(connection.received()).toMatch(/late$/);
  });

  it('answers a request arriving on an idle keep-alive connection while another is still in flight', async () => {
    const idle = await open(server);
    idle.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => idle.received().endsWith('ok'));
    const busy = await open(server);
    busy.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => held.length === 1);

    const draining = drain.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
    idle.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await idle.closed;
    const responses = idle.received().split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    const [first, second] = responses;
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive/i);
    expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\nok$/i);
    held[0].end();
    await draining;
  });

  it('answers every pipelined request of a connection, closing it only after the last', async () => {
    const connection = await open(server);
    connection.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(3));
    await until(() => held.length === 3);
    const draining = drain.drain();
    // The first request read during the drain, behind the others on the same connection.
    connection.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => drain.requestsInFlight === 4);
    for (const response of held) response.end('late');
    await connection.closed;
    await draining;
    const responses = connection.received().split(/(?=HTTP\/1\.1 )/);
    expect(responses.map((response) => response.slice(response.indexOf('\r\n\r\n') + 4))).toEqual(['late', 'late', 'late', 'ok']);
    expect(responses.map((response) => /\r\nConnection: close\r\n/i.test(response))).toEqual([false, false, false, true]);
  });

  it('closes idle keep-alive connections once no request is in flight, and stops accepting', async () => {
    const idle = await open(server);
    idle.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => idle.received().endsWith('ok'));
    await drain.drain();
    await idle.closed;
    expect(server.listening).toBe(false);
  });

  it('closes every connection when asked, answered or not', async () => {
    const connection = await open(server);
    connection.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => held.length === 1);
    const draining = drain.drain();
    drain.closeAllConnections();
    await connection.closed;
    await draining;
    expect(connection.received()).toBe('');
  });
});
