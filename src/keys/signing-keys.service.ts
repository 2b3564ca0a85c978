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

type KeyRow = { kid: string; alg: SigningAlgorithm; private_key: string; signs_from_ms: string; retired_at_ms: string | null; now_ms: string };

/** A rotation: the new key, and when it takes over (at once with `now`, else after SIGNING_KEY_PUBLISH_AHEAD). */
export type Rotation = { kid: string; signsFrom: Date };

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
  /** When the cached signing key must be looked up again: a published key takes over, or the current one retires (ms). */
  private currentUntil = Infinity;
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
    if (this.current && Date.now() >= this.currentUntil) this.current = undefined;
    if (!this.current) {
      this.currentUntil = Infinity;
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
      const signing: unknown[] = await manager.query('SELECT 1 FROM signing_key WHERE alg = $1 AND (retired_at IS NULL OR retired_at > now()) LIMIT 1', [alg]);
      if (signing.length === 0) await this.insertKey(manager, alg);
    });
  }

  /**
   * A new signing key, published in the JWKS at once and signing after SIGNING_KEY_PUBLISH_AHEAD
   * seconds (`now`: at once, for a compromised key), when the keys before it stop signing; they
   * stay in the JWKS until the tokens and status lists they signed have expired. With an `actor`,
   * the rotation is an audit event of the same transaction.
   */
  async rotate(alg: SigningAlgorithm = this.config.tokenSigningAlg, actor?: string, { now = false }: { now?: boolean } = {}): Promise<Rotation> {
    const ahead = now ? 0 : this.config.signingKeyPublishAhead;
    const rotation = await this.withKeyLock(async (manager) => {
      // Every key of the algorithm that signs now or is waiting to stops when the new one takes over.
      await manager.query(
        `UPDATE signing_key
            SET retired_at = now() + make_interval(secs => $3), verify_until = now() + make_interval(secs => $3 + $2),
                version = version + 1, last_updated = now()
          WHERE alg = $1 AND (retired_at IS NULL OR retired_at > now() + make_interval(secs => $3))`,
        [alg, this.verifyGraceSeconds(), ahead],
      );
      const kid = await this.insertKey(manager, alg, ahead);
      const [{ id, signs_from }]: { id: number; signs_from: Date }[] = await manager.query('SELECT id, signs_from FROM signing_key WHERE kid = $1', [kid]);
      if (actor !== undefined) {
        await recordAuditEvent(manager, {
          actor,
          operation: 'rotate',
          recordType: 'signing-key',
          recordId: id,
          before: null,
          after: { kid, alg, signsFrom: signs_from.toISOString() },
        });
      }
      return { kid, signsFrom: signs_from };
    });
    // This process signs with the new key from the next request on, without waiting for its own
    // notification to come back through the change feed (other processes hear of it that way).
    this.forget();
    return rotation;
  }

  /**
   * How long a key stays published after it stopped signing: the longest access token or status
   * list token it can have signed, plus a minute for clock skew.
   */
  private verifyGraceSeconds(): number {
    return Math.max(this.config.accessTokenTtl, 5 * this.config.statusListTtl, 60) + VERIFY_GRACE_SECONDS;
  }

  private async withKeyLock<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
      return work(manager);
    });
  }

  private async insertKey(manager: EntityManager, alg: SigningAlgorithm, aheadSeconds = 0): Promise<string> {
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
    if (aheadSeconds > 0) await manager.query('UPDATE signing_key SET signs_from = now() + make_interval(secs => $2) WHERE kid = $1', [kid, aheadSeconds]);
    return kid;
  }

  private forget(): void {
    this.current = undefined;
    this.jwks = undefined;
  }

  /**
   * The key that signs now: the newest whose time has come and that has not retired. Also notes
   * when that changes without a notification (a published key takes over, on schedule).
   */
  private async loadSigningKey(): Promise<SigningMaterial> {
    const rows: KeyRow[] = await this.dataSource.query(
      `SELECT kid, alg, private_key, (extract(epoch FROM signs_from) * 1000)::text AS signs_from_ms,
              (extract(epoch FROM retired_at) * 1000)::text AS retired_at_ms, (extract(epoch FROM now()) * 1000)::text AS now_ms
         FROM signing_key WHERE alg = $1 AND (retired_at IS NULL OR retired_at > now()) ORDER BY signs_from DESC, id DESC`,
      [this.config.tokenSigningAlg],
    );
    const dbNow = rows.length > 0 ? Number(rows[0].now_ms) : 0;
    const row = rows.find((candidate) => Number(candidate.signs_from_ms) <= dbNow);
    if (!row) throw new Error(`no ${this.config.tokenSigningAlg} signing key in the database`);
    // The next moment the answer changes, on this process's clock.
    const changes = rows.flatMap((candidate) => [Number(candidate.signs_from_ms), Number(candidate.retired_at_ms ?? Infinity)]).filter((at) => at > dbNow);
    if (changes.length > 0) this.currentUntil = Math.min(this.currentUntil, Date.now() + (Math.min(...changes) - dbNow));
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
