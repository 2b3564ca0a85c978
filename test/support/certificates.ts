import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

/** A PEM certificate and its key, as files and as text. */
export type Issued = { certFile: string; keyFile: string; cert: string; key: string };

export function run(command: string, args: string[], input = ''): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}`, stdout: String(stdout) }),
    );
    // A command that does not read its input may exit before it is written: no EPIPE then.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

async function openssl(args: string[]): Promise<void> {
  const result = await run('openssl', args);
  if (result.code !== 0) throw new Error(`openssl ${args[0]} failed: ${result.output}`);
}

/** A self-signed server certificate for localhost and 127.0.0.1 in `dir` (EC P-256, or RSA 2048 for the RSA suites); answers the files. */
export async function localhostCertificate(dir: string, name: string, keyType: 'rsa' | 'ec' = 'ec'): Promise<{ cert: string; key: string }> {
  const paths = { cert: join(dir, `${name}-cert.pem`), key: join(dir, `${name}-key.pem`) };
  const key = keyType === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  await openssl(['req', '-x509', ...key, '-nodes', '-days', '1', ...subject, '-keyout', paths.key, '-out', paths.cert]);
  return paths;
}

/**
 * Certificates made with openssl in `dir` (a temp folder of the test): CAs, leaves they issue
 * (with subject alternative names), self-signed certificates. EC P-256 keys: quick to make.
 */
export class CertificateFactory {
  constructor(private readonly dir: string) {}

  /** A self-signed CA certificate (basicConstraints CA:TRUE). */
  async ca(name: string, subject: string): Promise<Issued> {
    const paths = this.paths(name);
    await openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      subject,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      paths.keyFile,
      '-out',
      paths.certFile,
    ]);
    return this.read(paths);
  }

  /** A leaf issued by `issuer`; `san` as openssl writes it (`DNS:a,IP:1.2.3.4,URI:…,email:…`); `days` may be negative (expired). */
  async leaf(
    name: string,
    issuer: Issued,
    subject: string,
    options: { san?: string; days?: number; ca?: boolean; extendedKeyUsage?: string; key?: string[] } = {},
  ): Promise<Issued> {
    const paths = this.paths(name);
    const csr = join(this.dir, `${name}.csr`);
    const extensions = join(this.dir, `${name}.ext`);
    // `key`: openssl's -newkey and -pkeyopt arguments (default an EC key on P-256).
    const key = options.key ?? ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    await openssl(['req', '-new', '-newkey', ...key, '-nodes', '-subj', subject, '-keyout', paths.keyFile, '-out', csr]);
    writeFileSync(
      extensions,
      [
        options.ca ? 'basicConstraints=critical,CA:TRUE' : 'basicConstraints=CA:FALSE',
        options.san ? `subjectAltName=${options.san}` : '',
        options.extendedKeyUsage ? `extendedKeyUsage=${options.extendedKeyUsage}` : '',
      ].join('\n') + '\n',
    );
    const days = options.days ?? 1;
    if (days > 0) {
      await openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        issuer.certFile,
        '-CAkey',
        issuer.keyFile,
        '-CAcreateserial',
        '-days',
        String(days),
        '-extfile',
        extensions,
        '-out',
        paths.certFile,
      ]);
    } else {
      // OpenSSL 3.0's x509 cannot date a certificate in the past; its `ca` command can.
      const ca = join(this.dir, `${name}-ca`);
      mkdirSync(ca);
      writeFileSync(join(ca, 'index.txt'), '');
      writeFileSync(join(ca, 'serial'), '1000\n');
      const config = join(ca, 'ca.cnf');
      writeFileSync(
        config,
        `[ca]\ndefault_ca=test\n[test]\ndatabase=${ca}/index.txt\nnew_certs_dir=${ca}\nserial=${ca}/serial\ndefault_md=sha256\npolicy=any\n[any]\ncommonName=supplied\n`,
      );
      await openssl([
        'ca',
        '-batch',
        '-config',
        config,
        '-preserveDN',
        '-notext',
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200102000000Z',
        '-cert',
        issuer.certFile,
        '-keyfile',
        issuer.keyFile,
        '-in',
        csr,
        '-extfile',
        extensions,
        '-out',
        paths.certFile,
      ]);
    }
    return this.read(paths);
  }

  /** A self-signed end-entity certificate (no CA flag). */
  async selfSigned(name: string, subject: string): Promise<Issued> {
    const paths = this.paths(name);
    await openssl([
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
      subject,
      '-addext',
      'basicConstraints=CA:FALSE',
      '-keyout',
      paths.keyFile,
      '-out',
      paths.certFile,
    ]);
    return this.read(paths);
  }

  private paths(name: string) {
    return { certFile: join(this.dir, `${name}.pem`), keyFile: join(this.dir, `${name}.key`) };
  }

  private read(paths: { certFile: string; keyFile: string }): Issued {
    return { ...paths, cert: readFileSync(paths.certFile, 'utf8'), key: readFileSync(paths.keyFile, 'utf8') };
  }
}

/** The DER of a PEM certificate. */
export function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

/** RFC 8705 §3.1: base64url SHA-256 of the DER. */
export function thumbprintOf(pem: string): string {
  return createHash('sha256').update(derOf(pem)).digest('base64url');
}

/** The JWK of a certificate's public key, with the certificate as its x5c. */
export async function x5cJwk(issued: Issued): Promise<Record<string, unknown>> {
  const { X509Certificate } = await import('node:crypto');
  const certificate = new X509Certificate(issued.cert);
  return { ...(certificate.publicKey.export({ format: 'jwk' }) as Record<string, unknown>), x5c: [derOf(issued.cert).toString('base64')] };
}

export type HttpsAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/**
 * One HTTPS request on a connection of its own, trusting `ca` (the server's certificate),
 * presenting `client` when given.
 */
export function httpsCall(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; ca: string; client?: Issued },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const body = options.body ?? '';
    const pending = httpsRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'POST',
        ca: options.ca,
        agent: false,
        ...(options.client ? { cert: options.client.cert, key: options.client.key } : {}),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...options.headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
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
