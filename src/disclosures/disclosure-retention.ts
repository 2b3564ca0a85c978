import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type QueryRunner } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { runEvery } from '../common/run-every.js';
import { COMMIT_ORDER_LOCK } from './disclosures.service.js';

const RUN_EVERY_MS = 60 * 60 * 1000;
// Rows per DELETE: short statements, so the job never holds many locks for long.
const BATCH = 10_000;
const RETENTION_LOCK = 0x72657465;

/**
 * Deletes disclosures whose token expired more than DISCLOSURE_RETENTION_DAYS ago, and the bases
 * no disclosure names any more: at start, then hourly; one instance at a time (an advisory lock), in short batches.
 */
@Injectable()
export class DisclosureRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DisclosureRetention.name);
  private stopPruning?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    this.stopPruning = runEvery(RUN_EVERY_MS, () => this.prune(), {
      now: true,
      onError: (error) => this.logger.warn(`disclosure retention did not run: ${error.message}`),
    });
  }

  onModuleDestroy(): void {
    this.stopPruning?.();
  }

  /** Answers how many disclosures were deleted; 0 when another instance holds the job. */
  async prune(): Promise<number> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [RETENTION_LOCK])) as { locked: boolean }[];
      if (!locked) return 0;
      try {
        const cutoff = `now() - make_interval(days => ${this.config.disclosureRetentionDays})`;
        // A token is issued before it expires, so the rows to delete lie in the `issued_at` index's
        // range below the cutoff (no index of the disclosure table leads with `expires_at`: each
        // index costs every token's write).
        let deleted = 0;
        for (;;) {
          const [{ count, bases }] = (await runner.query(
            `WITH gone AS (
               DELETE FROM disclosure WHERE id IN (SELECT id FROM disclosure WHERE issued_at < ${cutoff} AND expires_at < ${cutoff} LIMIT ${BATCH})
               RETURNING basis
             )
             SELECT count(*)::int AS count, coalesce(array_agg(DISTINCT basis::text), '{}') AS bases FROM gone`,
          )) as { count: number; bases: string[] }[];
          deleted += count;
          await this.dropUnnamedBases(runner, bases);
          if (count < BATCH) return deleted;
        }
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * Removes those of `keys` that no disclosure names any more. The commit-order lock is taken first,
   * in a statement of its own, so the DELETE's snapshot sees every batch committed before it and no
   * batch commits a row naming one of them meanwhile.
   */
  private async dropUnnamedBases(runner: QueryRunner, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await runner.startTransaction();
    try {
      await runner.query('SELECT pg_advisory_xact_lock($1)', [COMMIT_ORDER_LOCK]);
      await runner.query('DELETE FROM disclosure_basis b WHERE b.key = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM disclosure d WHERE d.basis = b.key)', [
        keys,
      ]);
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    }
  }
}
