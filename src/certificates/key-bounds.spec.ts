import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyOutOfBounds } from './key-bounds.js';

/** A self-signed certificate over a key openssl makes with these `-newkey`/`-pkeyopt` arguments. */
function certificate(...keyArguments: string[]): X509Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'key-bounds-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', ...keyArguments, '-nodes', '-days', '1', '-subj', '/CN=c', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')],
      { stdio: 'ignore' },
    );
    return new X509Certificate(readFileSync(join(dir, 'c.pem')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('keyOutOfBounds', () => {
  it('takes an RSA key of 2048 bits with exponent 65537, P-256 and Ed25519', () => {
    expect(keyOutOfBounds(certificate('-newkey', 'rsa:2048'))).toBeUndefined();
    expect(keyOutOfBounds(certificate('-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'))).toBeUndefined();
    expect(keyOutOfBounds(certificate('-newkey', 'ed25519'))).toBeUndefined();
  });

  it('refuses an RSA exponent other than 65537', () => {
    expect(keyOutOfBounds(certificate('-newkey', 'rsa:2048', '-pkeyopt', 'rsa_keygen_pubexp:3'))).toMatch(/exponent is not 65537/);
  });

  it('refuses an EC key off P-256, P-384 and P-521', () => {
    expect(keyOutOfBounds(certificate('-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp256k1'))).toMatch(/not on P-256/);
  });
});
