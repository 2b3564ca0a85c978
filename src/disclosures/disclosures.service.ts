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

// Two batches at a time per instance: the commit-order lock, held until commit, makes the second
// wait for the first's commit, but its round trip and parsing overlap it (one benchmark run each,
// on a loaded machine: 0.56x the plain-scope tokens per second with two, 0.33x with one, 0.23x
// with three). The lock also keeps ids growing in commit order across instances.
const CONCURRENT_BATCHES = 2;
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
  private readonly batches: GroupCommit<DisclosureInput, string>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.pool = durablePool(config.databaseUrl, 'authorization-server-disclosures', connectionBudget(config).disclosures);
    this.batches = new GroupCommit(this.pool, insertDisclosures, { concurrency: CONCURRENT_BATCHES });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  /**
   * Commits the disclosure of one token and answers its id; throws 503 temporarily_unavailable
   * when the row could not be committed (the caller must then not answer the token).
   */
  async record(input: DisclosureInput): Promise<string> {
    try {
      const id = await this.batches.submit(input);
      this.metrics?.disclosuresRecorded(1);
      return id;
    } catch (error) {
      this.logger.error(`a disclosure could not be committed, the token was not issued: ${(error as Error).message}`);
      throw new OAuthError('temporarily_unavailable', 'the disclosure of this token could not be recorded, so no token was issued; retry later');
    }
  }
}

/** The tags of the records a disclosure rests on, each once, as a PostgreSQL array literal. */
function basisOf(input: DisclosureInput): string {
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
  return `{${[...tags].join(',')}}`;
}

/** The data sources an `aud` names: none when it is the default audience. */
export function audienceUris(aud: string | string[], defaultAudience: string): string[] {
  if (aud === defaultAudience) return [];
  return Array.isArray(aud) ? aud : [aud];
}

// One statement per batch, its rows as typed arrays (one per column, unnested in order).
const INSERT_DISCLOSURES = `WITH commit_order AS (SELECT pg_advisory_xact_lock(${COMMIT_ORDER_LOCK})), fresh AS (
    SELECT r.* FROM commit_order, unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::float8[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::text[]) WITH ORDINALITY
      AS r(jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, chains, tags, ordinal)
  ), inserted AS (
    INSERT INTO disclosure (jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, chains)
    SELECT jti, client_key, client_id, scope, aud::json, resources::json, to_timestamp(issued_at), to_timestamp(expires_at), token_type, jkt, request_id, chains::json
      FROM fresh ORDER BY ordinal
    RETURNING id, jti, expires_at
  ), basis AS (
    INSERT INTO disclosure_basis (disclosure_id, expires_at, tags)
    SELECT i.id, i.expires_at, f.tags::bigint[] FROM inserted i JOIN fresh f ON f.jti = i.jti
  )
  SELECT id::text AS id, jti FROM inserted`;

/**
 * One batch: the rows and their basis in one statement, so in one commit (all or none). The
 * commit-order lock is taken before any id is drawn and released by the commit.
 */
async function insertDisclosures(client: pg.PoolClient, items: readonly DisclosureInput[]): Promise<string[]> {
  const column = <V>(of: (item: DisclosureInput) => V): V[] => items.map(of);
  const result = await client.query<{ id: string; jti: string }>({
    name: 'insert-disclosures',
    text: INSERT_DISCLOSURES,
    values: [
      column((item) => item.jti),
      column((item) => item.clientKey),
      column((item) => item.clientId),
      column((item) => item.scope),
      column((item) => JSON.stringify(item.aud)),
      column((item) => JSON.stringify(item.resources)),
      column((item) => item.issuedAt),
      column((item) => item.expiresAt),
      column((item) => item.tokenType),
      column((item) => item.jkt ?? null),
      column((item) => item.requestId ?? null),
      column((item) => JSON.stringify(item.chains)),
      column(basisOf),
    ],
  });
  const idOf = new Map(result.rows.map((row) => [row.jti, row.id]));
  return items.map((item) => idOf.get(item.jti)!);
}
