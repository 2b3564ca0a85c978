// Runs outside Jest's module system, so it uses the compiled code (`npm test` builds first).
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { startEmbeddedPostgres } from '../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../dist/src/database/database-runtime.js';
import { buildDataSourceOptions } from '../dist/src/database/typeorm-options.js';
import { ENTITIES } from '../dist/src/entities.js';

/**
 * One PostgreSQL for the whole run: DATABASE_URL when given, else an embedded server in a
 * throwaway folder under the system temp dir (reachable by the postgres user even when the
 * checkout is not). The real migrations build the schema, as at server start.
 *
 * Jest runs suites in parallel workers; each worker gets a database of its own, a copy of the
 * migrated one (`<name>_w<worker>`, test/support/test-app.ts picks it by JEST_WORKER_ID), so that
 * suites which count rows or expect an empty table never see another worker's writes.
 */
export default async function globalSetup(globalConfig) {
  let url = process.env.DATABASE_URL;
  if (!url) {
    const dataDir = await mkdtemp(join(tmpdir(), 'authorization-server-test-'));
    await chmod(dataDir, 0o755); // the postgres user must be able to enter it
    // Parallel workers each run servers (and server processes with WORKERS=2) with pools of their own.
    const database = await startEmbeddedPostgres({ dataDir, durable: false, maxConnections: 400 });
    url = database.url;
    globalThis.__EMBEDDED_POSTGRES__ = { database, dataDir };
  }
  process.env.TEST_DATABASE_URL = url;
  const dataSource = await new DataSource(buildDataSourceOptions(url, ENTITIES)).initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();
  process.env.TEST_DATABASE_WORKERS = String(await createWorkerDatabases(url, globalConfig.maxWorkers));
}

/** `<name>_w1` … `<name>_wN`, copies of the migrated database; answers N (0 when the role may not create databases). */
async function createWorkerDatabases(url, workers) {
  if (!(workers > 1)) return 0;
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  // A template must have no session open: the copies are made from another database.
  const maintenance = new URL(url);
  maintenance.pathname = name === 'postgres' ? '/template1' : '/postgres';
  const admin = new pg.Client({ connectionString: maintenance.toString() });
  await admin.connect();
  try {
    for (let worker = 1; worker <= workers; worker += 1) {
      const copy = `${name}_w${worker}`;
      await admin.query(`DROP DATABASE IF EXISTS "${copy}"`);
      await admin.query(`CREATE DATABASE "${copy}" TEMPLATE "${name}"`);
    }
    return workers;
  } catch (error) {
    console.warn(`test databases per worker could not be made (${error.message}): every worker uses ${name}`);
    return 0;
  } finally {
    await admin.end();
  }
}
