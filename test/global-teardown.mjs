import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const embedded = globalThis.__EMBEDDED_POSTGRES__;
  if (!embedded) return;
  await embedded.database.stop();
  await rm(embedded.dataDir, { recursive: true, force: true });
}
