import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** One nonce per 30 s step; the current and the previous step are accepted (30 to 60 s of life). */
export const NONCE_STEP_SECONDS = 30;
const SECRET_NAME = 'dpop-nonce';

/**
 * DPoP server nonces (RFC 9449 §8), as oidc-provider makes them: an HMAC of the time step
 * under a secret. The secret is generated once and kept in PostgreSQL, so every instance issues
 * and accepts the same nonces without talking to each other.
 */
@Injectable()
export class DpopNonces {
  private secret?: Promise<Buffer>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
      randomBytes(32).toString('base64url'),
    ]);
    const [row]: { value: string }[] = await this.dataSource.query('SELECT value FROM server_secret WHERE name = $1', [SECRET_NAME]);
    return Buffer.from(row!.value, 'base64url');
  }
}

function step(now: number): number {
  return Math.floor(now / 1000 / NONCE_STEP_SECONDS);
}

export function nonceFor(key: Buffer, timeStep: number): string {
  return createHmac('sha256', key).update(`dpop-nonce:${timeStep}`).digest('base64url');
}
