import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export type RawResponse = { status: number; headers: IncomingHttpHeaders; body: string };

/**
 * A token request whose body is still arriving: the head and a first piece of the body are sent
 * now, the rest when `finish` is called. The answer is awaited with `response`.
 */
export function slowPost(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: string,
  method = 'POST',
): {
  finish(): void;
  response: Promise<RawResponse>;
} {
  const split = Math.floor(body.length / 2);
  let request: ClientRequest;
  const response = new Promise<RawResponse>((resolve, reject) => {
    request = httpRequest(
      { host: '127.0.0.1', port, path, method, agent: false, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: text }));
        answer.on('error', reject);
      },
    );
    request.on('error', reject);
    request.write(body.slice(0, split));
  });
  return { finish: () => request.end(body.slice(split)), response };
}

/** One keep-alive connection on which requests are written by hand, one after the other. */
export class RawConnection {
  private buffer = '';
  private waiting?: () => void;
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new RawConnection(socket);
  }

  /** Sends one request and reads its response (which must carry Content-Length). */
  async send(method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<RawResponse> {
    const head = [
      `${method} ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: keep-alive',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    if (body) head.push(`Content-Length: ${Buffer.byteLength(body)}`);
    this.socket.write(head.join('\r\n') + '\r\n\r\n' + body);
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) throw new Error('connection closed before a complete response');
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  /** Resolves when the server has closed the connection. */
  async whenClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((resolve) => (this.waiting = resolve));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(): RawResponse | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.buffer.slice(0, end).split('\r\n');
    const headers: IncomingHttpHeaders = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.slice(end + 4, end + 4 + length);
    this.buffer = this.buffer.slice(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}
