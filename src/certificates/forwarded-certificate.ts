import { CertificateError, ClientCertificate } from './client-certificate.js';

/**
 * The certificate a TLS-terminating proxy forwards in a header (docs/guides/mtls.md#behind-nginx):
 * URL-encoded PEM, as NGINX's `$ssl_client_escaped_cert` writes it, or an RFC 9440 byte sequence
 * (`:base64-DER:`, the `Client-Cert` header). Undefined for an empty value (the proxy had no
 * certificate); a CertificateError for one that cannot be read.
 */
export function readForwardedCertificate(value: string): ClientCertificate | undefined {
  const text = value.trim();
  if (text === '' || text === '-' || text === '(null)' || text === '::') return undefined;
  // Node joins repeated headers with ", "; neither form ever holds a comma.
  if (text.includes(',')) throw new CertificateError('several forwarded certificates were sent');
  if (text.startsWith(':')) {
    const match = /^:([A-Za-z0-9+/]+={0,2}):$/.exec(text);
    if (!match) throw new CertificateError('the forwarded certificate is not an RFC 9440 byte sequence');
    return ClientCertificate.fromDer(Buffer.from(match[1], 'base64'));
  }
  let pem: string;
  try {
    pem = decodeURIComponent(text);
  } catch {
    throw new CertificateError('the forwarded certificate is not URL-encoded');
  }
  return ClientCertificate.fromPem(pem);
}
