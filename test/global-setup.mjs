// Runs outside Jest's module system, so it uses the compiled code (`npm test` builds first).
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../dist/src/database/database-runtime.js';
import { buildDataSourceOptions } from '../dist/src/database/typeorm-options.js';
import { ENTITIES } from '../dist/src/entities.js';

/**
 * One PostgreSQL for the whole run: DATABASE_URL when given, else an embedded server in a
 * throwaway folder under the system temp dir (reachable by the postgres user even when the
 * checkout is not). The real migrations build the schema, as at server start.
 */
export default async function globalSetup() {
  let url = process.env.DATABASE_URL;
  if (!url) {
    const dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-test-'));
    await chmod(dataDir, 0o755); // the postgres user must be able to enter it
    const database = await startEmbeddedPostgres({ dataDir, durable: false });
    url = database.url;
    globalThis.__EMBEDDED_POSTGRES__ = { database, dataDir };
  }
  process.env.TEST_DATABASE_URL = url;
  const dataSource = await new DataSource(buildDataSourceOptions(url, ENTITIES)).initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();
}
