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
