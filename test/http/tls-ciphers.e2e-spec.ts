import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, startServerProcess } from '../support/processes.js';
import { freePorts, startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { localhostCertificate, run } from '../support/certificates.js';

// The public listener's TLS suites (docs/operations/tls.md#cipher-suites): TLS 1.2 only with ECDHE
// and AES-GCM or ChaCha20-Poly1305, TLS 1.3 as Node ships it; TLS_CIPHERS narrows them. And under
// native TLS, HSTS on every response whatever X-Forwarded-Proto says.
const HSTS = 'max-age=31536000';

let dir: string;

/** A TLS 1.2 handshake offering only `cipher` (SECLEVEL=0: this OpenSSL may offer any suite; refusing is the server's part). */
function handshake12(port: number, cipher: string) {
  return run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_2', '-cipher', `${cipher}@SECLEVEL=0`]);
}

function expectRefused(result: { code: number; output: string }): void {
  expect(result.code).not.toBe(0);
  // The server's alert, not a client that could not offer the suite.
  expect(result.output).toMatch(/alert handshake failure/);
}

function expectAccepted(result: { code: number; output: string }, cipher: string): void {
  expect(result.code).toBe(0);
  expect(result.output).toMatch(new RegExp(`Cipher\\s*(is|:)\\s*${cipher}`));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tls-ciphers-test-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  { keyType: 'rsa' as const, auth: 'RSA' },
  { keyType: 'ec' as const, auth: 'ECDSA' },
])('the TLS suites of the public listener, $keyType certificate', ({ keyType, auth }) => {
  let server: TestApp;
  let port: number;

  beforeAll(async () => {
    const files = await localhostCertificate(dir, `server-${keyType}`, keyType);
    server = await startTestApp({ TLS_CERT_FILE: files.cert, TLS_KEY_FILE: files.key });
    port = Number(new URL(server.url).port);
  });

  afterAll(() => server.close());

  it.each([
    'AES128-SHA',
    'AES256-SHA256',
    'AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-SHA',
    'ECDHE-ECDSA-AES128-SHA',
    'ECDHE-RSA-AES256-SHA384',
    'DHE-RSA-AES128-GCM-SHA256',
  ])('refuses a TLS 1.2 handshake offering only %s', async (cipher) => {
    expectRefused(await handshake12(port, cipher));
  });

  it.each(['AES128-GCM-SHA256', 'AES256-GCM-SHA384', 'CHACHA20-POLY1305'])(`accepts TLS 1.2 with ECDHE-${auth}-%s`, async (suite) => {
    const cipher = `ECDHE-${auth}-${suite}`;
    expectAccepted(await handshake12(port, cipher), cipher);
  });

  it.each(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'])('accepts TLS 1.3 with %s', async (suite) => {
    const result = await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_3', '-ciphersuites', suite]);
    expectAccepted(result, suite);
    expect(result.output).toMatch(/TLSv1\.3/);
  });
});

describe('TLS_CIPHERS', () => {
  let server: TestApp;
  let port: number;

  beforeAll(async () => {
    const files = await localhostCertificate(dir, 'narrowed', 'rsa');
    server = await startTestApp({ TLS_CERT_FILE: files.cert, TLS_KEY_FILE: files.key, TLS_CIPHERS: 'ECDHE-RSA-CHACHA20-POLY1305' });
    port = Number(new URL(server.url).port);
  });

  afterAll(() => server.close());

  it('narrows TLS 1.2 to the suites it names', async () => {
    expectAccepted(await handshake12(port, 'ECDHE-RSA-CHACHA20-POLY1305'), 'ECDHE-RSA-CHACHA20-POLY1305');
    expectRefused(await handshake12(port, 'ECDHE-RSA-AES128-GCM-SHA256'));
  });

  it('keeps TLS 1.3 when it names no TLS 1.3 suite', async () => {
    const result = await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_3']);
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/TLSv1\.3/);
  });

  it.each(['AES128-SHA', 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA', 'HIGH', ' : '])(
    'stops the start with one line naming TLS_CIPHERS for %j',
    async (value) => {
      const files = { cert: join(dir, 'narrowed-cert.pem'), key: join(dir, 'narrowed-key.pem') };
      const [publicPort, adminPort] = await freePorts(2);
      const result = await finished(
        startServerProcess({
          DATABASE_URL: testDatabaseUrl(),
          ADMIN_TOKEN: 'x'.repeat(32),
          PORT: String(publicPort),
          ADMIN_PORT: String(adminPort),
          TLS_CERT_FILE: files.cert,
          TLS_KEY_FILE: files.key,
          TLS_CIPHERS: value,
        }),
      );
      expect(result.code).not.toBe(0);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^configuration error: TLS_CIPHERS /);
    },
  );
});

describe('HSTS under native TLS', () => {
  let server: TestApp;
  let port: number;
  let cert: string;

  beforeAll(async () => {
    const files = await localhostCertificate(dir, 'hsts', 'ec');
    cert = readFileSync(files.cert, 'utf8');
    // TRUST_PROXY believes a proxy on loopback: its X-Forwarded-Proto still must not turn HSTS off.
    server = await startTestApp({ TLS_CERT_FILE: files.cert, TLS_KEY_FILE: files.key, TRUST_PROXY: 'loopback' });
    port = Number(new URL(server.url).port);
  });

  afterAll(() => server.close());

  function get(path: string, headers: Record<string, string>): Promise<{ status: number; hsts: string | string[] | undefined }> {
    return new Promise((resolve, reject) => {
      const pending = httpsRequest({ host: '127.0.0.1', port, path, ca: cert, agent: false, headers }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, hsts: answer.headers['strict-transport-security'] }));
      });
      pending.on('error', reject);
      pending.end();
    });
  }

  it.each<Record<string, string>>([{ 'X-Forwarded-Proto': 'http' }, { 'X-Forwarded-Proto': 'http, https' }, { 'X-Forwarded-Proto': 'ws' }, {}])(
    'is sent on every HTTPS response with %j',
    async (headers) => {
      for (const path of ['/oauth2/jwks', '/health/live', '/no-such-path']) {
        expect([path, (await get(path, headers)).hsts]).toEqual([path, HSTS]);
      }
    },
  );
});
