import { recordAuditEvent } from '../audit/audit-trail.js';
import { generateKeyPair, createPrivateKey, createPublicKey, createHash, type KeyObject } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig, type SigningAlgorithm } from '../config/app-config.js';
import { ChangeFeed } from '../database/change-feed.js';
import { KeyEncryption } from './key-encryption.js';
import { SigningKey } from './signing-key.entity.js';
import { publicJwkOf, type PublicJwk, type SigningMaterial } from './token-signer.js';

// Rotation keeps a retired key this much longer than the longest token it signed, for clock skew.
const VERIFY_GRACE_SECONDS = 60;
const KEY_LOCK = 7_203_115;

type PublishedKey = { jwk: PublicJwk; verifyUntil: number | null };

type KeyRow = { kid: string; alg: SigningAlgorithm; private_key: string };

/**
 * Signing keys live in the database (created on first start, rotated by `keys rotate`), and are
 * cached per process; the change feed reloads them on any change from any process.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit {
  private readonly imported = new Map<string, KeyObject>();
  private readonly publicImported = new Map<string, { key: KeyObject; alg: SigningAlgorithm }>();
  private readonly encryption: KeyEncryption;
  private current?: Promise<SigningMaterial>;
  private jwks?: Promise<PublishedKey[]>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: ChangeFeed,
  ) {
    this.encryption = new KeyEncryption(config.keyEncryptionSecret);
    changes.subscribe((table) => {
      if (table === undefined || table === 'signing_key') this.forget();
    });
  }

  async onModuleInit(): Promise<void> {
    await this.ensureKey(this.config.tokenSigningAlg);
    if (this.encryption.enabled) await this.sealPlainKeys();
    // Fails the start with one clear line when the keys cannot be decrypted.
    await this.loadSigningKey();
  }

  /** The public key with this kid, if it can still verify a live token (introspection). */
  async verificationKey(kid: string): Promise<{ key: KeyObject; alg: SigningAlgorithm } | undefined> {
    const published = (await this.publicKeys()).find((jwk) => jwk.kid === kid);
    if (!published) return undefined;
    let entry = this.publicImported.get(kid);
    if (!entry) {
      entry = { key: createPublicKey({ key: published, format: 'jwk' }), alg: published.alg as SigningAlgorithm };
      this.publicImported.set(kid, entry);
    }
    return entry;
  }

  /** KEY_ENCRYPTION_SECRET set on a database whose keys were stored in clear: seal them now. */
  private async sealPlainKeys(): Promise<void> {
    await this.withKeyLock(async (manager) => {
      const rows: { id: number; private_key: string }[] = await manager.query(`SELECT id, private_key FROM signing_key WHERE private_key NOT LIKE 'enc:%'`);
      for (const row of rows) {
        await manager.query('UPDATE signing_key SET private_key = $2 WHERE id = $1', [row.id, this.encryption.seal(row.private_key)]);
      }
    });
  }

  /** The key that signs new tokens with the configured algorithm. */
  signingKey(): Promise<SigningMaterial> {
    if (!this.changes.live) return this.loadSigningKey();
    if (!this.current) {
      this.current = this.loadSigningKey();
      this.current.catch(() => this.forget());
    }
    return this.current;
  }

  /** Every key that can still verify a live token. */
  async publicKeys(): Promise<PublicJwk[]> {
    let published = this.changes.live ? this.jwks : undefined;
    if (!published) {
      published = this.loadPublicKeys();
      if (this.changes.live) {
        this.jwks = published;
        published.catch(() => this.forget());
      }
    }
    // A cached list outlives keys whose last tokens expire meanwhile: filter on every read.
    const now = Date.now();
    return (await published).filter((key) => key.verifyUntil === null || key.verifyUntil > now).map((key) => key.jwk);
  }

  /** Creates a key for `alg` if none signs yet (first start, or a changed TOKEN_SIGNING_ALG). */
  async ensureKey(alg: SigningAlgorithm): Promise<void> {
    await this.withKeyLock(async (manager) => {
      const signing: unknown[] = await manager.query('SELECT 1 FROM signing_key WHERE alg = $1 AND retired_at IS NULL LIMIT 1', [alg]);
      if (signing.length === 0) await this.insertKey(manager, alg);
    });
  }

  /**
   * A new signing key; the previous ones stay in the JWKS until their tokens have expired. With
   * an `actor`, the rotation is an audit event of the same transaction.
   */
  async rotate(alg: SigningAlgorithm = this.config.tokenSigningAlg, actor?: string): Promise<string> {
    const kid = await this.withKeyLock(async (manager) => {
      await manager.query(
        `UPDATE signing_key
            SET retired_at = now(), verify_until = now() + make_interval(secs => $2),
                version = version + 1, last_updated = now()
          WHERE alg = $1 AND retired_at IS NULL`,
        [alg, this.config.accessTokenTtl + VERIFY_GRACE_SECONDS],
      );
      const kid = await this.insertKey(manager, alg);
      if (actor !== undefined) {
        const [{ id }]: { id: number }[] = await manager.query('SELECT id FROM signing_key WHERE kid = $1', [kid]);
        await recordAuditEvent(manager, { actor, operation: 'rotate', recordType: 'signing-key', recordId: id, before: null, after: { kid, alg } });
      }
      return kid;
    });
    // This process signs with the new key from the next request on, without waiting for its own
    // notification to come back through the change feed (other processes hear of it that way).
    this.forget();
    return kid;
  }

  private async withKeyLock<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
      return work(manager);
    });
  }

  private async insertKey(manager: EntityManager, alg: SigningAlgorithm): Promise<string> {
    const privateKey = await generatePrivateKey(alg);
    const pem = this.encryption.seal(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    const kid = keyIdOf(privateKey);
    await manager.insert(SigningKey, {
      kid,
      alg,
      privateKey: pem,
      publicJwk: publicJwkOf(privateKey, kid, alg),
      retiredAt: null,
      verifyUntil: null,
    });
    return kid;
  }

  private forget(): void {
    this.current = undefined;
    this.jwks = undefined;
  }

  private async loadSigningKey(): Promise<SigningMaterial> {
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT kid, alg, private_key FROM signing_key
        WHERE alg = $1 AND retired_at IS NULL ORDER BY id DESC LIMIT 1`,
      [this.config.tokenSigningAlg],
    );
    const row = rows[0];
    if (!row) throw new Error(`no ${this.config.tokenSigningAlg} signing key in the database`);
    let privateKey = this.imported.get(row.kid);
    if (!privateKey) {
      privateKey = createPrivateKey(this.encryption.open(row.private_key));
      this.imported.set(row.kid, privateKey);
    }
    return { kid: row.kid, alg: row.alg, privateKey };
  }

  private async loadPublicKeys(): Promise<PublishedKey[]> {
    const rows: { public_jwk: PublicJwk; verify_until: Date | null }[] = await this.dataSource.query(
      `SELECT public_jwk, verify_until FROM signing_key
        WHERE verify_until IS NULL OR verify_until > now() ORDER BY id DESC`,
    );
    return rows.map((row) => ({ jwk: row.public_jwk, verifyUntil: row.verify_until?.getTime() ?? null }));
  }
}

function generatePrivateKey(alg: SigningAlgorithm): Promise<KeyObject> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, _publicKey: KeyObject, privateKey: KeyObject) => (error ? reject(error) : resolve(privateKey));
    if (alg === 'ES256') generateKeyPair('ec', { namedCurve: 'P-256' }, done);
    else if (alg === 'EdDSA') generateKeyPair('ed25519', {}, done);
    else generateKeyPair('rsa', { modulusLength: 2048 }, done);
  });
}

/** RFC 7638 JWK thumbprint of the public key: stable, and says nothing secret. */
function keyIdOf(privateKey: KeyObject): string {
  const jwk = publicJwkOf(privateKey, '', 'RS256');
  const members =
    jwk.kty === 'EC'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
      : jwk.kty === 'OKP'
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
        : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
