// At most this many pairs are remembered; the oldest goes first.
const MAX_PROVEN = 100_000;

/**
 * The client and source address pairs that have authenticated in this process (AdmitOptions.proven):
 * a key-holding client working from such an address keeps its full rate while the address stays
 * clean, and its key set is not fetched behind a read of the counts. In memory, bounded.
 */
export class ProvenSources {
  private readonly pairs = new Set<string>();

  has(clientId: string, address: string): boolean {
    return this.pairs.has(pairOf(clientId, address));
  }

  add(clientId: string, address: string): void {
    const pair = pairOf(clientId, address);
    if (this.pairs.has(pair)) return;
    if (this.pairs.size >= MAX_PROVEN) this.pairs.delete(this.pairs.values().next().value!);
    this.pairs.add(pair);
  }
}

/** A client id and source address as one in-memory key (the throttle's memories of this process; never stored). */
export function pairOf(clientId: string, address: string): string {
  return `${clientId}\u0000${address}`;
}
