import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { jwtPayload, parsedAs, type TokenBody, type CliClientJson } from '../support/bodies.js';
import { basic } from '../support/factories.js';
import { eventually, finished, runCli, startServerProcess } from '../support/processes.js';
import { RawConnection } from '../support/raw-http.js';
import { freePorts, startTestApp, testDatabaseUrl } from '../support/test-app.js';
import { localhostCertificate, run } from '../support/certificates.js';

// Native TLS (docs/operations/tls.md): TLS_CERT_FILE and TLS_KEY_FILE make the public listener
// HTTPS only, TLS 1.2 at least, with HSTS; the admin listener stays plain HTTP.
const HSTS = 'max-age=31536000';

let dir: string;
let certFile: string;
let keyFile: string;
let cert: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tls-test-'));
  ({ cert: certFile, key: keyFile } = await localhostCertificate(dir, 'server'));
  cert = readFileSync(certFile, 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type HttpsAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One HTTPS request trusting only the test's certificate, on a connection of its own. */
function https(port: number, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const pending = httpsRequest(
      { host: '127.0.0.1', port, method, path, ca: cert, agent: false, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: text }));
      },
    );
    pending.on('error', reject);
    pending.end(body);
  });
}

describe('the start with bad TLS files', () => {
  async function startError(environment: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    const [port, adminPort] = await freePorts(2);
    const result = await finished(
      startServerProcess({ DATABASE_URL: testDatabaseUrl(), ADMIN_TOKEN: 'x'.repeat(32), PORT: String(port), ADMIN_PORT: String(adminPort), ...environment }),
    );
    return { code: result.code, stderr: result.stderr };
  }

  function expectRefusal(result: { code: number | null; stderr: string }, variable: string): void {
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^configuration error: /);
    expect(lines[0]).toContain(variable);
  }

  it('refuses TLS_CERT_FILE without TLS_KEY_FILE, naming TLS_KEY_FILE', async () => {
    expectRefusal(await startError({ TLS_CERT_FILE: certFile }), 'TLS_KEY_FILE');
  });

  it('refuses TLS_KEY_FILE without TLS_CERT_FILE, naming TLS_CERT_FILE', async () => {
    expectRefusal(await startError({ TLS_KEY_FILE: keyFile }), 'TLS_CERT_FILE');
  });

  it('refuses an unreadable TLS_CERT_FILE', async () => {
    expectRefusal(await startError({ TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: keyFile }), 'TLS_CERT_FILE');
  });

  it('refuses an unreadable TLS_KEY_FILE', async () => {
    expectRefusal(await startError({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: join(dir, 'missing.pem') }), 'TLS_KEY_FILE');
  });

  it('refuses a TLS_CERT_FILE that holds no certificate', async () => {
    const notPem = join(dir, 'not-a-certificate.pem');
    writeFileSync(notPem, 'not a certificate\n');
    expectRefusal(await startError({ TLS_CERT_FILE: notPem, TLS_KEY_FILE: keyFile }), 'TLS_CERT_FILE');
  });

  it('refuses a TLS_KEY_FILE that holds no private key', async () => {
    expectRefusal(await startError({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: certFile }), 'TLS_KEY_FILE');
  });

  it("refuses a key that is not the certificate's, naming TLS_KEY_FILE", async () => {
    const other = await localhostCertificate(dir, 'other');
    expectRefusal(await startError({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: other.key }), 'TLS_KEY_FILE');
  });
});

