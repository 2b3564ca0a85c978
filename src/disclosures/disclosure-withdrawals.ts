import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { splitSpaced } from '../clients/client-record.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeFeed } from '../database/change-feed.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { AccessDecisions } from '../tickets/access-decisions.js';
import { type BasisKind, basisTag, isBasisKind } from './basis-tags.js';
import { audienceUris } from './disclosures.service.js';
import { revokeTokens } from '../revocation/revoked-tokens.js';
import { RevocationState } from '../revocation/revocation-state.js';
import { countWithdrawnTokens } from '../audit/audit-trail.js';
import { runEvery } from '../common/run-every.js';

/** One committed administrative change, as its audit event recorded it. */
export type RecordChange = {
  auditEventId: number;
  operation: string;
  recordType: string;
  recordId: number;
  /** The record's attributes and relationship ids before the change. */
  before: Record<string, unknown> | null;
};

type Withdrawn = { jti: string; client_id: string; expires_at: Date; status_list_id: number | null; status_idx: number | null };

/** SQL: the `aud` (a JSON string or array) names one of the URIs of the text array parameter. */
function names(aud: string, uris: string): string {
  return `(CASE json_typeof(${aud}) WHEN 'string' THEN (${aud} #>> '{}') = ANY(${uris}::text[]) WHEN 'array' THEN ${aud}::jsonb ?| ${uris}::text[] ELSE false END)`;
}

function revocationOf(row: Withdrawn) {
  return { jti: row.jti, clientId: row.client_id, expiresAt: row.expires_at, statusListId: row.status_list_id, statusIdx: row.status_idx };
}

type Outstanding = { id: string; client_key: number; scope: string; aud: string | string[]; resources: string[]; purpose_of_use: string[] | null };

// Tokens issued by instances that had not yet heard of a change (they may trust their caches for
// up to a second) are caught by sweeping again; none stays active 2 s after the change.
const LATE_SWEEPS_MS = [1_000, 1_700];
// A change whose withdrawals are still pending this long after it committed lost its instance
// (stopped or crashed before the last sweep): any instance sweeps for it, checking this often.
const ORPHANED_AFTER_SECONDS = 5;
const RECOVER_EVERY_MS = 5_000;

// The records whose disclosures a change re-decides directly, by the basis they were recorded with.
const DIRECT_BASIS: ReadonlySet<string> = new Set<BasisKind>([
  'uma-client',
  'capability-ticket',
  'requested-resource',
  'requested-resource-scopes',
  'requested-resources-capability-tickets',
]);

/**
 * Consent withdrawal (docs/guides/consent-withdrawal.md): after an administrative change commits,
 * the outstanding disclosures resting on a record it removed or replaced are decided again by
 * the token endpoint's own decision; each one now refused is withdrawn. Introspection reads
 * withdrawals from the database, so every instance answers `active: false` at once.
 */
