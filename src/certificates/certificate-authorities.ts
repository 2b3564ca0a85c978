import { X509Certificate } from 'node:crypto';
import type { ClientCertificate } from './client-certificate.js';

/**
 * The CAs of TLS_CLIENT_CA_FILE (docs/guides/mtls.md#the-ca-file): a certificate chains to them
 * when each link is issued by a certificate of the file (its issuer name, and its signature
 * verifying with that certificate's key), every certificate of the chain is within its validity
 * period, and each issuer is a CA. Every certificate of the file is trusted as an anchor, as
 * NGINX's `ssl_client_certificate` and a Java trust store treat theirs; the system's roots never are.
 */
export class CertificateAuthorities {
  private readonly authorities: X509Certificate[];

  constructor(pem: string) {
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    this.authorities = blocks.map((block) => new X509Certificate(block));
  }

  /** Whether `certificate` chains to a CA of the file at `now`. */
  trusts(certificate: ClientCertificate, now = Date.now()): boolean {
    if (!certificate.isCurrent(now)) return false;
    const leaf = certificate.node;
    // Every certificate of the file is an anchor: one link to any of them is a chain.
    return this.authorities.some((authority) => authority.ca && current(authority, now) && leaf.checkIssued(authority) && leaf.verify(authority.publicKey));
  }
}

function current(certificate: X509Certificate, now: number): boolean {
  return new Date(certificate.validFrom).getTime() <= now && now <= new Date(certificate.validTo).getTime();
}
