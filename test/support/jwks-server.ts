import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './test-app.js';

/** A client's key server on loopback: each path answers as its handler says; requests are counted and kept. */
export class JwksServer {
  readonly hits = new Map<string, number>();
  readonly requests: IncomingMessage[] = [];
  readonly routes = new Map<string, (response: ServerResponse) => void>();
  private readonly server: Server = createServer((incoming, response) => {
    const path = incoming.url ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    this.requests.push(incoming);
    const route = this.routes.get(path);
    if (route) route(response);
    else response.writeHead(404).end();
  });
  private path = 0;

  async start(): Promise<void> {
    const port = await freePort();
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  nextPath(): string {
    this.path += 1;
    return `/jwks-${this.path}`;
  }

  /** Serves `body` at `path` with status 200 (and these headers); returns its URL. */
  serve(path: string, body: unknown, headers: Record<string, string> = {}): string {
    this.routes.set(path, (response) =>
      response.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body)),
    );
    return this.url(path);
  }

  fetches(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
