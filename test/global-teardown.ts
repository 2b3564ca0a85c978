import { rm } from 'node:fs/promises';
import type { RunningDatabase } from '../src/database/embedded-postgres.js';

export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as Record<string, unknown>).__EMBEDDED_POSTGRES__ as
    | { database: RunningDatabase; dataDir: string }
    | undefined;
  if (!embedded) return;
  await embedded.database.stop();
  await rm(embedded.dataDir, { recursive: true, force: true });
}
