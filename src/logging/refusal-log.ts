import { Logger } from '@nestjs/common';

/** Per client and reason, at most one line a second. */
const WINDOW_MS = 1_000;
/**
 * Clients tracked at once: past that (a flood of made-up client ids), refusals share one line
 * per reason, so the lines per second stay bounded whatever the attacker sends.
 */
const MAX_TRACKED = 50;
const OTHER_CLIENTS = '(other clients)';
const MAX_CLIENT_ID_SHOWN = 100;

type Window = { clientId: string; reason: string; suppressed: number; timer?: NodeJS.Timeout };

/** Where the lines go: Nest's Logger (pino), or a stand-in in unit tests. */
export type WarnSink = { warn(message: object): void };

/**
 * Refusals that protect the server (429 of the brute-force throttle, 503 of the slow-hash bound)
 * come by the thousand in an attack: each client and reason gets one `warn` line at its first
 * refusal, then at most one line a second with the count of refusals since the last line, until
 * a second passes without any (docs/operations/security.md, "Logs under attack"). The request
 * log writes such responses at debug (see `markRefusal`).
 */
export class RefusalLog {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly sink: WarnSink = new Logger('Throttle')) {}

  note(clientId: string | undefined, reason: string): void {
    let shown = clientId === undefined ? '(unknown)' : clientId.slice(0, MAX_CLIENT_ID_SHOWN);
    let key = `${reason}\u0000${shown}`;
    if (!this.windows.has(key) && this.windows.size >= MAX_TRACKED) {
      shown = OTHER_CLIENTS;
      key = `${reason}\u0000${shown}`;
    }
    const window = this.windows.get(key);
    if (window) {
      window.suppressed += 1;
      return;
    }
    const opened: Window = { clientId: shown, reason, suppressed: 0 };
    this.windows.set(key, opened);
    this.write(opened, 1, 0);
    this.close(key, opened);
  }

  /** Ends every window now (tests; a closing application). */
  stop(): void {
    for (const window of this.windows.values()) clearTimeout(window.timer);
    this.windows.clear();
  }

  private close(key: string, window: Window): void {
    window.timer = setTimeout(() => {
      if (window.suppressed === 0) {
        this.windows.delete(key);
        return;
      }
      this.write(window, window.suppressed, window.suppressed);
      window.suppressed = 0;
      this.close(key, window);
    }, WINDOW_MS);
    window.timer.unref();
  }

  private write(window: Window, refused: number, suppressed: number): void {
    this.sink.warn({
      msg: `client authentication refused to protect the server (${window.reason}): ${refused} refusal${refused === 1 ? '' : 's'}${suppressed > 0 ? ' in the last second' : ''}`,
      clientId: window.clientId,
      reason: window.reason,
      refused,
      suppressed,
    });
  }
}

/** One per process: every listener and application shares the lines' budget. */
export const refusalLog = new RefusalLog();

const refusals = new WeakSet<object>();

/** The response answers a refusal that RefusalLog reports: the request log writes it at debug. */
export function markRefusal(response: object): void {
  refusals.add(response);
}

export function isRefusal(response: object): boolean {
  return refusals.has(response);
}
