import { rm } from 'node:fs/promises';
import pg from 'pg';

export default async function globalTeardown() {
  const embedded = globalThis.__EMBEDDED_POSTGRES__;
  if (!embedded) return dropWorkerDatabases(process.env.TEST_DATABASE_URL, Number(process.env.TEST_DATABASE_WORKERS ?? 0));
  await embedded.database.stop();
  await rm(embedded.dataDir, { recursive: true, force: true });
}

/** On a DATABASE_URL server, the workers' copies (global-setup.mjs) go at the end of the run. */
async function dropWorkerDatabases(url, workers) {
  if (!url || !(workers > 0)) return;
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (let worker = 1; worker <= workers; worker += 1) await admin.query(`DROP DATABASE IF EXISTS "${name}_w${worker}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
