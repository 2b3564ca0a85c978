import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runEvery } from '../common/run-every.js';

const RUN_EVERY_MS = 60 * 60 * 1000;
const RETIREMENT_LOCK = 0x73746c72;

/**
 * Deletes retired status lists (docs/reference/status-lists.md#storage): no longer the open list,
 * and every token naming them expired. At start, then hourly, one instance at a time.
 */
@Injectable()
export class StatusListRetirement implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(StatusListRetirement.name);
  private stop?: () => void;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.stop = runEvery(RUN_EVERY_MS, () => this.prune(), {
      now: true,
      onError: (error) => this.logger.warn(`retired status lists were not deleted: ${error.message}`),
    });
  }

  onModuleDestroy(): void {
    this.stop?.();
  }

  /** Answers how many lists were deleted; 0 when another instance holds the job. */
  async prune(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [{ locked }]: { locked: boolean }[] = await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [RETIREMENT_LOCK]);
      if (!locked) return 0;
      const [, deleted]: [unknown[], number] = await manager.query(
        `DELETE FROM status_list WHERE max_expires_at < now() AND id <> (SELECT max(id) FROM status_list)`,
      );
      return deleted;
    });
  }
}
