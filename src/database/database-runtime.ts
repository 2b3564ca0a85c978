import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { startEmbeddedPostgres, type RunningDatabase } from './embedded-postgres.js';

/**
 * DATABASE_URL when given; otherwise the embedded PostgreSQL under DATA_DIR. A server passes
 * `takeOver`: an embedded cluster left running by a server killed without its stop becomes its own.
 */
export function openDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir'>,
  log?: (line: string) => void,
  options: { takeOver?: boolean } = {},
): Promise<RunningDatabase> {
  if (config.databaseUrl) {
    return Promise.resolve({ url: config.databaseUrl, stop: () => Promise.resolve() });
  }
  return startEmbeddedPostgres({ dataDir: config.dataDir, log, takeOver: options.takeOver });
}

// Any constant: instances starting together take turns running migrations.
const MIGRATION_LOCK = 7_203_114;

/** Runs pending migrations, one instance at a time. */
export async function runMigrations(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'all' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
