import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { udapServerCertificate, type UdapServerFiles } from '../support/udap-anchors.js';

// docs/reference/trust-communities.md#discovery: UDAP=true needs UDAP_CERT_FILE and UDAP_KEY_FILE,
// checked at start; each refusal is one line naming the variable (src/config/udap-files.ts).
const ISSUER = 'https://udap-as.example.org';
const DAY = 86_400_000;

let dir: string;
let good: UdapServerFiles;
let files: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'udap-files-'));
  const [valid, otherKey, wrongSan, expired, notYetValid, smallKey] = await Promise.all([
    udapServerCertificate([ISSUER]),
    udapServerCertificate([ISSUER]),
    udapServerCertificate(['https://another-server.example.org', `${ISSUER}/`, `${ISSUER}/fhir`]),
    udapServerCertificate([ISSUER], { notBefore: Date.now() - 30 * DAY, notAfter: Date.now() - DAY }),
    udapServerCertificate([ISSUER], { notBefore: Date.now() + DAY, notAfter: Date.now() + 30 * DAY }),
    udapServerCertificate([ISSUER], { bits: 1024 }),
  ]);
  good = valid;
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  files = {
    chain: write('chain.pem', valid.chain),
    key: write('key.pem', valid.key),
    otherKey: write('other-key.pem', otherKey.key),
    wrongSan: write('wrong-san.pem', wrongSan.chain),
    wrongSanKey: write('wrong-san-key.pem', wrongSan.key),
    expired: write('expired.pem', expired.chain),
    expiredKey: write('expired-key.pem', expired.key),
    notYetValid: write('not-yet-valid.pem', notYetValid.chain),
    notYetValidKey: write('not-yet-valid-key.pem', notYetValid.key),
    smallChain: write('small.pem', smallKey.chain),
    smallKey: write('small-key.pem', smallKey.key),
    notPem: write('not-pem.txt', 'hello'),
    ecKey: write('ec-key.pem', generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
  };
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { PORT: '3000', ADMIN_PORT: '3001', ISSUER };

function refusal(environment: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...environment });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('UDAP_CERT_FILE and UDAP_KEY_FILE', () => {
  it("reads the chain, leaf first, as signed_metadata's x5c, and the leaf's key", () => {
    const config = loadConfig({ ...base, UDAP: 'true', UDAP_CERT_FILE: files.chain, UDAP_KEY_FILE: files.key });
    expect(config.udapServerCertificate?.x5c).toHaveLength(2);
    expect(config.udapServerCertificate?.key.asymmetricKeyType).toBe('rsa');
    expect(good.chain).toContain(config.udapServerCertificate!.x5c[0].slice(0, 64));
  });

  it('are not needed with UDAP off', () => {
    expect(loadConfig(base).udapServerCertificate).toBeUndefined();
  });

  it('are not needed by the command line, which never serves discovery', () => {
    expect(loadConfig({ ...base, UDAP: 'true' }, { forCli: true }).udap).toBe(true);
  });

  it.each([
    ['UDAP_CERT_FILE', 'UDAP=true without UDAP_CERT_FILE', () => ({ UDAP: 'true', UDAP_KEY_FILE: files.key }), 'UDAP=true needs UDAP_CERT_FILE'],
    ['UDAP_KEY_FILE', 'UDAP=true without UDAP_KEY_FILE', () => ({ UDAP: 'true', UDAP_CERT_FILE: files.chain }), 'UDAP=true needs UDAP_KEY_FILE'],
    ['UDAP_CERT_FILE', 'UDAP_CERT_FILE with UDAP off', () => ({ UDAP_CERT_FILE: files.chain, UDAP_KEY_FILE: files.key }), 'UDAP_CERT_FILE needs UDAP=true'],
    ['UDAP_KEY_FILE', 'UDAP_KEY_FILE with UDAP off', () => ({ UDAP_KEY_FILE: files.key }), 'UDAP_KEY_FILE needs UDAP=true'],
    [
      'UDAP_CERT_FILE',
      'a certificate file that does not exist',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: join(dir, 'missing.pem'), UDAP_KEY_FILE: files.key }),
      'cannot be read',
    ],
    [
      'UDAP_KEY_FILE',
      'a key file that does not exist',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.chain, UDAP_KEY_FILE: join(dir, 'missing.pem') }),
      'cannot be read',
    ],
    [
      'UDAP_CERT_FILE',
      'a certificate file without PEM',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.notPem, UDAP_KEY_FILE: files.key }),
      'holds no PEM certificate',
    ],
    [
      'UDAP_CERT_FILE',
      'a leaf without the issuer as SAN URI',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.wrongSan, UDAP_KEY_FILE: files.wrongSanKey }),
      `no subjectAltName URI equal to the issuer ${ISSUER}`,
    ],
    ['UDAP_CERT_FILE', 'an expired leaf', () => ({ UDAP: 'true', UDAP_CERT_FILE: files.expired, UDAP_KEY_FILE: files.expiredKey }), 'has expired'],
    [
      'UDAP_CERT_FILE',
      'a leaf not yet valid',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.notYetValid, UDAP_KEY_FILE: files.notYetValidKey }),
      'is not yet valid',
    ],
    [
      'UDAP_KEY_FILE',
      'a key file without a key',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.chain, UDAP_KEY_FILE: files.notPem }),
      'not a readable PEM private key',
    ],
    [
      'UDAP_KEY_FILE',
      'the key of another certificate',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.chain, UDAP_KEY_FILE: files.otherKey }),
      "not the private key of the certificate's leaf",
    ],
    [
      'UDAP_KEY_FILE',
      'an RSA key under 2048 bits',
      () => ({ UDAP: 'true', UDAP_CERT_FILE: files.smallChain, UDAP_KEY_FILE: files.smallKey }),
      'at least 2048 bits',
    ],
    ['UDAP_KEY_FILE', 'an EC key', () => ({ UDAP: 'true', UDAP_CERT_FILE: files.chain, UDAP_KEY_FILE: files.ecKey }), 'must be an RSA key'],
  ])('refuses to start, naming %s, for %s', (variable, _case, environment, detail) => {
    const message = refusal(environment());
    expect(message.startsWith(variable) || message.startsWith('UDAP=true')).toBe(true);
    expect(message).toContain(variable);
    expect(message).toContain(detail);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('PRIVATE KEY');
  });
});
