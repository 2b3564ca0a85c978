import { createHash, randomInt } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { DataSource } from 'typeorm';

/**
 * An attack as the security probe made it: token requests from one loopback source address
 * (127.0.0.0/8 is all on the loopback interface, so each test speaks from addresses of its own
 * without any proxy header), at a steady pace or as fast as a few connections go.
 */

export type Answer = { status: number; error?: string };

/** One POST /oauth2/token from `address`; status 0 when the connection failed (a restarting server). */
export function postToken(url: string, address: string, form: Record<string, string>, headers: Record<string, string> = {}, agent?: Agent): Promise<Answer> {
  const target = new URL('/oauth2/token', url);
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress: address,
        agent: agent ?? false,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let error: string | undefined;
          try {
            error = (JSON.parse(text) as { error?: string }).error;
          } catch {
            error = undefined;
          }
          resolve({ status: response.statusCode ?? 0, error });
        });
        response.on('error', () => resolve({ status: 0 }));
      },
    );
    outgoing.on('error', () => resolve({ status: 0 }));
    outgoing.end(body);
  });
}

export type FloodOptions = {
  /** The servers to flood, taken in turn by the connections. */
  urls: string[];
  /** The flood's one source address. */
  address: string;
  /** The form of the n-th request (a wrong secret, a garbage assertion). */
  form: (index: number) => Record<string, string>;
  headers?: (index: number) => Record<string, string>;
  /** Keep-alive connections, each sending its next request when the last is answered. */
  connections: number;
  /** Pause between a connection's requests (20 ms: ~34 requests a second on one connection). */
  pauseMs: number;
};

/** A flood under way; `stop()` ends it and waits for its last answers. */
export class Flood {
  readonly statuses = new Map<number, number>();
  sent = 0;
  private running = true;
  private readonly agents: Agent[] = [];
  private readonly lanes: Promise<void>[];

  constructor(private readonly options: FloodOptions) {
    this.lanes = Array.from({ length: options.connections }, (_, lane) => this.lane(lane));
  }

  count(status: number): number {
    return this.statuses.get(status) ?? 0;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.lanes);
    for (const agent of this.agents) agent.destroy();
  }

  private async lane(lane: number): Promise<void> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    this.agents.push(agent);
    const url = this.options.urls[lane % this.options.urls.length];
    while (this.running) {
      const index = (this.sent += 1);
      const answer = await postToken(url, this.options.address, this.options.form(index), this.options.headers?.(index) ?? {}, agent);
      this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
      // A connection refused (a server restarting) is retried after a pause, not in a tight loop.
      const pause = answer.status === 0 ? Math.max(this.options.pauseMs, 50) : this.options.pauseMs;
      if (pause > 0) await sleep(pause);
    }
  }
}

/**
 * The working client's side: a request once a second (each on a new connection, so several
 * workers take turns) until one is answered 200 or `tries` are spent. Answers every status seen.
 */
export async function onceASecondUntilOk(send: () => Promise<Answer>, tries: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < tries; index += 1) {
    const started = Date.now();
    const { status } = await send();
    statuses.push(status);
    if (status === 200) break;
    await sleep(Math.max(0, 1_000 - (Date.now() - started)));
  }
  return statuses;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Failures and refusals counted for a source address (as the server saw it: plain IPv4, or IPv4-mapped on a dual-stack listener). */
export async function addressCount(dataSource: DataSource, address: string): Promise<number> {
  const keys = [address, `::ffff:${address}`].map((form) => `address:${createHash('sha256').update(form).digest('base64url')}`);
  const rows: { points: number }[] = await dataSource.query('SELECT points FROM auth_failure WHERE key = ANY($1)', [keys]);
  return Math.max(0, ...rows.map((row) => row.points));
}

/** Failures counted for a client. */
export async function clientCount(dataSource: DataSource, clientId: string): Promise<number> {
  const key = `client:${createHash('sha256').update(clientId).digest('base64url')}`;
  const rows: { points: number }[] = await dataSource.query('SELECT points FROM auth_failure WHERE key = $1', [key]);
  return rows[0]?.points ?? 0;
}

// Each suite loads this module afresh, and a Jest worker runs several suites against one database
// whose failure counts outlive a suite: every suite starts at a random place of 127.20.0.0/14's
// 64 × 250 × 250 addresses, so that two suites of a run practically never share a source address.
let next = randomInt(0, 64 * 62_500);
/** A loopback source address no other test of this run uses. */
export function loopbackAddress(): string {
  next = (next + 1) % (64 * 62_500);
  return `127.${20 + Math.floor(next / 62_500)}.${Math.floor((next % 62_500) / 250)}.${(next % 250) + 2}`;
}
