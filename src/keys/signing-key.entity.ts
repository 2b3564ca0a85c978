import { Column, Entity } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import type { SigningAlgorithm } from '../config/app-config.js';

/** A token signing key. The newest unretired key of an algorithm signs; others only verify. */
@Entity({ name: 'signing_key' })
export class SigningKey extends RecordEntity {
  @Column({ type: 'varchar', length: 64, unique: true })
  kid!: string;

  @Column({ type: 'varchar', length: 8 })
  alg!: SigningAlgorithm;

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk!: Record<string, string>;

  /** PKCS#8 PEM. */
  @Column({ name: 'private_key', type: 'text', select: false })
  privateKey!: string;

  /** When it starts signing: a rotated key is published this long before (SIGNING_KEY_PUBLISH_AHEAD). */
  @Column({ name: 'signs_from', type: 'timestamptz', default: () => 'now()' })
  signsFrom!: Date;

  /** Set by rotation: when the key stops signing. */
  @Column({ name: 'retired_at', type: 'timestamptz', nullable: true })
  retiredAt!: Date | null;

  /** After this, no token it signed is alive: it leaves the JWKS. */
  @Column({ name: 'verify_until', type: 'timestamptz', nullable: true })
  verifyUntil!: Date | null;
}
