import { generateClientSecret, hashClientSecret, verifyClientSecret } from './client-secrets.js';

describe('client secrets', () => {
  it('generates 256-bit base64url secrets', () => {
    const secret = generateClientSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateClientSecret()).not.toBe(secret);
  });

  it('stores a salted scrypt hash that verifies only the right secret', async () => {
    const hash = await hashClientSecret('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(hash).not.toContain('correct');
    expect(await verifyClientSecret('correct horse battery', hash)).toBe(true);
    expect(await verifyClientSecret('correct horse batterY', hash)).toBe(false);
    expect(await hashClientSecret('correct horse battery')).not.toBe(hash);
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    expect(await verifyClientSecret('x', 'plain-text')).toBe(false);
  });
});
