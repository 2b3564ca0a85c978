import { availableParallelism } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OAuthError } from '../oauth/oauth-error.js';

/**
 * How many slow hashes run at once, and how many may wait. scrypt is pure CPU: slow hashes may use
 * at most half the cores (the other half serves requests, PostgreSQL and the signing of tokens),
 * and all but two threads of libuv's pool (UV_THREADPOOL_SIZE), which also signs every token. One
 * at least. A short queue absorbs a burst of legitimate first requests; a flood finds it full.
 */
export function slowHashBounds(threadPoolSize: number, cores = availableParallelism()): { atOnce: number; waiting: number } {
  const atOnce = Math.max(1, Math.min(Math.floor(cores / 2), threadPoolSize - 2));
  return { atOnce, waiting: Math.max(4, 4 * atOnce) };
}
const RETRY_AFTER_SECONDS = 1;
/** The reason of the bound's refusals in the throttle's warn lines. */
export const SLOW_HASHES_BUSY = 'slow hashes busy';

/** How a gate refuses, and how long a piece of work may wait in its queue before it is refused. */
export type GateOptions = { refusal?: () => OAuthError; maxWaitMs?: number };

/**
 * At most `atOnce` pieces of work at a time, at most `queueLength` waiting (each at most
 * `maxWaitMs`, unbounded unless given); the rest refused with 503.
 */
export class WorkGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly refusal: () => OAuthError;
  private readonly maxWaitMs: number;

  constructor(
    /** How many pieces of work run at a time. */
    readonly atOnce: number,
    /** How many may wait. */
    readonly queueLength: number,
    options: GateOptions = {},
  ) {
    this.refusal = options.refusal ?? busy;
    this.maxWaitMs = options.maxWaitMs ?? Infinity;
  }

  /** 503 now when a piece of work would be refused: lets a caller skip the work before it (database lookups). */
  refuseIfFull(): void {
    if (this.running >= this.atOnce && this.waiting.length >= this.queueLength) throw this.refusal();
  }

  /** Whether a piece of work would start now, without waiting in the queue. */
  hasFreeSlot(): boolean {
    return this.running < this.atOnce;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  private async enter(): Promise<void> {
    if (this.running < this.atOnce) {
      this.running += 1;
      return;
    }
    if (this.waiting.length >= this.queueLength) throw this.refusal();
    // The slot is handed over by leave(): `running` stays as it is.
    await new Promise<void>((resolve, reject) => {
      if (!Number.isFinite(this.maxWaitMs)) {
        this.waiting.push(resolve);
        return;
      }
      const handOver = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(handOver), 1);
        reject(this.refusal());
      }, this.maxWaitMs);
      // The request that waits keeps the process busy; the timer alone does not.
      timer.unref();
      this.waiting.push(handOver);
    });
  }

  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

function busy(): OAuthError {
  return OAuthError.temporarilyUnavailable('too many client secrets are being verified right now; retry shortly', RETRY_AFTER_SECONDS).refusing(
    undefined,
    SLOW_HASHES_BUSY,
  );
}

/**
 * Bounds the slow hashes (scrypt) this process runs at a time, with a bounded queue behind
 * them; past that a request that needs one is answered 503 temporarily_unavailable with
 * Retry-After, so a flood of wrong secrets cannot starve other clients' token requests or the
 * signing of tokens (docs/operations/security.md, "Slow hashes").
 */
@Injectable()
export class SlowHashGate extends WorkGate {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { atOnce, waiting } = slowHashBounds(config.threadPoolSize);
    super(atOnce, waiting);
  }
}
