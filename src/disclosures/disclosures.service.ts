import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../common/database-errors.js';
import { connectionBudget } from '../database/connection-budget.js';
import { durablePool, GroupCommit } from '../database/group-commit.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { Hl7B2b } from '../oauth/hl7-b2b.js';
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
  /** The token's status list entry (row id of the list, index), if it has one. */
  statusListId?: number;
  statusIdx?: number;
  /** The default audience (issuer or ACCESS_TOKEN_AUDIENCE), which names no data source. */
  defaultAudience: string;
  /** A UDAP request's `hl7-b2b` extension as asserted (its organization and purposes of use). */
  hl7B2b?: Hl7B2b;
  /** docs/guides/token-exchange.md: an exchanged token's actors (client_ids, outermost first), and the jti of the token it was exchanged from. */
  actor?: readonly string[];
  parentJti?: string;
};

// Batches are serialised across instances by this lock, taken before any id is drawn and released
// by the commit, so ids grow in commit order (docs/guides/consent-withdrawal.md). Retention takes
// it too while it removes bases no disclosure names, so none goes while a batch names it.
export const COMMIT_ORDER_LOCK = 0x64697363;

/**
 * Records disclosures (docs/guides/consent-withdrawal.md): every access token with a resource
 * scope, from any grant, before its response leaves. Rows of concurrent requests share one
 * durable commit (group commit); a token whose row is not committed is never answered.
 */
