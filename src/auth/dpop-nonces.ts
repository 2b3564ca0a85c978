import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { KeyEncryption } from '../keys/key-encryption.js';

/** One nonce per 30 s step; the current and the previous step are accepted (30 to 60 s of life). */
export const NONCE_STEP_SECONDS = 30;
const SECRET_NAME = 'dpop-nonce';

/**
 * DPoP server nonces (RFC 9449 §8), as oidc-provider makes them: an HMAC of the time step
 * under a secret. The secret is generated once and kept in PostgreSQL, so every instance issues
 * and accepts the same nonces without talking to each other. With KEY_ENCRYPTION_SECRET set it
 * is stored sealed like the signing keys, and a secret stored in clear by an earlier start is
 * sealed on first use (docs/operations/database.md).
 */
@Injectable()
export class DpopNonces {
  private secret?: Promise<Buffer>;
  private readonly encryption: KeyEncryption;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'keyEncryptionSecret'>,
  ) {
    this.encryption = new KeyEncryption(config.keyEncryptionSecret);
  }

  async current(now = Date.now()): Promise<string> {
    return nonceFor(await this.key(), step(now));
  }

  async isValid(nonce: string, now = Date.now()): Promise<boolean> {
    const key = await this.key();
    const given = Buffer.from(nonce);
    return [step(now), step(now) - 1].some((candidate) => {
      const expected = Buffer.from(nonceFor(key, candidate));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private key(): Promise<Buffer> {
    if (!this.secret) {
      this.secret = this.loadSecret();
      this.secret.catch(() => (this.secret = undefined));
    }
    return this.secret;
  }

  // The first instance to start writes the secret; the others (and later starts) read it.
  private async loadSecret(): Promise<Buffer> {
    await this.dataSource.query('INSERT INTO server_secret (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      SECRET_NAME,
      this.encryption.seal(randomBytes(32).toString('base64url')),
    ]);
    const [row]: { value: string }[] = await this.dataSource.query('SELECT value FROM server_secret WHERE name = $1', [SECRET_NAME]);
    const secret = this.encryption.open(row.value, 'DPoP nonce secret');
    if (this.encryption.enabled && !KeyEncryption.isEncrypted(row.value)) await this.seal(row.value);
    return Buffer.from(secret, 'base64url');
  }

  // Only while the row still holds the clear value: instances starting together seal it once.
  private async seal(plain: string): Promise<void> {
    await this.dataSource.query('UPDATE server_secret SET value = $3 WHERE name = $1 AND value = $2', [SECRET_NAME, plain, this.encryption.seal(plain)]);
  }
}

function step(now: number): number {
  return Math.floor(now / 1000 / NONCE_STEP_SECONDS);
}

export function nonceFor(key: Buffer, timeStep: number): string {
  return createHmac('sha256', key).update(`dpop-nonce:${timeStep}`).digest('base64url');
}
