import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type QueryRunner } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { runEvery } from '../common/run-every.js';

const RUN_EVERY_MS = 60 * 60 * 1000;
// Rows per DELETE: short statements, so the job never holds many locks for long.
const BATCH = 10_000;
const RETENTION_LOCK = 0x72657465;

/**
 * Deletes disclosures whose token expired more than DISCLOSURE_RETENTION_DAYS ago, with their
 * basis rows: at start, then hourly; one instance at a time (an advisory lock), in short batches.
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
        // range below the cutoff (the disclosure table has no `expires_at` index: each index costs
        // every token's write); the basis rows go in the same statement.
        const deleted = await this.inBatches(
          runner,
          `WITH gone AS (
             DELETE FROM disclosure WHERE id IN (SELECT id FROM disclosure WHERE issued_at < ${cutoff} AND expires_at < ${cutoff} LIMIT ${BATCH}) RETURNING id
           ), basis AS (DELETE FROM disclosure_basis WHERE disclosure_id IN (SELECT id FROM gone))
           SELECT count(*)::int AS count FROM gone`,
        );
        return deleted;
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  private async inBatches(runner: QueryRunner, sql: string): Promise<number> {
    let total = 0;
    for (;;) {
      const [{ count }] = (await runner.query(sql)) as { count: number }[];
      total += count;
      if (count < BATCH) return total;
    }
  }
}