describe.each([1, 2])('native TLS with WORKERS=%i (server process)', (workers) => {
  let child: ChildProcess | undefined;
  let exit: ReturnType<typeof finished>;
  let port: number;
  let adminPort: number;

  beforeAll(async () => {
    [port, adminPort] = await freePorts(2);
    child = startServerProcess({
      WORKERS: String(workers),
      DATABASE_URL: testDatabaseUrl(),
      ADMIN_TOKEN: randomBytes(16).toString('hex'),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      TLS_CERT_FILE: certFile,
      TLS_KEY_FILE: keyFile,
      LOG_LEVEL: 'warn',
    });
    exit = finished(child);
    await eventually(async () => ((await https(port, 'GET', '/health/ready')).status === 200 ? true : undefined), 60_000, 200);
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exit;
    }
  });

  it('refuses TLS 1.1 handshakes and accepts TLS 1.2 and 1.3', async () => {
    // SECLEVEL=0 lets this OpenSSL offer TLS 1.1 at all: the refusal must come from the server.
    const old = await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0']);
    expect(old.code).not.toBe(0);
    expect(old.output).toMatch(/alert protocol version/);
    const current = await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_2']);
    expect(current.code).toBe(0);
    expect(current.output).toMatch(/Protocol\s*:\s*TLSv1\.2/);
    const newest = await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_3']);
    expect(newest.code).toBe(0);
    expect(newest.output).toMatch(/TLSv1\.3/);
  });

  it('gives a token over HTTPS, with HSTS, issued by https://localhost:PORT', async () => {
    const clientId = `tls-${randomBytes(5).toString('hex')}`;
    const created = await runCli(['client', 'create', '--client-id', clientId, '--name', 'TLS', '--scopes', 'read', '--json'], {
      DATABASE_URL: testDatabaseUrl(),
    });
    const secret = parsedAs<CliClientJson>(created.stdout).client_secret;
    for (let index = 0; index < 2 * workers; index += 1) {
      const response = await https(
        port,
        'POST',
        '/oauth2/token',
        { Authorization: basic(clientId, secret), 'Content-Type': 'application/x-www-form-urlencoded' },
        'grant_type=client_credentials&scope=read',
      );
      expect(response.status).toBe(200);
      expect(response.headers['strict-transport-security']).toBe(HSTS);
      const claims = jwtPayload<{ iss: string }>(parsedAs<TokenBody>(response.body).access_token);
      expect(claims.iss).toBe(`https://localhost:${port}`);
    }
  });

  it('sends HSTS on every HTTPS response, errors and 404s included', async () => {
    for (const [method, path] of [
      ['GET', '/oauth2/jwks'],
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/admin'],
      ['POST', '/oauth2/token'],
      ['GET', '/health/live'],
    ] as const) {
      const response = await https(port, method, path);
      expect([path, response.headers['strict-transport-security']]).toEqual([path, HSTS]);
    }
    const metadata = JSON.parse((await https(port, 'GET', '/.well-known/oauth-authorization-server')).body) as { issuer: string; token_endpoint: string };
    expect(metadata.issuer).toBe(`https://localhost:${port}`);
    expect(metadata.token_endpoint).toBe(`https://localhost:${port}/oauth2/token`);
  });

  it('never answers plain HTTP on the public port', async () => {
    const connection = await RawConnection.open(port);
    try {
      const answer = await connection.send('GET', '/oauth2/jwks').catch((error: unknown) => String(error));
      expect(typeof answer === 'string' || answer.status !== 200).toBe(true);
      if (typeof answer !== 'string') expect(answer.body).not.toContain('"keys"');
    } finally {
      connection.destroy();
    }
  });

  it('keeps the admin listener on plain HTTP, without HSTS', async () => {
    const response = await request(`http://127.0.0.1:${adminPort}`).get('/health/live');
    expect(response.status).toBe(200);
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('HSTS behind a TLS proxy', () => {
  it('is sent when ISSUER is https and the trusted proxy says X-Forwarded-Proto: https', async () => {
    const server = await startTestApp({ ISSUER: 'https://as.example', TRUST_PROXY: 'loopback' });
    try {
      const proxied = await request(server.url).get('/oauth2/jwks').set('X-Forwarded-Proto', 'https');
      expect(proxied.headers['strict-transport-security']).toBe(HSTS);
      const plain = await request(server.url).get('/oauth2/jwks');
      expect(plain.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('is not sent when the proxy is not trusted', async () => {
    const server = await startTestApp({ ISSUER: 'https://as.example' });
    try {
      const response = await request(server.url).get('/oauth2/jwks').set('X-Forwarded-Proto', 'https');
      expect(response.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('is not sent when ISSUER is plain http', async () => {
    const server = await startTestApp({ TRUST_PROXY: 'loopback' });
    try {
      const response = await request(server.url).get('/oauth2/jwks').set('X-Forwarded-Proto', 'https');
      expect(response.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
