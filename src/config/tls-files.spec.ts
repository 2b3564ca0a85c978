import { TLS12_CIPHERS, TLS13_CIPHERS } from './tls-ciphers.js';
import { parseTlsCiphers } from './tls-files.js';
import { ConfigurationError } from './configuration-error.js';

describe('parseTlsCiphers (TLS_CIPHERS)', () => {
  it('offers every allowed suite when unset: Node’s TLS 1.3 suites and TLS 1.2 ECDHE with AES-GCM or ChaCha20-Poly1305', () => {
    expect(parseTlsCiphers(undefined)).toBe([...TLS13_CIPHERS, ...TLS12_CIPHERS].join(':'));
    for (const name of TLS12_CIPHERS) expect(name).toMatch(/^ECDHE-(ECDSA|RSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$/);
  });

  it('narrows each TLS version to the suites named for it, in the server’s order, and keeps the other version whole', () => {
    expect(parseTlsCiphers('ECDHE-RSA-AES128-GCM-SHA256, ECDHE-ECDSA-AES256-GCM-SHA384')).toBe(
      [...TLS13_CIPHERS, 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES128-GCM-SHA256'].join(':'),
    );
    expect(parseTlsCiphers('TLS_AES_256_GCM_SHA384')).toBe(['TLS_AES_256_GCM_SHA384', ...TLS12_CIPHERS].join(':'));
  });

  it.each(['AES128-SHA', 'ECDHE-RSA-AES128-SHA', 'AES256-SHA256', 'DHE-RSA-AES128-GCM-SHA256', 'ALL', 'HIGH:!aNULL', 'ECDHE-RSA-AES128-GCM-SHA256:AES128-SHA'])(
    'refuses TLS_CIPHERS=%s with one line naming the variable and the suite',
    (value) => {
      expect(() => parseTlsCiphers(value)).toThrow(ConfigurationError);
      expect(() => parseTlsCiphers(value)).toThrow(/^TLS_CIPHERS may name only [^\n]+ \(got "[^"\n]+"\)$/);
    },
  );

  it.each([' ', ':', ', ,'])('refuses a TLS_CIPHERS that names no suite (%j)', (value) => {
    expect(() => parseTlsCiphers(value)).toThrow(/^TLS_CIPHERS must name at least one cipher suite$/);
  });
});