@Injectable()
export class DisclosuresService implements OnApplicationShutdown {
  private readonly logger = new Logger(DisclosuresService.name);
  private readonly pool: pg.Pool;
  private readonly batches: GroupCommit<Row, void>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    const connections = connectionBudget(config).disclosures;
    this.pool = durablePool(config.databaseUrl, 'authorization-server-disclosures', connections);
    // One batch per connection; the budget gives one (more only made batches smaller: the
    // commit-order lock serialises them, bench/README.md).
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
      this.logger.warn(`a disclosure could not be committed, the token was not issued: ${(error as Error).message}`);
      throw OAuthError.temporarilyUnavailable(
        'the disclosure of this token could not be recorded, so no token was issued; retry later',
        DATABASE_RETRY_AFTER_SECONDS,
      );
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

// A batch is two JSON parameters, unpacked by PostgreSQL: its rows, in order, and the distinct bases
// they name. One string each to build and send, where a column per array made the driver escape
// every element (16 µs of garbage collection per token). A basis already stored is left as it is
// (its key is the digest of its content).
const INSERT_DISCLOSURES = `WITH commit_order AS (SELECT pg_advisory_xact_lock(${COMMIT_ORDER_LOCK})), bases AS (
    INSERT INTO disclosure_basis (key, chains, tags)
    SELECT b.key, b.chains, b.tags FROM commit_order, json_to_recordset($2::json) AS b(key uuid, chains json, tags bigint[])
    ON CONFLICT (key) DO NOTHING
  )
  INSERT INTO disclosure (jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, basis, status_list_id, status_idx,
      organization_id, organization_name, purpose_of_use, subject_name, subject_id, subject_role, consent_reference, actor, parent_jti)
  SELECT jti, client_key, client_id, scope, aud, resources, to_timestamp(issued_at), to_timestamp(expires_at), token_type, jkt, request_id, basis, status_list_id, status_idx,
      organization_id, organization_name, purpose_of_use, subject_name, subject_id, subject_role, consent_reference, actor, parent_jti
    FROM commit_order, ROWS FROM (json_to_recordset($1::json) AS (jti text, client_key int, client_id text, scope text, aud json,
        resources json, issued_at float8, expires_at float8, token_type text, jkt text, request_id text, basis uuid, status_list_id int, status_idx int,
        organization_id text, organization_name text, purpose_of_use text[], subject_name text, subject_id text, subject_role text, consent_reference text[],
        actor json, parent_jti text)) WITH ORDINALITY
      AS r(jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, jkt, request_id, basis, status_list_id, status_idx,
        organization_id, organization_name, purpose_of_use, subject_name, subject_id, subject_role, consent_reference, actor, parent_jti, ordinal)
    ORDER BY ordinal`;

/** A basis as the batch sends it: its key, and its JSON object (key, chains, tags). */
type Basis = { key: string; json: string };

/** One row of a batch: the disclosure as a JSON object, and its basis. */
type Row = { json: string; basis: Basis };

// The same client, audience and covering chains give the same basis: kept for the next token, so
// its JSON, tags and digest are not computed again.
const basisByIdentity = new Map<string, Basis>();
const MOST_KEPT = 10_000;

/** A basis is named by what it is made of: the client, the audience and every field of every chain. */
function identityOf(item: DisclosureInput): string {
  let identity = `${item.clientKey} ${sized(item.clientId)}${sized(JSON.stringify(item.aud))}`;
  for (const chain of item.chains) {
    identity += `${sized(chain.scope)}${chain.capabilityTicket.id} ${sized(chain.capabilityTicket.ticketId)}${chain.requestedResource.id} ${sized(
      chain.requestedResource.requestedResourceId,
    )}${chain.requestedResourceScopes.id} ${chain.requestedResourcesCapabilityTickets.id} ${chain.purpose.id} ${sized(chain.purpose.name)}${
      chain.purposeOfUse === undefined ? '-' : sized(chain.purposeOfUse)
    }`;
  }
  return identity;
}

/** A string with its length in front, so that no two lists of strings run together the same way. */
function sized(value: string): string {
  return `${value.length}:${value}`;
}

function basisFor(item: DisclosureInput): Basis {
  const identity = identityOf(item);
  let basis = basisByIdentity.get(identity);
  if (basis === undefined) {
    if (basisByIdentity.size >= MOST_KEPT) basisByIdentity.clear();
    const content = `"chains":${JSON.stringify(item.chains)},"tags":[${basisOf(item).join(',')}]`;
    // The first 128 bits of the content's SHA-256, as a uuid: equal content, equal key.
    const hex = createHash('sha256').update(content).digest('hex');
    const key = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
    basis = { key, json: `{"key":"${key}",${content}}` };
    basisByIdentity.set(identity, basis);
  }
  return basis;
}

/** The row as a JSON object, as PostgreSQL unpacks it, with its basis. */
function rowOf(item: DisclosureInput): Row {
  const basis = basisFor(item);
  const json = JSON.stringify({
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
    basis: basis.key,
    status_list_id: item.statusListId ?? null,
    status_idx: item.statusIdx ?? null,
    // Absent members are left out of the JSON: json_to_recordset reads them as null.
    ...(item.hl7B2b ? hl7B2bColumns(item.hl7B2b) : {}),
    ...(item.actor !== undefined ? { actor: item.actor, parent_jti: item.parentJti ?? null } : {}),
  });
  return { json, basis };
}

/** A UDAP token's `hl7-b2b` extension as the row keeps it (docs/guides/consent-withdrawal.md#purpose-of-use-in-the-accounting); absent members null. */
function hl7B2bColumns(extension: Hl7B2b): Record<string, string | string[] | null> {
  return {
    organization_id: extension.organization_id,
    organization_name: extension.organization_name ?? null,
    purpose_of_use: extension.purpose_of_use,
    subject_name: extension.subject_name ?? null,
    subject_id: extension.subject_id ?? null,
    subject_role: extension.subject_role ?? null,
    consent_reference: extension.consent_reference ?? null,
  };
}

/**
 * One batch: the rows and their bases in one statement, so in one commit (all or none). The
 * commit-order lock is taken before any id is drawn and released by the commit.
 */
async function insertDisclosures(client: pg.PoolClient, rows: readonly Row[]): Promise<void[]> {
  const bases = new Map<string, Basis>();
  for (const row of rows) bases.set(row.basis.key, row.basis);
  await client.query({
    name: 'insert-disclosures',
    text: INSERT_DISCLOSURES,
    values: [`[${rows.map((row) => row.json).join(',')}]`, `[${[...bases.values()].map((basis) => basis.json).join(',')}]`],
  });
  return rows.map(() => undefined);
}
