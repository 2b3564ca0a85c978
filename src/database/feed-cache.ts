import type { CacheCounter } from '../metrics/metrics.service.js';
import type { ChangeFeed } from './change-feed.js';

// Bounded, so that a flood of random keys (unknown client ids) cannot grow memory without limit.
const MAX_ENTRIES = 100_000;

/**
 * An in-process cache kept fresh by the change feed: emptied on any write to one of `tables`
 * (from any process), bypassed while the feed is down, so it is never stale by more than the
 * feed's ping interval. A value loaded while a change arrived is not kept.
 */
export class FeedCache<K, V> {
  private readonly entries = new Map<K, V>();
  private generation = 0;

  constructor(
    private readonly changes: ChangeFeed,
    tables: ReadonlySet<string>,
    private readonly counter?: CacheCounter,
  ) {
    changes.subscribe((table) => {
      if (table === undefined || tables.has(table)) {
        this.generation += 1;
        this.entries.clear();
      }
    });
  }

  async get(key: K, load: (key: K) => Promise<V>): Promise<V> {
    if (this.changes.live && this.entries.has(key)) {
      this.counter?.hit();
      return this.entries.get(key)!;
    }
    this.counter?.miss();
    const generation = this.generation;
    const value = await load(key);
    if (this.changes.live && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, value);
    }
    return value;
  }
}
