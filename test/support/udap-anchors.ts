import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import { BasicConstraintsExtension, KeyUsageFlags, KeyUsagesExtension, X509CertificateGenerator } from '@peculiar/x509';

const DAY = 86_400_000;
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
let serial = 0x2000 + Math.floor(Math.random() * 0x10000);

/** A self-signed PEM certificate for a trust community's anchors: a CA (basicConstraints CA:TRUE) or not, valid until `notAfter`. */
export async function selfSignedCertificate(name: string, ca: boolean, notAfter = Date.now() + 365 * DAY): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const issued = await X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16),
    name,
    keys,
    notBefore: new Date(Math.min(Date.now(), notAfter) - 30 * DAY),
    notAfter: new Date(notAfter),
    signingAlgorithm: EC_P256,
    extensions: [
      new BasicConstraintsExtension(ca, undefined, true),
      new KeyUsagesExtension(ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature, true),
    ],
  });
  return issued.toString('pem');
}
