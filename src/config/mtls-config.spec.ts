import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './load-config.js';

// docs/guides/mtls.md#configuration: the start is refused, naming the variable, unless the
// certificate has one place to come from and the CA file holds certificates.
let dir: string;
let cert: string;
let key: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mtls-config-'));
  cert = join(dir, 'cert.pem');
  key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=ca', '-keyout', key, '-out', cert],
    {
      stdio: 'ignore',
    },
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (environment: NodeJS.ProcessEnv) => {
  try {
    loadConfig(environment);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('mutual TLS configuration', () => {
  it('is off by default', () => {
    expect(loadConfig({}).mtls).toBeUndefined();
  });

  it('takes native TLS', () => {
    expect(loadConfig({ MTLS: 'true', TLS_CERT_FILE: cert, TLS_KEY_FILE: key }).mtls).toEqual({ handshakeRate: 20 });
  });

  it('takes TLS_HANDSHAKE_RATE and refuses one that is not a positive whole number', () => {
    expect(loadConfig({ MTLS: 'true', TLS_CERT_FILE: cert, TLS_KEY_FILE: key, TLS_HANDSHAKE_RATE: '5' }).mtls?.handshakeRate).toBe(5);
    expect(refusal({ MTLS: 'true', TLS_CERT_FILE: cert, TLS_KEY_FILE: key, TLS_HANDSHAKE_RATE: '0' })).toMatch(/^TLS_HANDSHAKE_RATE/);
    expect(refusal({ MTLS: 'true', TLS_CERT_FILE: cert, TLS_KEY_FILE: key, TLS_HANDSHAKE_RATE: 'many' })).toMatch(/^TLS_HANDSHAKE_RATE/);
  });

  it('takes a proxy header from a trusted proxy, lower-cased', () => {
    expect(loadConfig({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'SSL-Client-Cert', TRUST_PROXY: 'loopback' }).mtls).toEqual({
      certificateHeader: 'ssl-client-cert',
      handshakeRate: 20,
    });
  });

  it('reads the CA file', () => {
    expect(loadConfig({ MTLS: 'true', TLS_CERT_FILE: cert, TLS_KEY_FILE: key, TLS_CLIENT_CA_FILE: cert }).mtls?.clientCa).toContain('BEGIN CERTIFICATE');
  });

  it('refuses MTLS=true with neither native TLS nor a proxy header', () => {
    expect(refusal({ MTLS: 'true' })).toMatch(/^MTLS=true needs TLS_CERT_FILE/);
  });

  it('refuses a proxy header with native TLS, without TRUST_PROXY or without MTLS', () => {
    expect(refusal({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'x-cert', TRUST_PROXY: '1', TLS_CERT_FILE: cert, TLS_KEY_FILE: key })).toMatch(
      /^MTLS_CLIENT_CERT_HEADER/,
    );
    expect(refusal({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'x-cert' })).toMatch(/^MTLS_CLIENT_CERT_HEADER needs TRUST_PROXY/);
    expect(refusal({ MTLS_CLIENT_CERT_HEADER: 'x-cert', TRUST_PROXY: 'loopback' })).toMatch(/^MTLS_CLIENT_CERT_HEADER needs MTLS=true/);
  });

  it('refuses a hop-count TRUST_PROXY with the certificate header, naming TRUST_PROXY (a hop count believes any peer)', () => {
    expect(refusal({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'x-cert', TRUST_PROXY: '1' })).toMatch(/^TRUST_PROXY must name the proxies/);
    expect(refusal({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'x-cert', TRUST_PROXY: '0' })).toMatch(/^TRUST_PROXY must name the proxies/);
    expect(refusal({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'x-cert', TRUST_PROXY: 'true' })).toMatch(/^TRUST_PROXY/);
  });

  it('refuses a header name that is none', () => {
    expect(refusal({ MTLS: 'true', MTLS_CLIENT_CERT_HEADER: 'x cert', TRUST_PROXY: 'loopback' })).toMatch(/MTLS_CLIENT_CERT_HEADER/);
  });

  it('refuses a CA file that is unreadable, holds no certificate, or comes without MTLS', () => {
    const tls = { MTLS: 'true', TLS_CERT_FILE: cert, TLS_KEY_FILE: key };
    expect(refusal({ ...tls, TLS_CLIENT_CA_FILE: join(dir, 'missing.pem') })).toMatch(/^TLS_CLIENT_CA_FILE cannot be read/);
    const empty = join(dir, 'empty.pem');
    writeFileSync(empty, 'no certificate here\n');
    expect(refusal({ ...tls, TLS_CLIENT_CA_FILE: empty })).toMatch(/^TLS_CLIENT_CA_FILE .* holds no PEM certificate/);
    expect(refusal({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key, TLS_CLIENT_CA_FILE: cert })).toMatch(/^TLS_CLIENT_CA_FILE needs MTLS=true/);
  });
});
