import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from './configuration-error.js';
import type { AppConfig } from './app-config.js';

export type AdminToken = { token: string; source: string };

/**
 * ADMIN_TOKEN, else ADMIN_TOKEN_FILE, else (embedded mode only) a token generated once and kept
 * in DATA_DIR/admin-token with mode 0600. With DATABASE_URL and no token: refuse to start.
 */
export async function resolveAdminToken(config: AppConfig): Promise<AdminToken> {
  if (config.adminToken) return { token: config.adminToken, source: 'ADMIN_TOKEN' };
  if (config.adminTokenFile) {
    const token = await readFile(config.adminTokenFile, 'utf8').then(
      (text) => text.trim(),
      () => {
        throw new ConfigurationError(`ADMIN_TOKEN_FILE names a file that cannot be read (${config.adminTokenFile})`);
      },
    );
    if (!/^\S+$/.test(token)) throw new ConfigurationError('ADMIN_TOKEN_FILE must hold one token without white space');
    return { token, source: config.adminTokenFile };
  }
  if (config.databaseUrl) {
    throw new ConfigurationError('ADMIN_TOKEN or ADMIN_TOKEN_FILE must be set when DATABASE_URL is set');
  }
  const file = join(config.dataDir, 'admin-token');
  if (!existsSync(file)) {
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600 });
  }
  await chmod(file, 0o600);
  return { token: (await readFile(file, 'utf8')).trim(), source: file };
}
