import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { connectionBudget } from '../database/connection-budget.js';
import { durablePool, GroupCommit } from '../database/group-commit.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OAuthError } from '../oauth/oauth-error.js';
import type { CoveringChain } from '../tickets/access-decision.js';

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

// One batch at a time per instance: concurrent batches append to the same index pages and
// contend for them (measured: 1.5x the CPU per token and 0.67x the tokens per second with 4).
// Across instances a lock held until commit keeps ids growing in commit order.
const CONCURRENT_BATCHES = 1;
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

/** The records a disclosure rests on, each once: what a change to one of them must re-decide. */
function basisOf(input: DisclosureInput): { type: string; ref: string }[] {
  const basis = new Map<string, { type: string; ref: string }>();
  const add = (type: string, ref: string) => basis.set(`${type}\u0000${ref}`, { type, ref });
  add('uma-client', String(input.clientKey));
  for (const chain of input.chains) {
    add('capability-ticket', chain.capabilityTicket.id);
    add('requested-resource', chain.requestedResource.id);
    add('requested-resource-scopes', chain.requestedResourceScopes.id);
    add('requested-resources-capability-tickets', chain.requestedResourcesCapabilityTickets.id);
  }
  for (const uri of audienceUris(input.aud, input.defaultAudience)) add('data-source', uri);
  return [...basis.values()];
}

/** The data sources an `aud` names: none when it is the default audience. */
export function audienceUris(aud: string | string[], defaultAudience: string): string[] {
  if (aud === defaultAudience) return [];
  return Array.isArray(aud) ? aud : [aud];
}

/**
 * One batch: the rows and their basis in one statement, so in one commit (all or none). The
 * commit-order lock is taken before any id is drawn and released by the commit.
 */
async function insertDisclosures(client: pg.PoolClient, items: readonly DisclosureInput[]): Promise<string[]> {
  const rows = items.map((item, ordinal) => ({
    ordinal,
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
    chains: item.chains,
    basis: basisOf(item),
  }));
  const result = await client.query<{ id: string; ordinal: number }>({
    name: 'insert-disclosures',
    text: `WITH commit_order AS (SELECT pg_advisory_xact_lock(${COMMIT_ORDER_LOCK}) AS locked), fresh AS (
             SELECT r.* FROM commit_order, jsonb_to_recordset($1::jsonb) AS r(ordinal int, jti text, client_key int, client_id text, scope text, aud jsonb,
               resources jsonb, issued_at float8, expires_at float8, token_type text, jkt text, request_id text, chains jsonb, basis jsonb)
           ), inserted AS (
             INSERT INTO disclosure (jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, chains)
             SELECT jti, client_key, client_id, scope, aud, resources, to_timestamp(issued_at), to_timestamp(expires_at), token_type, jkt, request_id, chains
               FROM fresh ORDER BY ordinal
             RETURNING id, jti, expires_at
           ), basis AS (
             INSERT INTO disclosure_basis (record_type, record_ref, disclosure_id, expires_at)
             SELECT b.type, b.ref, i.id, i.expires_at
               FROM inserted i JOIN fresh f ON f.jti = i.jti CROSS JOIN LATERAL jsonb_to_recordset(f.basis) AS b(type text, ref text)
             ON CONFLICT DO NOTHING
           )
           SELECT i.id::text AS id, f.ordinal FROM inserted i JOIN fresh f ON f.jti = i.jti`,
    values: [JSON.stringify(rows)],
  });
  const ids: string[] = [];
  for (const row of result.rows) ids[row.ordinal] = row.id;
  return ids;
}
