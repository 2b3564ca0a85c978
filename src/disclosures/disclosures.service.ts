import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { connectionBudget } from '../database/connection-budget.js';
import { durablePool, GroupCommit } from '../database/group-commit.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OAuthError } from '../oauth/oauth-error.js';
import type { CoveringChain } from '../tickets/access-decision.js';
import { basisTag } from './basis-tags.js';

/** What the token endpoint knows of a token with a resource scope, just before it answers. */
export type DisclosureInput = {
  jti: string;
  /** The client's row id, and its client_id. */
  clientKey: number;
  clientId: string;
  scope: string;
  aud: string | string[];
  /** The request's `resource` parameters (empty when the audience was derived). */
  resources: readonly string[];
  /** `iat` and `exp`, seconds. */
  issuedAt: number;
  expiresAt: number;
  tokenType: 'Bearer' | 'DPoP';
  jkt?: string;
  requestId?: string;
  chains: readonly CoveringChain[];
  /** The default audience (issuer or ACCESS_TOKEN_AUDIENCE), which names no data source. */
  defaultAudience: string;
};

// Batches are serialised across instances by this lock, taken before any id is drawn and released
// by the commit, so ids grow in commit order (docs/guides/consent-withdrawal.md).
const COMMIT_ORDER_LOCK = 0x64697363;

/**
 * Records disclosures (docs/guides/consent-withdrawal.md): every access token with a resource
 * scope, from any grant, before its response leaves. Rows of concurrent requests share one
 * durable commit (group commit); a token whose row is not committed is never answered.
 */
@Injectable()
export class DisclosuresService implements OnApplicationShutdown {
  private readonly logger = new Logger(DisclosuresService.name);
  private readonly pool: pg.Pool;
  private readonly batches: GroupCommit<string, void>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    const connections = connectionBudget(config).disclosures;
    this.pool = durablePool(config.databaseUrl, 'authorization-server-disclosures', connections);
    // One batch per connection: with two, the second's round trip and parsing overlap the first's commit.
    this.batches = new GroupCommit(this.pool, insertDisclosures, { concurrency: connections });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  /**
   * Commits the disclosure of one token; throws 503 temporarily_unavailable when the row could not
   * be committed (the caller must then not answer the token).
   */
  async record(input: DisclosureInput): Promise<void> {
    try {
      // The row is serialised here, in the request's own time, so a batch is sent as soon as the one before it returns.
      await this.batches.submit(rowOf(input));
      this.metrics?.disclosuresRecorded(1);
    } catch (error) {
      this.logger.error(`a disclosure could not be committed, the token was not issued: ${(error as Error).message}`);
      throw new OAuthError('temporarily_unavailable', 'the disclosure of this token could not be recorded, so no token was issued; retry later');
    }
  }
}

/** The tags of the records a disclosure rests on, each once. */
function basisOf(input: DisclosureInput): string[] {
  const tags = new Set<string>();
  tags.add(basisTag('uma-client', input.clientKey));
  tags.add(basisTag('client-id', input.clientId));
  for (const chain of input.chains) {
    tags.add(basisTag('capability-ticket', chain.capabilityTicket.id));
    tags.add(basisTag('requested-resource', chain.requestedResource.id));
    tags.add(basisTag('requested-resource-scopes', chain.requestedResourceScopes.id));
    tags.add(basisTag('requested-resources-capability-tickets', chain.requestedResourcesCapabilityTickets.id));
  }
  for (const uri of audienceUris(input.aud, input.defaultAudience)) tags.add(basisTag('data-source', uri));
  return [...tags];
}

/** The data sources an `aud` names: none when it is the default audience. */
export function audienceUris(aud: string | string[], defaultAudience: string): string[] {
  if (aud === defaultAudience) return [];
  return Array.isArray(aud) ? aud : [aud];
}

// A batch is one JSON parameter, its rows unpacked by PostgreSQL in order: one string to build and
// send, where a column per array made the driver escape every element (16 µs of garbage collection per token).
const INSERT_DISCLOSURES = `WITH commit_order AS (SELECT pg_advisory_xact_lock(${COMMIT_ORDER_LOCK})), fresh AS (
    SELECT r.* FROM commit_order, ROWS FROM (json_to_recordset($1::json) AS (jti text, client_key int, client_id text, scope text, aud json,
        resources json, issued_at float8, expires_at float8, token_type text, jkt text, request_id text, chains json, tags bigint[])) WITH ORDINALITY
      AS r(jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, chains, tags, ordinal)
  ), inserted AS (
    INSERT INTO disclosure (jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, chains)
    SELECT jti, client_key, client_id, scope, aud, resources, to_timestamp(issued_at), to_timestamp(expires_at), token_type, jkt, request_id, chains
      FROM fresh ORDER BY ordinal
    RETURNING id, jti, expires_at
  )
  INSERT INTO disclosure_basis (disclosure_id, expires_at, tags)
  SELECT i.id, i.expires_at, f.tags FROM inserted i JOIN fresh f ON f.jti = i.jti`;

// The same client, audience and covering chains give the same tags: kept for the next token, so
// its two SHA-256 hashes are not computed again.
const tagsByBasis = new Map<string, string>();
const MOST_KEPT = 10_000;

/** The row as a JSON object, its chains and tags as PostgreSQL unpacks them. */
function rowOf(item: DisclosureInput): string {
  const chains = JSON.stringify(item.chains);
  const key = `${item.clientKey} ${item.clientId} ${JSON.stringify(item.aud)} ${chains}`;
  let tags = tagsByBasis.get(key);
  if (tags === undefined) {
    if (tagsByBasis.size >= MOST_KEPT) tagsByBasis.clear();
    tags = `[${basisOf(item).join(',')}]`;
    tagsByBasis.set(key, tags);
  }
  const row = JSON.stringify({
    jti: item.jti,
    client_key: item.clientKey,
    client_id: item.clientId,
    scope: item.scope,
    aud: item.aud,
    resources: item.resources,
    issued_at: item.issuedAt,
    expires_at: item.expiresAt,
    token_type: item.tokenType,
    jkt: item.jkt ?? null,
    request_id: item.requestId ?? null,
  });
  return `${row.slice(0, -1)},"chains":${chains},"tags":${tags}}`;
}

/**
 * One batch: the rows and their basis in one statement, so in one commit (all or none). The
 * commit-order lock is taken before any id is drawn and released by the commit.
 */
async function insertDisclosures(client: pg.PoolClient, rows: readonly string[]): Promise<void[]> {
  await client.query({ name: 'insert-disclosures', text: INSERT_DISCLOSURES, values: [`[${rows.join(',')}]`] });
  return rows.map(() => undefined);
}
