import { startTestApp, testDatabaseUrl, type TestApp } from './test-app.js';
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of PostgreSQL that a test can cut and restore. */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((incoming) => {
      const outgoing = connect(this.targetPort, this.targetHost);
      for (const socket of [incoming, outgoing]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      incoming.pipe(outgoing).pipe(incoming);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : port;
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    this.server = undefined;
  }
}

/** The application on the test database reached through a proxy the test can cut and restore. */
export async function startBehindProxy(): Promise<{ server: TestApp; proxy: TcpProxy; restore(): Promise<void>; close(): Promise<void> }> {
  const target = new URL(testDatabaseUrl());
  const proxy = new TcpProxy(target.hostname, Number(target.port));
  const port = await proxy.start();
  target.port = String(port);
  const server = await startTestApp({ DATABASE_URL: target.toString() });
  return {
    server,
    proxy,
    restore: async () => void (await proxy.start(port)),
    close: async () => {
      await server.close().catch(() => undefined);
      await proxy.cut();
    },
  };
}
