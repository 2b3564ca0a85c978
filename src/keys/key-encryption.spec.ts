import { KeyEncryption } from './key-encryption.js';

const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';

describe('KeyEncryption', () => {
  it('seals and opens a key with the same secret, never leaving the PEM readable', () => {
    const encryption = new KeyEncryption('a long operator secret');
    const sealed = encryption.seal(pem);
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(encryption.open(sealed)).toBe(pem);
    expect(encryption.seal(pem)).not.toBe(sealed);
  });

  it('refuses a wrong secret with one clear line', () => {
    const sealed = new KeyEncryption('right').seal(pem);
    expect(() => new KeyEncryption('wrong').open(sealed)).toThrow('KEY_ENCRYPTION_SECRET does not decrypt the stored signing keys');
  });

  it('asks for the secret when the keys are sealed and none is set', () => {
    const sealed = new KeyEncryption('right').seal(pem);
    expect(() => new KeyEncryption(undefined).open(sealed)).toThrow('set KEY_ENCRYPTION_SECRET');
  });

  it('stores and reads plain PEM without a secret', () => {
    const plain = new KeyEncryption(undefined);
    expect(plain.seal(pem)).toBe(pem);
    expect(plain.open(pem)).toBe(pem);
  });
});
