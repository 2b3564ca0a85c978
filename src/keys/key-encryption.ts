import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

/**
 * Signing keys (and the DPoP nonce secret) at rest: AES-256-GCM under a key derived (HKDF-SHA256)
 * from KEY_ENCRYPTION_SECRET. Stored as `enc:v1:<iv>:<tag>:<ciphertext>` (base64url); without a
 * secret, values are stored as they are (keys as PEM).
 */
export class KeyEncryption {
  private readonly key?: Buffer;

  constructor(secret: string | undefined) {
    if (secret) this.key = Buffer.from(hkdfSync('sha256', secret, 'signing-key-encryption', 'aes-256-gcm v1', 32));
  }

  get enabled(): boolean {
    return this.key !== undefined;
  }

  static isEncrypted(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  seal(pem: string): string {
    if (!this.key) return pem;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(pem, 'utf8'), cipher.final()]);
    return PREFIX + [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join(':');
  }

  /** The clear value; throws a one-line error, naming `what`, when it is sealed and the secret is missing or wrong. */
  open(stored: string, what = 'signing keys'): string {
    if (!KeyEncryption.isEncrypted(stored)) return stored;
    if (!this.key) throw new Error(`the ${what} ${what.endsWith('s') ? 'are' : 'is'} encrypted: set KEY_ENCRYPTION_SECRET`);
    const [iv, tag, ciphertext] = stored
      .slice(PREFIX.length)
      .split(':')
      .map((part) => Buffer.from(part, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`KEY_ENCRYPTION_SECRET does not decrypt the stored ${what}`);
    }
  }
}
