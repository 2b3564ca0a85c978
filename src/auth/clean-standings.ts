import { pairOf } from './proven-sources.js';

// A clean standing is read again after this long: a failure counted by another worker or instance
// is seen within it, as every other change is (docs/operations/security.md, "The throttle comes first").
export const CLEAN_STANDING_MS = 1000;
// At most this many pairs are remembered; the oldest goes first.
const MAX_CLEAN = 100_000;

/**
 * The proven client and address pairs (AdmitOptions.proven) whose counts this process read as
 * clean within the last second: under both limits, and the address not failing for the client. A
 * key-holding client working from such an address is admitted without reading the counts again, so
 * its token requests cost no read of `auth_failure` in the steady state, as a remembered secret's
 * do not. Every failure or refusal this process counts forgets them all (clear): the next attempt
 * of any pair reads its counts again at once. In memory, bounded.
 */
export class CleanStandings {
  private readonly readAt = new Map<string, number>();
  private clears = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether this pair's counts were read clean less than a second ago. */
  has(clientId: string, address: string): boolean {
    const at = this.readAt.get(pairOf(clientId, address));
    return at !== undefined && this.now() - at < CLEAN_STANDING_MS;
  }

  /** Taken before a read, handed to add(): a read that a failure counted meanwhile may have missed is not remembered. */
  get generation(): number {
    return this.clears;
  }

  /** This pair's counts were read clean, by a read that began at `generation`. */
  add(clientId: string, address: string, generation: number): void {
    if (generation !== this.clears) return;
    const pair = pairOf(clientId, address);
    // Deleted first so that the map stays in reading order and the oldest is dropped first.
    this.readAt.delete(pair);
    if (this.readAt.size >= MAX_CLEAN) this.readAt.delete(this.readAt.keys().next().value!);
    this.readAt.set(pair, this.now());
  }

  /** A failure or refusal was counted: every pair reads its counts again. */
  clear(): void {
    this.clears += 1;
    this.readAt.clear();
  }
}
