import { Inject, Injectable } from '@nestjs/common';
import { slowHashBounds, WorkGate } from '../auth/slow-hash-gate.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OAuthError } from '../oauth/oauth-error.js';

/** How many may wait their turn: a waiting registration holds a socket and a timer, no CPU. */
export const REGISTRATIONS_WAITING = 1024;
/** How long one may wait for its turn before it is answered 503 with Retry-After. */
export const REGISTRATION_WAIT_MS = 2_000;
/** The reason of the line's refusals in the throttle's warn lines. */
export const REGISTRATIONS_BUSY = 'registrations busy';
const RETRY_AFTER_SECONDS = 1;

/**
 * The line of `POST /oauth2/register` in this process (docs/operations/security.md, "A
 * registration flood"): as many registrations are worked on at a time as slow hashes may run (each secret registration runs one),
 * from the initial access token's lookup to the write; the next ones wait their turn, in order,
 * for at most REGISTRATION_WAIT_MS, then get 503 temporarily_unavailable with Retry-After. A
 * flood of registrations therefore takes one registration's share of the event loop and of the
 * database, however many connections it opens, and other clients' token requests keep their
 * latency; a flood of more than REGISTRATIONS_WAITING at once is refused at once.
 */
@Injectable()
export class RegistrationLine extends WorkGate {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(slowHashBounds(config.threadPoolSize).atOnce, REGISTRATIONS_WAITING, { refusal: busy, maxWaitMs: REGISTRATION_WAIT_MS });
  }
}

function busy(): OAuthError {
  return OAuthError.temporarilyUnavailable('too many registrations are in progress right now; retry shortly', RETRY_AFTER_SECONDS).refusing(
    undefined,
    REGISTRATIONS_BUSY,
  );
}
