import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { ConfigurationError } from './configuration-error.js';
import { TLS12_CIPHERS, TLS13_CIPHERS } from './tls-ciphers.js';

/**
 * The public listener's certificate (chain) and private key, PEM, as read at start, and the
 * cipher suites it offers (an OpenSSL cipher string of TLS 1.3 and TLS 1.2 names).
 */
export type TlsFiles = { cert: Buffer; key: Buffer; ciphers: string };

/**
 * TLS_CIPHERS: names from the allowed suites, colon- or comma-separated. Each TLS version keeps
 * the suites named for it, or all of its allowed ones when none is named (Node would otherwise
 * turn a version without suites off). Anything outside the allowed set, or an empty list, stops
 * the start naming the variable.
 */
export function parseTlsCiphers(value: string | undefined): string {
  const named = (value ?? '')
    .split(/[:,]/)
    .map((name) => name.trim())
    .filter(Boolean);
  if (value !== undefined && named.length === 0) throw new ConfigurationError('TLS_CIPHERS must name at least one cipher suite');
  const outside = named.find((name) => !TLS13_CIPHERS.includes(name) && !TLS12_CIPHERS.includes(name));
  if (outside !== undefined) {
    throw new ConfigurationError(`TLS_CIPHERS may name only ${[...TLS13_CIPHERS, ...TLS12_CIPHERS].join(', ')} (got ${JSON.stringify(outside.slice(0, 100))})`);
  }
  const tls13 = TLS13_CIPHERS.filter((name) => named.includes(name));
  const tls12 = TLS12_CIPHERS.filter((name) => named.includes(name));
  return [...(tls13.length > 0 ? tls13 : TLS13_CIPHERS), ...(tls12.length > 0 ? tls12 : TLS12_CIPHERS)].join(':');
}

/**
 * TLS_CERT_FILE and TLS_KEY_FILE: both or neither. Each must be readable and hold PEM, and the key
 * must be the certificate's: anything else stops the start with one line naming the variable.
 */
export function loadTlsFiles(certFile: string | undefined, keyFile: string | undefined, ciphers = parseTlsCiphers(undefined)): TlsFiles | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (keyFile === undefined) throw new ConfigurationError('TLS_KEY_FILE must be set too: TLS_CERT_FILE and TLS_KEY_FILE go together');
  if (certFile === undefined) throw new ConfigurationError('TLS_CERT_FILE must be set too: TLS_CERT_FILE and TLS_KEY_FILE go together');
  const cert = readPem('TLS_CERT_FILE', certFile);
  const key = readPem('TLS_KEY_FILE', keyFile);
  const certificate = parse('TLS_CERT_FILE', certFile, 'a PEM certificate', () => new X509Certificate(cert));
  const privateKey: KeyObject = parse('TLS_KEY_FILE', keyFile, 'a PEM private key', () => createPrivateKey(key));
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigurationError(`TLS_KEY_FILE (${keyFile}) is not the private key of the certificate in TLS_CERT_FILE (${certFile})`);
  }
  return { cert, key, ciphers };
}

/**
 * TLS_CLIENT_CA_FILE (docs/guides/mtls.md): readable, and holding PEM certificates only, each
 * one parsable; anything else stops the start naming the variable. Answers the PEM text.
 */
export function loadClientCaFile(file: string): string {
  const text = readPem('TLS_CLIENT_CA_FILE', file).toString('utf8');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new ConfigurationError(`TLS_CLIENT_CA_FILE (${file}) holds no PEM certificate`);
  blocks.forEach((block, index) => parse('TLS_CLIENT_CA_FILE', file, `a valid certificate (number ${index + 1})`, () => new X509Certificate(block)));
  return blocks.join('\n');
}

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'an error';
    throw new ConfigurationError(`${variable} cannot be read (${file}: ${code})`);
  }
}

function parse<T>(variable: string, file: string, what: string, read: () => T): T {
  try {
    return read();
  } catch {
    throw new ConfigurationError(`${variable} (${file}) does not hold ${what}`);
  }
}
