import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { CertificateError } from './client-certificate.js';
import { readForwardedCertificate } from './forwarded-certificate.js';

let pem: string;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'forwarded-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=gw',
      '-keyout',
      join(dir, 'k.pem'),
      '-out',
      join(dir, 'c.pem'),
    ],
    { stdio: 'ignore' },
  );
  pem = readFileSync(join(dir, 'c.pem'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
});

describe('readForwardedCertificate', () => {
  it('reads URL-encoded PEM and RFC 9440 byte sequences to the same certificate', () => {
    const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const escaped = readForwardedCertificate(encodeURIComponent(pem))!;
    const sequence = readForwardedCertificate(`:${der.toString('base64')}:`)!;
    expect(escaped.der.equals(der)).toBe(true);
    expect(sequence.thumbprint).toBe(escaped.thumbprint);
  });

  it('takes an empty value for no certificate', () => {
    expect(readForwardedCertificate('')).toBeUndefined();
    expect(readForwardedCertificate('(null)')).toBeUndefined();
    expect(readForwardedCertificate('::')).toBeUndefined();
  });

  it('refuses two certificates joined by a comma', () => {
    expect(() => readForwardedCertificate(`${encodeURIComponent(pem)}, ${encodeURIComponent(pem)}`)).toThrow(CertificateError);
  });

  it('answers anything else with a certificate or a CertificateError, never another error', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        try {
          readForwardedCertificate(value);
        } catch (error) {
          expect(error).toBeInstanceOf(CertificateError);
        }
      }),
    );
  });
});
