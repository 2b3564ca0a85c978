import { readFileSync } from 'node:fs';
import { readUdapServerCertificate, UdapServerCertificateError, type UdapServerCertificate } from './udap-server-certificate.js';
import { ConfigurationError } from './configuration-error.js';

/**
 * UDAP_CERT_FILE and UDAP_KEY_FILE (docs/reference/trust-communities.md#discovery): UDAP=true
 * needs both, and neither means anything without it. The chain's leaf must hold a SAN URI equal
 * to ISSUER and be within its validity, the key must be its RSA key of at least 2048 bits:
 * anything else stops the start with one line naming the variable (never the key's content).
 * `load`: false for the command line, which never serves the discovery document.
 */
export function loadUdapServerFiles(
  udap: boolean,
  certFile: string | undefined,
  keyFile: string | undefined,
  issuer: string,
  load = true,
  now = Date.now(),
): UdapServerCertificate | undefined {
  if (!udap) {
    if (certFile !== undefined) throw new ConfigurationError('UDAP_CERT_FILE needs UDAP=true');
    if (keyFile !== undefined) throw new ConfigurationError('UDAP_KEY_FILE needs UDAP=true');
    return undefined;
  }
  if (!load) return undefined;
  if (certFile === undefined) throw new ConfigurationError("UDAP=true needs UDAP_CERT_FILE: the server's UDAP certificate chain (PEM, leaf first)");
  if (keyFile === undefined) throw new ConfigurationError("UDAP=true needs UDAP_KEY_FILE: the RSA private key of UDAP_CERT_FILE's leaf (PEM)");
  const chain = readText('UDAP_CERT_FILE', certFile);
  const key = readText('UDAP_KEY_FILE', keyFile);
  try {
    return readUdapServerCertificate(chain, key, issuer, now);
  } catch (error) {
    if (!(error instanceof UdapServerCertificateError)) throw error;
    const [variable, file] = error.part === 'certificate' ? ['UDAP_CERT_FILE', certFile] : ['UDAP_KEY_FILE', keyFile];
    throw new ConfigurationError(`${variable} (${file}) ${error.message}`);
  }
}

function readText(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'an error';
    throw new ConfigurationError(`${variable} cannot be read (${file}: ${code})`);
  }
}
