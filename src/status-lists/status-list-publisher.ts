import { revokedIndicesOf } from '../revocation/revoked-tokens.js';
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeFeed } from '../database/change-feed.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { signJwt } from '../keys/token-signer.js';
import { encodeStatusList } from './status-list-encoding.js';
import { statusListUri } from './status-index-allocator.js';

/** A status list token as served: compact JWS, its gzip form, its ETag, when it was signed and the iat it carries. */
export type SignedList = { jwt: string; gzipped: Buffer; etag: string; signedAt: number; kid: string; iat: number };

type Entry = { signed?: SignedList; generation: number; building?: Promise<SignedList | undefined> };

// A list is signed again at most this often, when it changed.
const MIN_RESIGN_MS = 1_000;
const LIST_ID = /^[A-Za-z0-9_-]{22}$/;
// The aggregation is read again at least this often, for the lists that retired meanwhile.
const AGGREGATION_MAX_AGE_MS = 60_000;
// Lists kept in memory (each a few hundred bytes to a few kilobytes): the open one and the recent ones.
const MOST_KEPT = 1_000;

/**
 * Serves status list tokens from memory (docs/reference/status-lists.md#freshness): a list is
 * signed again when its token is at least a second old and a revocation or a key change happened
 * since, or when it is `ttl` old; reading, compressing and signing happen off the event loop (the
 * database, zlib and the signature on libuv's pool). Every process hears of revocations through
 * the change feed; while the feed is down, a list is read again at most once a second.
 */
@Injectable()
export class StatusListPublisher {
  private readonly lists = new Map<string, Entry>();
  private generation = 0;
  /** Changes of the status_list table only: what the aggregation's memory depends on. */
  private listsGeneration = 0;
  private aggregated?: { generation: number; at: number; uris: string[] };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: SigningKeysService,
    private readonly changes: ChangeFeed,
  ) {
    changes.subscribe((table) => {
      if (table === undefined || table === 'revoked_token' || table === 'signing_key' || table === 'status_list') this.generation += 1;
      if (table === undefined || table === 'status_list') this.listsGeneration += 1;
    });
  }

  get ttl(): number {
    return this.config.statusListTtl;
  }

  /** The current token of the list, or undefined when there is no such list (unknown or retired). */
  async token(publicId: string): Promise<SignedList | undefined> {
    if (!LIST_ID.test(publicId)) return undefined;
    let entry = this.lists.get(publicId);
    if (entry === undefined) {
      if (this.lists.size >= MOST_KEPT) this.lists.delete(this.lists.keys().next().value!);
      entry = { generation: -1 };
      this.lists.set(publicId, entry);
    }
    const signed = entry.signed;
    if (signed !== undefined && !(await this.due(entry, signed))) return signed;
    if (entry.building === undefined) {
      const building = this.build(publicId, entry);
      entry.building = building;
      void building
        .finally(() => {
          if (entry.building === building) entry.building = undefined;
        })
        .catch(() => undefined);
    }
    return entry.building;
  }

  private async due(entry: Entry, signed: SignedList): Promise<boolean> {
    const age = Date.now() - signed.signedAt;
    // Signed again in every ttl-long period: every instance's token of a period carries the same iat.
    if (this.periodStart(Date.now()) !== signed.iat) return true;
    if (age < MIN_RESIGN_MS) return false;
    if (!this.changes.live || entry.generation !== this.generation) return true;
    // A key that took over on schedule (SIGNING_KEY_PUBLISH_AHEAD) sends no notification.
    return (await this.keys.signingKey()).kid !== signed.kid;
  }

  private async build(publicId: string, entry: Entry): Promise<SignedList | undefined> {
    const generation = this.generation;
    // Its age counts from before the read: what was committed before then is in it.
    const readAt = Date.now();
    const rows: { size: number; retired: boolean; set: number[] }[] = await this.dataSource.query(
      `SELECT l.size, (l.max_expires_at < now() AND l.id <> (SELECT max(id) FROM status_list)) AS retired,
              ${revokedIndicesOf('l.id')} AS set
         FROM status_list l WHERE l.public_id = $1`,
      [publicId],
    );
    const row = rows[0];
    if (row === undefined || row.retired) {
      this.lists.delete(publicId);
      return undefined;
    }
    const [lst, key] = await Promise.all([encodeStatusList(row.size, row.set), this.keys.signingKey()]);
    // The start of the current ttl-long period, not the moment of signing: every worker and
    // instance that signs the same state in the same period gives the same iat, exp and ETag.
    const iat = this.periodStart(readAt);
    const issuer = this.config.issuer;
    const claims = {
      iss: issuer,
      sub: statusListUri(issuer, publicId),
      iat,
      exp: iat + Math.max(5 * this.ttl, 60),
      ttl: this.ttl,
      status_list: { bits: 1, lst, aggregation_uri: `${issuer}/oauth2/status` },
    };
    const jwt = await signJwt('statuslist+jwt', claims, key);
    const gzipped = await new Promise<Buffer>((resolve, reject) => gzip(jwt, (error, result) => (error ? reject(error) : resolve(result))));
    const signed: SignedList = {
      jwt,
      gzipped,
      // The state, not the signature (ES256 and PS256 signatures differ at every signing): a
      // resource server's conditional GET gets 304 whichever worker or instance answers it.
      etag: `"${createHash('sha256').update(`${publicId}.${row.size}.${lst}.${key.kid}.${iat}`).digest('base64url').slice(0, 27)}"`,
      signedAt: readAt,
      kid: key.kid,
      iat,
    };
    entry.signed = signed;
    // A change heard while this was built may not be in it: the next request signs again.
    entry.generation = generation;
    return signed;
  }

  /** Seconds since the epoch at which the ttl-long period holding `at` (ms) began. */
  private periodStart(at: number): number {
    return Math.floor(at / 1000 / this.ttl) * this.ttl;
  }

  /**
   * The URL of every list that is not retired, oldest first, from memory: read again when the
   * change feed reports a change of the lists (a new list, a retirement), after a minute at most
   * (a list retires when its last token expires, which no statement announces), and at most once
   * a second while the feed is down.
   */
  async aggregation(): Promise<string[]> {
    const now = Date.now();
    const kept = this.aggregated;
    if (kept !== undefined) {
      const age = now - kept.at;
      const fresh = this.changes.live ? kept.generation === this.listsGeneration && age < AGGREGATION_MAX_AGE_MS : age < MIN_RESIGN_MS;
      if (fresh) return kept.uris;
    }
    const generation = this.listsGeneration;
    const uris = await this.readAggregation();
    this.aggregated = { generation, at: now, uris };
    return uris;
  }

  private async readAggregation(): Promise<string[]> {
    const rows: { public_id: string }[] = await this.dataSource.query(
      `SELECT public_id FROM status_list l WHERE NOT (l.max_expires_at < now() AND l.id <> (SELECT max(id) FROM status_list)) ORDER BY id`,
    );
    return rows.map((row) => statusListUri(this.config.issuer, row.public_id));
  }
}
