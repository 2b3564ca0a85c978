import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * The HTTP half of a graceful shutdown, for both listeners. It knows every request in flight,
 * so that a shutdown can
 * - answer every request from then on with `Connection: close` (keep-alive clients reconnect,
 *   to another instance once the load balancer has seen /health/ready fail); on a connection
 *   whose client pipelines, only the last request read closes it, so that none read behind it is
 *   left unanswered;
 * - stop accepting connections while keeping idle keep-alive connections open, so that a request
 *   arriving on one during the drain is answered rather than reset (Node's own `server.close()`
 *   destroys idle connections at once);
 * - close the idle connections once no request is in flight, and every connection past the
 *   drain limit.
 */
/** How long no request may start before idle connections are closed (docs/operations/shutdown.md). */
export const SETTLE_MS = 250;

export class HttpDrain {
  private readonly servers: Server[] = [];
  private readonly inFlight = new Set<ServerResponse>();
  /** Each connection's unfinished responses, in the order of their requests (pipelining). */
  private readonly connections = new Map<Socket, ServerResponse[]>();
  /** Responses this drain gave `Connection: close`. */
  private readonly closing = new WeakSet<ServerResponse>();
  private draining = false;
  private quiet?: () => void;
  /** Requests seen so far: the drain waits for a spell in which none starts. */
  private started = 0;

  track(server: Server): void {
    this.servers.push(server);
    // First listener: it runs before the application can write the response head.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      this.inFlight.add(response);
      this.started += 1;
      const pending = this.pendingOn(request.socket);
      pending.push(response);
      if (this.draining) this.closeAfter(pending);
      response.once('close', () => {
        const index = pending.indexOf(response);
        if (index >= 0) pending.splice(index, 1);
        this.finished(response);
      });
    });
  }

  /** The connection's list of unfinished responses; when it closes, what is left on it will never be sent. */
  private pendingOn(socket: Socket): ServerResponse[] {
    let pending = this.connections.get(socket);
    if (!pending) {
      const created: ServerResponse[] = [];
      this.connections.set(socket, created);
      socket.once('close', () => {
        this.connections.delete(socket);
        for (const response of created.splice(0)) this.finished(response);
      });
      pending = created;
    }
    return pending;
  }

  /**
   * The last response of a connection closes it. Node sends a connection's responses in order and
   * ends the connection after one marked `close`: a pipelined request read behind it would never be
   * answered (and its response would stay in flight), so an earlier response loses the mark.
   */
  private closeAfter(pending: ServerResponse[]): void {
    for (const response of pending.slice(0, -1)) {
      if (this.closing.has(response) && !response.headersSent) {
        response.removeHeader('Connection');
        this.closing.delete(response);
      }
    }
    const last = pending.at(-1);
    if (last && !last.headersSent) {
      last.setHeader('Connection', 'close');
      this.closing.add(last);
    }
  }

  private finished(response: ServerResponse): void {
    if (!this.inFlight.delete(response)) return;
    if (this.draining && this.inFlight.size === 0) this.quiet?.();
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** From now on each connection closes after its last response not yet started (and after every later one). */
  closeConnectionsAfterResponses(): void {
    this.draining = true;
    for (const pending of this.connections.values()) this.closeAfter(pending);
  }

  /**
   * Stops accepting connections on every tracked server and resolves once each of them has no
   * connection left: every request answered, idle keep-alive connections closed.
   */
  async drain(): Promise<void> {
    this.closeConnectionsAfterResponses();
    const closed = this.servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          // net.Server's close: stop accepting, but leave idle keep-alive connections alone.
          NetServer.prototype.close.call(server, () => resolve());
        }),
    );
    for (;;) {
      if (this.inFlight.size > 0) await new Promise<void>((resolve) => (this.quiet = resolve));
      // Not at once: a connection accepted just before the listener closed, or a kept-alive one,
      // may hold a request whose bytes have arrived but not been read yet (the event loop is busy
      // under load); closing it now would reset that request. After a quiet spell in which no
      // request started, what is idle is really idle.
      const started = this.started;
      await delay(SETTLE_MS);
      if (this.inFlight.size > 0 || this.started !== started) continue;
      for (const server of this.servers) server.closeIdleConnections();
      // A connection still sending its request head is not idle: it becomes a request, is
      // answered with Connection: close, and ends; then the loop finds nothing more to wait for.
      const settled = await Promise.race([Promise.all(closed).then(() => true), delay(50).then(() => false)]);
      if (settled) return;
    }
  }

  /** Past the drain limit: every connection is closed, answered or not. */
  closeAllConnections(): void {
    for (const server of this.servers) server.closeAllConnections();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