@Injectable()
export class DisclosureWithdrawals implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DisclosureWithdrawals.name);
  private stopRecovering?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly decisions: AccessDecisions,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() private readonly changes?: ChangeFeed,
    @Optional() private readonly revocations?: RevocationState,
  ) {}

  onApplicationBootstrap(): void {
    this.stopRecovering = runEvery(RECOVER_EVERY_MS, () => this.recover(), {
      now: true,
      onError: (error) => this.logger.warn(`pending withdrawals were not recovered: ${error.message}`),
    });
    // Back from a lost database connection (a failover): a sweep cut off meanwhile left its note
    // behind, so the notes are recovered now rather than at the next turn of the timer.
    this.changes?.onReconnect(() => {
      this.recover().catch((error: Error) => this.logger.warn(`pending withdrawals were not recovered: ${error.message}`));
    });
  }

  onModuleDestroy(): void {
    this.stopRecovering?.();
  }

  /**
   * Notes, in the change's own transaction, that an audited change (a remove or replace) may end
   * tokens: the note outlives a crash between the commit and the withdrawals, until they are done.
   */
  async pending(manager: EntityManager, auditEventId: number): Promise<void> {
    await manager.query('INSERT INTO pending_withdrawal (audit_event_id) VALUES ($1)', [auditEventId]);
  }

  /**
   * Once a change has committed: this instance drops its caches, so its next request reads the
   * change (docs/reference/admin-interface.md), and the disclosures the change ended are
   * withdrawn before it is answered (docs/guides/consent-withdrawal.md). The change stands even if
   * withdrawing fails: it is logged, and its pending note makes an instance sweep again.
   */
  async afterCommit(changes: readonly RecordChange[] = []): Promise<void> {
    this.changes?.committedHere();
    try {
      await this.afterChange(changes);
    } catch (error) {
      this.logger.error(`withdrawing the disclosures of a change failed: ${(error as Error).message}`);
    }
  }

  /** Withdraws what the request's changes (in operation order) ended; answers how many. */
  async afterChange(changes: readonly RecordChange[]): Promise<number> {
    const relevant = changes.filter((change) => change.operation === 'remove' || change.operation === 'replace');
    if (relevant.length === 0) return 0;
    const withdrawn = await this.sweep(relevant);
    LATE_SWEEPS_MS.forEach((delay, index) => {
      const last = index === LATE_SWEEPS_MS.length - 1;
      const late = async () => {
        await this.sweep(relevant);
        if (last) await this.done(relevant.map((change) => change.auditEventId));
      };
      setTimeout(() => void late().catch((error: Error) => this.logger.error(`a late withdrawal sweep failed: ${error.message}`)), delay).unref();
    });
    return withdrawn;
  }

  /**
   * Sweeps for changes whose instance stopped before their last sweep (their pending rows are
   * older than a live instance leaves them), at most 100 per run, each by one instance (the rows
   * are locked, and skipped by the others, until the run commits). Answers how many were withdrawn.
   */
  async recover(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { id: number; operation: string; record_type: string; record_id: number; before: Record<string, unknown> | null }[] = await manager.query(
        `SELECT e.id, e.operation, e.record_type, e.record_id, e.before
           FROM pending_withdrawal p JOIN audit_event e ON e.id = p.audit_event_id
          WHERE p.created_at < now() - make_interval(secs => $1)
          ORDER BY e.id LIMIT 100 FOR UPDATE OF p SKIP LOCKED`,
        [ORPHANED_AFTER_SECONDS],
      );
      if (rows.length === 0) return 0;
      const changes = rows.map((row) => ({
        auditEventId: row.id,
        operation: row.operation,
        recordType: row.record_type,
        recordId: row.record_id,
        before: row.before,
      }));
      const withdrawn = await this.sweep(changes);
      await this.done(
        rows.map((row) => row.id),
        manager,
      );
      if (withdrawn > 0) this.logger.warn(`withdrew ${withdrawn} tokens for changes whose instance stopped before withdrawing them`);
      return withdrawn;
    });
  }

  /** The changes' withdrawals are done: their notes go (in the caller's transaction when given its manager). */
  private async done(auditEventIds: number[], db: Pick<EntityManager, 'query'> = this.dataSource): Promise<void> {
    await db.query('DELETE FROM pending_withdrawal WHERE audit_event_id = ANY($1::int[])', [auditEventIds]);
  }

  private async sweep(changes: readonly RecordChange[]): Promise<number> {
    // Each disclosure is withdrawn by the first operation that touched what it rested on.
    const firstChange = new Map<string, number>();
    // docs/guides/token-exchange.md#withdrawal-cascades: a token exchanged across a delegation removed or narrowed goes, whatever consent says.
    const forced = new Set<string>();
    for (const change of changes) {
      const across = change.recordType === 'data-source-delegation' ? await this.acrossDelegation(change, changes) : [];
      for (const id of across) forced.add(id);
      for (const id of [...across, ...(await this.candidates(change, changes))]) if (!firstChange.has(id)) firstChange.set(id, change.auditEventId);
    }
    if (firstChange.size === 0) return 0;
    const rows: Outstanding[] = await this.dataSource.query(
      'SELECT id::text AS id, client_key, scope, aud, resources, purpose_of_use FROM disclosure WHERE id = ANY($1::bigint[]) AND withdrawn_at IS NULL AND expires_at > now()',
      [[...firstChange.keys()]],
    );
    const verdicts = new Map<string, Promise<boolean>>();
    const refused = new Map<number, string[]>();
    for (const row of rows) {
      const key = JSON.stringify([row.client_key, row.scope, row.aud, row.resources, row.purpose_of_use]);
      if (!verdicts.has(key)) verdicts.set(key, this.stillCovered(row));
      if (!forced.has(row.id) && (await verdicts.get(key))) continue;
      const event = firstChange.get(row.id)!;
      refused.set(event, [...(refused.get(event) ?? []), row.id]);
    }
    let total = 0;
    for (const [event, ids] of refused) total += await this.withdraw(ids, event);
    // The withdrawn tokens' revocations hold on this instance at once, ahead of the change feed.
    if (total > 0) await this.revocations?.revokedHere();
    this.metrics?.tokensWithdrawn(total);
    return total;
  }

  /**
   * The outstanding disclosures whose coverage rested on the changed record (by index, never a
   * scan). `changes` are the operations swept together (a request's, in order): a pair whose data
   * source the same request removed afterwards still finds that source's resource URI.
   */
  private async candidates(change: RecordChange, changes: readonly RecordChange[]): Promise<string[]> {
    const id = String(change.recordId);
    if (DIRECT_BASIS.has(change.recordType) && isBasisKind(change.recordType)) return this.resting(change.recordType, [id]);
    switch (change.recordType) {
      case 'data-source': {
        const uri = change.before?.resourceUri;
        return typeof uri === 'string' ? this.resting('data-source', [uri]) : [];
      }
      case 'data-source-resource-definitions':
        return this.resting('data-source', await this.resourceUrisOf(Number(change.before?.dataSource), changes));
      case 'resource-definition': {
        const rows: { id: string }[] = await this.dataSource.query('SELECT id::text AS id FROM requested_resource WHERE resource_definition_id = $1', [
          change.recordId,
        ]);
        return this.resting(
          'requested-resource',
          rows.map((row) => row.id),
        );
      }
      case 'scope': {
        const rows: { id: string }[] = await this.dataSource.query('SELECT id::text AS id FROM requested_resource_scopes WHERE scope_id = $1', [
          change.recordId,
        ]);
        return this.resting(
          'requested-resource-scopes',
          rows.map((row) => row.id),
        );
      }
      case 'purpose': {
        // A purpose in use cannot be removed, and its name is not part of any decision; its
        // purposesOfUse are, for UDAP tokens (docs/concepts/consent-tickets.md#purpose-of-use):
        // the disclosures of its tickets are decided again (any other token is still covered).
        const rows: { id: string }[] = await this.dataSource.query('SELECT id::text AS id FROM capability_ticket WHERE purpose_id = $1', [change.recordId]);
        return this.resting(
          'capability-ticket',
          rows.map((row) => row.id),
        );
      }
      default:
        return [];
    }
  }

  /**
   * The outstanding disclosures of tokens exchanged across a delegation (from a token meant for
   * its `from` data source, for its `to` data source) that it no longer allows: all of them when it
   * was removed or now links another pair, those with a scope it no longer lists when narrowed.
   */
  private async acrossDelegation(change: RecordChange, changes: readonly RecordChange[]): Promise<string[]> {
    const fromUris = await this.resourceUrisOf(Number(change.before?.from), changes);
    const toUris = await this.resourceUrisOf(Number(change.before?.to), changes);
    if (fromUris.length === 0 || toUris.length === 0) return [];
    const rows: { id: string; scope: string }[] = await this.dataSource.query(
      `SELECT d.id::text AS id, d.scope FROM disclosure d
        WHERE d.parent_jti IS NOT NULL AND d.withdrawn_at IS NULL AND d.expires_at > now()
          AND ${names('d.aud', '$2')}
          AND EXISTS (SELECT 1 FROM disclosure p WHERE p.jti = d.parent_jti AND ${names('p.aud', '$1')})`,
      [fromUris, toUris],
    );
    if (change.operation === 'remove') return rows.map((row) => row.id);
    const [now]: { from_id: number; to_id: number; scopes: string[] }[] = await this.dataSource.query(
      'SELECT from_id, to_id, scopes FROM data_source_delegation WHERE id = $1',
      [change.recordId],
    );
    if (!now || String(now.from_id) !== String(change.before?.from) || String(now.to_id) !== String(change.before?.to)) return rows.map((row) => row.id);
    if (now.scopes.length === 0) return [];
    return rows.filter((row) => row.scope.split(' ').some((scope) => !now.scopes.includes(scope))).map((row) => row.id);
  }

  /**
   * docs/guides/token-exchange.md#withdrawal-cascades: a token revoked by its client (RFC 7009)
   * takes with it every token exchanged from it, and from those, recursively; answers how many.
   */
  async withdrawExchangedFrom(jtis: readonly string[]): Promise<number> {
    const total = await this.cascade(jtis, null);
    this.cascadeLate(jtis, null);
    return total;
  }

  /**
   * An exchange another instance allowed before it heard of the withdrawal (its revocation answers
   * may be a second old) is caught by cascading again, as the late sweeps do.
   */
  private cascadeLate(jtis: readonly string[], auditEventId: number | null): void {
    if (jtis.length === 0) return;
    for (const delay of LATE_SWEEPS_MS) {
      const late = () => this.cascade(jtis, auditEventId);
      setTimeout(() => void late().catch((error: Error) => this.logger.error(`a late cascade of withdrawals failed: ${error.message}`)), delay).unref();
    }
  }

  /** Withdraws every outstanding token exchanged from these tokens, recursively; answers how many. */
  private async cascade(jtis: readonly string[], auditEventId: number | null): Promise<number> {
    const total = await this.dataSource.transaction(async (manager) => {
      const [rows]: [Withdrawn[], number] = await manager.query(
        `WITH RECURSIVE tree AS (
           SELECT d.id, d.jti FROM disclosure d WHERE d.parent_jti = ANY($1::text[])
           UNION SELECT d.id, d.jti FROM disclosure d JOIN tree t ON d.parent_jti = t.jti)
         UPDATE disclosure SET withdrawn_at = date_trunc('second', now()), withdrawn_by = $2
          WHERE id IN (SELECT id FROM tree) AND withdrawn_at IS NULL AND expires_at > now()
          RETURNING jti, client_id, expires_at, status_list_id, status_idx`,
        [jtis, auditEventId],
      );
      if (rows.length === 0) return 0;
      await revokeTokens(manager, rows.map(revocationOf));
      if (auditEventId !== null) await countWithdrawnTokens(manager, auditEventId, rows.length);
      return rows.length;
    });
    if (total > 0) await this.revocations?.revokedHere();
    this.metrics?.tokensWithdrawn(total);
    return total;
  }

  /**
   * The resource URIs a data source had: today's row, the URI its own removal or replacement in
   * the swept changes recorded, and, once it is gone, the last one its audit events recorded.
   */
  private async resourceUrisOf(dataSourceId: number, changes: readonly RecordChange[]): Promise<string[]> {
    if (!Number.isSafeInteger(dataSourceId)) return [];
    const uris = new Set<string>();
    const rows: { resource_uri: string }[] = await this.dataSource.query('SELECT resource_uri FROM data_source WHERE id = $1', [dataSourceId]);
    for (const row of rows) uris.add(row.resource_uri);
    for (const change of changes) {
      const uri = change.recordType === 'data-source' && change.recordId === dataSourceId ? change.before?.resourceUri : undefined;
      if (typeof uri === 'string') uris.add(uri);
    }
    if (uris.size === 0) {
      const [last]: { uri: string | null }[] = await this.dataSource.query(
        `SELECT COALESCE(after->>'resourceUri', before->>'resourceUri') AS uri FROM audit_event
          WHERE record_type = 'data-source' AND record_id = $1 ORDER BY id DESC LIMIT 1`,
        [dataSourceId],
      );
      if (last?.uri) uris.add(last.uri);
    }
    return [...uris];
  }

  private async resting(kind: BasisKind, refs: string[]): Promise<string[]> {
    if (refs.length === 0) return [];
    // The GIN index finds every basis with one of the tags, `disclosure (basis, expires_at)` their
    // disclosures not yet expired.
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT d.id::text AS id FROM disclosure d
        WHERE d.basis IN (SELECT key FROM disclosure_basis WHERE tags && $1::bigint[]) AND d.expires_at > now() AND d.withdrawn_at IS NULL`,
      [refs.map((ref) => basisTag(kind, ref))],
    );
    return rows.map((row) => row.id);
  }

  /**
   * The token endpoint's decision on today's records, for the disclosure's client, scope and
   * `resource` parameters; a derived audience must still name every data source it named.
   */
  private async stillCovered(row: Outstanding): Promise<boolean> {
    const [client]: { id: number; client_id: string; allowed_scopes: string; grant_types: string }[] = await this.dataSource.query(
      'SELECT c.id, c.client_id, m.allowed_scopes, m.grant_types FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.id = $1',
      [row.client_key],
    );
    // A cancelled UDAP registration keeps its record with no grant type (docs/reference/trust-communities.md#registration): nothing of it is covered.
    if (!client || client.grant_types === '') return false;
    const decision = await this.decisions.decide(
      { id: client.id, clientId: client.client_id, allowedScopes: splitSpaced(client.allowed_scopes) },
      // A UDAP token is decided again with the purposes of use its request asserted.
      { scopes: row.scope.split(' '), resources: row.resources, ...(row.purpose_of_use ? { purposesOfUse: row.purpose_of_use } : {}) },
      true,
    );
    if (decision.refusal) return false;
    if (row.resources.length > 0) return true;
    const now = decision.verdict.aud ?? [];
    const nowNamed = Array.isArray(now) ? now : [now];
    return audienceUris(row.aud, this.config.audience).every((uri) => nowNamed.includes(uri));
  }

  /** Marks the rows withdrawn, revokes their tokens (what introspection reads) and counts them on the audit event. */
  private async withdraw(ids: string[], auditEventId: number): Promise<number> {
    const withdrawn = await this.dataSource.transaction(async (manager) => {
      // TypeORM answers an UPDATE … RETURNING with [rows, affected].
      // docs/guides/token-exchange.md#withdrawal-cascades: with them, every token exchanged from them, recursively.
      const [rows]: [Withdrawn[], number] = await manager.query(
        `WITH RECURSIVE tree AS (
           SELECT d.id, d.jti FROM disclosure d WHERE d.id = ANY($1::bigint[])
           UNION SELECT d.id, d.jti FROM disclosure d JOIN tree t ON d.parent_jti = t.jti)
         UPDATE disclosure SET withdrawn_at = date_trunc('second', now()), withdrawn_by = $2
          WHERE id IN (SELECT id FROM tree) AND withdrawn_at IS NULL
            AND (id = ANY($1::bigint[]) OR expires_at > now())
          RETURNING jti, client_id, expires_at, status_list_id, status_idx`,
        [ids, auditEventId],
      );
      if (rows.length === 0) return 0;
      // The token's status list entry goes with it (docs/reference/status-lists.md): it reads 1 on every instance within a second.
      await revokeTokens(manager, rows.map(revocationOf));
      await countWithdrawnTokens(manager, auditEventId, rows.length);
      return rows;
    });
    if (withdrawn === 0) return 0;
    this.cascadeLate(
      withdrawn.map((row) => row.jti),
      auditEventId,
    );
    return withdrawn.length;
  }
}
