import 'reflect-metadata';
import { webcrypto, X509Certificate } from 'node:crypto';
import { cryptoProvider, SubjectAlternativeNameExtension, X509CertificateGenerator, type JsonGeneralName } from '@peculiar/x509';
import { sanUris } from './udap-server-certificate.js';

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };

async function certificateWith(names: JsonGeneralName[]): Promise<X509Certificate> {
  cryptoProvider.set(webcrypto as unknown as Parameters<typeof cryptoProvider.set>[0]);
  const keys = await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const issued = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=SAN test',
    keys,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: RSA,
    extensions: [new SubjectAlternativeNameExtension(names)],
  });
  return new X509Certificate(issued.toString('pem'));
}

describe('sanUris', () => {
  it('answers the URI entries in order, leaving out the other kinds', async () => {
    const certificate = await certificateWith([
      { type: 'url', value: 'https://a.example' },
      { type: 'dns', value: 'b.example' },
      { type: 'url', value: 'urn:oid:1.2.3' },
    ]);
    expect(sanUris(certificate)).toEqual(['https://a.example', 'urn:oid:1.2.3']);
  });

  it('reads a URI holding a comma or a quote whole, as Node quotes it', async () => {
    const certificate = await certificateWith([
      { type: 'url', value: 'https://a.example/x,y' },
      { type: 'url', value: 'https://b.example/"q"' },
    ]);
    expect(sanUris(certificate)).toEqual(['https://a.example/x,y', 'https://b.example/"q"']);
  });

  it('never splits one URI into two: a URI that contains ", URI:" stays one entry', async () => {
    const certificate = await certificateWith([{ type: 'url', value: 'https://a.example/a, URI:https://as.example.org' }]);
    expect(sanUris(certificate)).toEqual(['https://a.example/a, URI:https://as.example.org']);
  });

  it('answers none for a certificate without URI entries', async () => {
    expect(sanUris(await certificateWith([{ type: 'dns', value: 'a.example' }]))).toEqual([]);
  });
});
