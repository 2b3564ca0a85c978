import { hash, X509Certificate as NodeCertificate } from 'node:crypto';
import 'reflect-metadata';
import { SubjectAlternativeNameExtension, X509Certificate, type Name } from '@peculiar/x509';

/** One attribute of a relative distinguished name: its type as a dotted OID, its value as text. */
export type NameAttribute = { oid: string; value: string };
/** A distinguished name, most significant RDN first (the order of the certificate's ASN.1). */
export type DistinguishedName = NameAttribute[][];

/** The subject alternative names the registration rules compare (RFC 8705 §2.1.2). */
export type AlternativeNames = { dns: string[]; uri: string[]; ip: string[]; email: string[] };

/** A certificate that cannot be read; the message says why, never the certificate. */
export class CertificateError extends Error {}

// @peculiar/x509 names these attribute types by short name in Name.toJSON(); anything else comes as its dotted OID.
const OID_OF_SHORT_NAME: Record<string, string> = {
  CN: '2.5.4.3',
  L: '2.5.4.7',
  ST: '2.5.4.8',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  C: '2.5.4.6',
  DC: '0.9.2342.19200300.100.1.25',
  E: '1.2.840.113549.1.9.1',
  G: '2.5.4.42',
  I: '2.5.4.43',
  SN: '2.5.4.4',
  T: '2.5.4.12',
};

/** A name as @peculiar/x509 reads it, most significant RDN first, attribute types as OIDs. */
export function readName(name: Name): DistinguishedName {
  return name.toJSON().map((rdn) => Object.entries(rdn).flatMap(([type, values]) => values.map((value) => ({ oid: OID_OF_SHORT_NAME[type] ?? type, value }))));
}

/**
 * A client's certificate as presented (docs/guides/mtls.md): its DER, its RFC 8705 §3.1
 * thumbprint (`x5t#S256`), its validity and, read only when a registration rule needs them, its
 * subject and alternative names (parsed by @peculiar/x509). Made once per connection (native TLS)
 * or per forwarded header value; nothing of it is logged.
 */
export class ClientCertificate {
  /** base64url SHA-256 of the DER: the value of `cnf["x5t#S256"]`. */
  readonly thumbprint: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  private parsed?: X509Certificate;

  private constructor(
    readonly der: Buffer,
    /** node:crypto's view, for chain checks (signatures, issuer names). */
    readonly node: NodeCertificate,
  ) {
    this.thumbprint = hash('sha256', der, 'base64url');
    this.notBefore = new Date(node.validFrom);
    this.notAfter = new Date(node.validTo);
  }

  static fromDer(der: Buffer): ClientCertificate {
    let node: NodeCertificate;
    try {
      node = new NodeCertificate(der);
    } catch {
      throw new CertificateError('the client certificate is not a DER X.509 certificate');
    }
    return new ClientCertificate(Buffer.from(node.raw), node);
  }

  static fromPem(pem: string): ClientCertificate {
    const match = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(pem);
    if (!match) throw new CertificateError('the client certificate is not a PEM certificate');
    return ClientCertificate.fromDer(Buffer.from(match[1].replace(/\s+/g, ''), 'base64'));
  }

  /** Within its validity period at `now`. */
  isCurrent(now = Date.now()): boolean {
    return this.notBefore.getTime() <= now && now <= this.notAfter.getTime();
  }

  /**
   * Why this certificate cannot be a client's, or undefined (docs/guides/mtls.md#what-a-client-certificate-must-be):
   * a CA certificate (basicConstraints CA:TRUE) is an issuer, not a client; an extendedKeyUsage
   * without clientAuth (1.3.6.1.5.5.7.3.2) was issued for something else (a server). No
   * extendedKeyUsage at all allows every use (RFC 5280 §4.2.1.12).
   */
  notForClients(): string | undefined {
    if (this.node.ca) return 'the client certificate is a CA certificate (basicConstraints CA:TRUE)';
    const usages = this.node.keyUsage as string[] | undefined;
    if (usages !== undefined && !usages.includes('1.3.6.1.5.5.7.3.2')) return "the client certificate's extendedKeyUsage does not allow clientAuth";
    return undefined;
  }

  /** The subject, most significant RDN first, attribute types as OIDs. */
  subject(): DistinguishedName {
    return readable('subject', () => readName(this.x509().subjectName));
  }

  /** The issuer's name, most significant RDN first, attribute types as OIDs. */
  issuer(): DistinguishedName {
    return readable('issuer', () => readName(this.x509().issuerName));
  }

  alternativeNames(): AlternativeNames {
    const names: AlternativeNames = { dns: [], uri: [], ip: [], email: [] };
    const extension = readable('subject alternative names', () => this.x509().getExtension(SubjectAlternativeNameExtension)?.names.toJSON() ?? []);
    for (const name of extension) {
      if (name.type === 'dns') names.dns.push(name.value);
      else if (name.type === 'url') names.uri.push(name.value);
      else if (name.type === 'ip') names.ip.push(name.value);
      else if (name.type === 'email') names.email.push(name.value);
    }
    return names;
  }

  private x509(): X509Certificate {
    try {
      this.parsed ??= new X509Certificate(this.der);
    } catch {
      throw new CertificateError('the client certificate cannot be parsed');
    }
    return this.parsed;
  }
}

/** A part of the certificate that @peculiar/x509 cannot decode is a CertificateError (a 401), never a crash. */
function readable<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof CertificateError) throw error;
    throw new CertificateError(`the client certificate's ${what} cannot be read`);
  }
}
