import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../common/database-errors.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { BLOCK_SIZE, IndexPermutation, newListId, newPermutationKey } from './status-list-encoding.js';

/** The entry a token names: its list (row id and public id), the list's URL and the index. */
export type StatusEntry = { listId: number; publicId: string; uri: string; idx: number };

type Block = { listId: number; publicId: string; uri: string; indices: number[]; next: number; reservedAt: number };

// Serialises reservations across instances, so one list at a time receives indices.
const ALLOCATION_LOCK = 0x73746c73;
// A block is used for at most this long (then dropped, its rest never issued), so a list's
// `max_expires_at` bounds every token naming it.
export const BLOCK_MAX_AGE_SECONDS = 300;
// The longest lifetime any access token can have (ACCESS_TOKEN_TTL and a client's own lifetime).
export const MAX_TOKEN_LIFETIME_SECONDS = 86_400;
// The next block is reserved when the current one has less than half of its indices left.
// A busy process reserves several blocks of BLOCK_SIZE at once, in one UPDATE: twice as many as
// before when its last reservation was half used within a second, up to MAX_BLOCKS_AT_ONCE (and a
// sixteenth of the list); one again when it was not. An idle process keeps losing at most one
// block when its block grows old.
const MAX_BLOCKS_AT_ONCE = 16;
const BUSY_WITHIN_MS = 1_000;

type ReservedRow = { id: number; public_id: string; size: number; permutation_key: Buffer; blocks_reserved: number; first_block: number };

/**
 * Hands out status list indices (docs/reference/status-lists.md#lists-and-indices): each process
 * reserves a block of 256 positions of the open list with one committed UPDATE … RETURNING before
 * handing any out, and the next block ahead of need, off the request path; the n-th position of a
 * list is its index `permute(n)`. A block lost with its process is never handed out again. When
 * the open list is full (or has another size than STATUS_LIST_SIZE), a new one opens.
 */
@Injectable()
export class StatusIndexAllocator {
  private readonly logger = new Logger(StatusIndexAllocator.name);
  private current?: Block;
  private upcoming?: Promise<Block>;
  private readonly permutations = new Map<number, IndexPermutation>();
  private blocksAtOnce = 1;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  get enabled(): boolean {
    return this.config.statusList;
  }

  /**
   * The next entry: at once when the block at hand has one left, else after the next block's
   * reservation. Throws 503 temporarily_unavailable when no block can be reserved.
   */
  take(): StatusEntry | Promise<StatusEntry> {
    const block = this.current;
    if (block !== undefined && block.next < block.indices.length && Date.now() - block.reservedAt < BLOCK_MAX_AGE_SECONDS * 1000) {
      const idx = block.indices[block.next];
      block.next += 1;
      if (block.indices.length - block.next < block.indices.length / 2) this.prefetch();
      return { listId: block.listId, publicId: block.publicId, uri: block.uri, idx };
    }
    return this.takeFromNextBlock();
  }

  private async takeFromNextBlock(): Promise<StatusEntry> {
    for (;;) {
      const stale = this.current;
      this.prefetch();
      let block: Block;
      try {
        block = await this.upcoming!;
      } catch {
        throw OAuthError.temporarilyUnavailable('no status list index could be reserved, so no token was issued; retry shortly', DATABASE_RETRY_AFTER_SECONDS);
      }
      // Another request may have switched to it meanwhile.
      if (this.current === stale) {
        this.current = block;
        this.upcoming = undefined;
      }
      const entry = this.take();
      if (!(entry instanceof Promise)) return entry;
    }
  }

  private prefetch(): void {
    if (this.upcoming !== undefined) return;
    const busy = this.current !== undefined && Date.now() - this.current.reservedAt < BUSY_WITHIN_MS;
    this.blocksAtOnce = busy ? Math.min(MAX_BLOCKS_AT_ONCE, this.blocksAtOnce * 2) : 1;
    const upcoming = this.reserve(this.blocksAtOnce);
    this.upcoming = upcoming;
    upcoming.catch((error: Error) => {
      if (this.upcoming === upcoming) this.upcoming = undefined;
      this.logger.warn(`no block of status list indices could be reserved: ${error.message}`);
    });
  }

  /**
   * One committed reservation: the next `wanted` blocks of the open list (fewer when it has fewer
   * left, at most a sixteenth of a list), or the first block of a new list.
   */
  async reserve(wanted = 1): Promise<Block> {
    const row = await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [ALLOCATION_LOCK]);
      const lifetime = BLOCK_MAX_AGE_SECONDS + MAX_TOKEN_LIFETIME_SECONDS;
      // TypeORM answers an UPDATE … RETURNING with [rows, affected]; `first_block` is the count before.
      const [updated]: [ReservedRow[], number] = await manager.query(
        `WITH open AS (SELECT id, blocks_reserved AS before FROM status_list
                        WHERE id = (SELECT max(id) FROM status_list) AND size = $2 AND blocks_reserved < size / $3)
         UPDATE status_list s
            SET blocks_reserved = open.before + least(greatest(1, least($4::int, s.size / $3 / 16)), s.size / $3 - open.before),
                max_expires_at = greatest(s.max_expires_at, now() + make_interval(secs => $1))
           FROM open WHERE s.id = open.id
         RETURNING s.id, s.public_id, s.size, s.permutation_key, s.blocks_reserved, open.before AS first_block`,
        [lifetime, this.config.statusListSize, BLOCK_SIZE, wanted],
      );
      if (updated.length > 0) return updated[0];
      const [created]: ReservedRow[] = await manager.query(
        `INSERT INTO status_list (public_id, size, bits, permutation_key, blocks_reserved, max_expires_at)
         VALUES ($1, $2, 1, $3, 1, now() + make_interval(secs => $4))
         RETURNING id, public_id, size, permutation_key, blocks_reserved, 0 AS first_block`,
        [newListId(), this.config.statusListSize, newPermutationKey(), lifetime],
      );
      return created;
    });
    let permutation = this.permutations.get(row.id);
    if (permutation === undefined) {
      permutation = new IndexPermutation(row.permutation_key, row.size);
      this.permutations.clear();
      this.permutations.set(row.id, permutation);
    }
    const first = row.first_block * BLOCK_SIZE;
    const count = Math.min((row.blocks_reserved - row.first_block) * BLOCK_SIZE, row.size - first);
    return {
      listId: row.id,
      publicId: row.public_id,
      uri: statusListUri(this.config.issuer, row.public_id),
      indices: permutation.indices(first, count),
      next: 0,
      reservedAt: Date.now(),
    };
  }
}

/** The URL of a status list: built from the issuer, never from a request. */
export function statusListUri(issuer: string, publicId: string): string {
  return `${issuer}/oauth2/status/${publicId}`;
}
