import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import {
  BasicConstraintsExtension,
  CRLDistributionPointsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509Certificate,
  X509CertificateGenerator,
  X509CrlGenerator,
  type Extension,
} from '@peculiar/x509';
import { CompactSign } from 'jose';
import {
  anchorProblem,
  UdapAnchorError,
  UdapAnchors,
  UdapCertificateError,
  UdapCertificateErrorCode,
  UdapChainVerifier,
  type RevocationCheck,
} from './udap-chain.js';

// A test PKI made here with WebCrypto keys: two communities' roots, an intermediate under the
// first, leaves with SAN URIs (current, expired, not yet valid, revoked, without a CRL
// distribution point, …) and the CRLs their distribution points name, served by a fake fetchCrl.

const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / 1000) * 1000;
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const EC_P384 = { name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' };
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
const ROOT_A_CRL = 'http://crl.community-a.test/root.crl';
const INTERMEDIATE_CRL = 'http://crl.community-a.test/intermediate.crl';
const CLIENT_URI = 'https://lab.example/udap/client-1';

type Issued = { certificate: X509Certificate; keys: webcrypto.CryptoKeyPair; algorithm: typeof EC_P256 | typeof RSA };

let serial = 0x1000;
const generateKeys = async (algorithm: typeof EC_P256 | typeof EC_P384 | typeof RSA) => await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);

const caExtensions = (pathLength?: number, usages = KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign): Extension[] => [
  new BasicConstraintsExtension(true, pathLength, true),
  new KeyUsagesExtension(usages, true),
];

async function root(name: string, notAfter = NOW + 3650 * DAY): Promise<Issued> {
  const keys = await generateKeys(EC_P256);
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16),
    name,
    keys,
    notBefore: new Date(NOW - 365 * DAY),
    notAfter: new Date(notAfter),
    signingAlgorithm: EC_P256,
    extensions: caExtensions(),
  });
  return { certificate, keys, algorithm: EC_P256 };
}

type IssueOptions = {
  subject: string;
  issuer: Issued;
  algorithm?: typeof EC_P256 | typeof EC_P384 | typeof RSA;
  extensions: Extension[];
  notBefore?: number;
  notAfter?: number;
  /** Signs with this key instead of the issuer's (a forged certificate). */
  signingKey?: webcrypto.CryptoKey;
};

async function issue(options: IssueOptions): Promise<Issued> {
  const algorithm = options.algorithm ?? EC_P256;
  const keys = await generateKeys(algorithm);
  const certificate = await X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16),
    subject: options.subject,
    issuer: options.issuer.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: options.signingKey ?? options.issuer.keys.privateKey,
    signingAlgorithm: options.issuer.algorithm,
    notBefore: new Date(options.notBefore ?? NOW - DAY),
    notAfter: new Date(options.notAfter ?? NOW + 365 * DAY),
    extensions: options.extensions,
  });
  return { certificate, keys, algorithm: algorithm as typeof EC_P256 };
}

const leafExtensions = (crl: string | null = INTERMEDIATE_CRL, usages = KeyUsageFlags.digitalSignature): Extension[] => [
  new BasicConstraintsExtension(false),
  new KeyUsagesExtension(usages, true),
  new SubjectAlternativeNameExtension([{ type: 'url', value: CLIENT_URI }]),
  ...(crl ? [new CRLDistributionPointsExtension([crl])] : []),
];

async function crl(
  issuer: Issued,
  revoked: Issued[],
  options: { thisUpdate?: number; nextUpdate?: number; signingKey?: webcrypto.CryptoKey } = {},
): Promise<Uint8Array> {
  const list = await X509CrlGenerator.create({
    issuer: issuer.certificate.subject,
    thisUpdate: new Date(options.thisUpdate ?? NOW - 3600_000),
    nextUpdate: new Date(options.nextUpdate ?? NOW + DAY),
    signingAlgorithm: issuer.algorithm,
    signingKey: options.signingKey ?? issuer.keys.privateKey,
    entries: revoked.map((entry) => ({ serialNumber: entry.certificate.serialNumber, revocationDate: new Date(NOW - DAY) })),
  });
  return new Uint8Array(list.rawData);
}

const der = (issued: Issued) => Buffer.from(issued.certificate.rawData).toString('base64');
const pem = (issued: Issued) => issued.certificate.toString('pem');

async function signed(leaf: Issued, chain: Issued[], alg = 'ES256', payload: Record<string, unknown> = { iss: CLIENT_URI, sub: CLIENT_URI }): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg, x5c: [leaf, ...chain].map(der) })
    .sign(leaf.keys.privateKey);
}

/** A JWS with any header and a signature of garbage (for refusals that come before any signature check). */
function unsigned(header: Record<string, unknown>, payload: Record<string, unknown> = { iss: CLIENT_URI }): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.${Buffer.from('not a signature').toString('base64url')}`;
}

let rootA: Issued;
let rootB: Issued;
let intermediate: Issued;
let leaf: Issued;
let communityA: UdapAnchors;
let communityB: UdapAnchors;

/** The CRLs the fake network serves, and how often each URL was fetched. */
let served: Map<string, Uint8Array | Error>;
let fetches: Map<string, number>;
let clock: number;
let verifier: UdapChainVerifier;

const fetchCrl = (url: string): Promise<Uint8Array> => {
  fetches.set(url, (fetches.get(url) ?? 0) + 1);
  const answer = served.get(url) ?? new Error('not found');
  return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
};

async function refusal(jws: string, anchors = communityA, revocation: RevocationCheck = 'require'): Promise<UdapCertificateError> {
  const error = await verifier.verify(jws, anchors, revocation).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof UdapCertificateError)) throw new Error(`expected a UdapCertificateError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  rootA = await root('C=US, O=Community A, CN=Community A Root');
  rootB = await root('C=US, O=Community B, CN=Community B Root');
  intermediate = await issue({
    subject: 'C=US, O=Community A, CN=Community A Issuing CA',
    issuer: rootA,
    extensions: [...caExtensions(0), new CRLDistributionPointsExtension([ROOT_A_CRL])],
  });
  leaf = await issue({ subject: 'C=US, O=Example Lab\\, Inc., CN=lab-client', issuer: intermediate, extensions: leafExtensions() });
  communityA = UdapAnchors.fromPem([pem(rootA)]);
  communityB = UdapAnchors.fromPem([pem(rootB)]);
});

beforeEach(async () => {
  served = new Map<string, Uint8Array | Error>([
    [ROOT_A_CRL, await crl(rootA, [])],
    [INTERMEDIATE_CRL, await crl(intermediate, [])],
  ]);
  fetches = new Map();
  clock = NOW;
  verifier = new UdapChainVerifier({ fetchCrl, now: () => clock });
});

describe('UdapChainVerifier: chains', () => {
  it('accepts a JWT whose x5c leads through an intermediate to the community anchor, and answers its header, payload and leaf', async () => {
    const jws = await signed(leaf, [intermediate]);
    const verified = await verifier.verify(jws, communityA, 'require');
    expect(verified.header).toMatchObject({ alg: 'ES256', x5c: [der(leaf), der(intermediate)] });
    expect(verified.payload).toEqual({ iss: CLIENT_URI, sub: CLIENT_URI });
    expect(verified.leaf.sanUris).toEqual([CLIENT_URI]);
    expect(verified.leaf.subject).toBe('CN=lab-client,O=Example Lab\\, Inc.,C=US');
    expect(verified.leaf.thumbprint).toBe(Buffer.from(await leaf.certificate.getThumbprint('SHA-256')).toString('base64url'));
  });

  it('accepts an RS256 JWT from an RSA leaf', async () => {
    const rsaLeaf = await issue({ subject: 'CN=rsa-client', issuer: intermediate, algorithm: RSA, extensions: leafExtensions() });
    await expect(verifier.verify(await signed(rsaLeaf, [intermediate], 'RS256'), communityA, 'require')).resolves.toBeDefined();
  });

  it('accepts an x5c that carries the anchor itself after the intermediate', async () => {
    await expect(verifier.verify(await signed(leaf, [intermediate, rootA]), communityA, 'require')).resolves.toBeDefined();
  });

  it('accepts a leaf issued by an anchor directly, with the anchor among several of the community', async () => {
    const direct = await issue({ subject: 'CN=direct-client', issuer: rootB, extensions: leafExtensions(null) });
    const both = UdapAnchors.fromPem([pem(rootA), pem(rootB)]);
    await expect(verifier.verify(await signed(direct, []), both, 'off')).resolves.toBeDefined();
  });

  it("refuses a chain to another community's anchor", async () => {
    const error = await refusal(await signed(leaf, [intermediate]), communityB);
    expect(error.code).toBe(UdapCertificateErrorCode.NoChain);
    expect(error.message).toBe("the JWT's x5c chain does not lead to a trust anchor of this community");
  });

  it('refuses an x5c that leaves out the intermediate', async () => {
    expect((await refusal(await signed(leaf, []))).code).toBe(UdapCertificateErrorCode.NoChain);
  });

  it("refuses a leaf whose signature does not verify with its issuer's key", async () => {
    const stranger = await generateKeys(EC_P256);
    const forged = await issue({ subject: 'CN=forged', issuer: intermediate, extensions: leafExtensions(), signingKey: stranger.privateKey });
    const error = await refusal(await signed(forged, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.NoChain);
    expect(error.message).toBe('the signature of the leaf certificate does not verify with the key of its issuer');
  });

  it('refuses a leaf issued by a certificate that is not a CA', async () => {
    const notCa = await issue({ subject: 'C=US, O=Community A, CN=not a CA', issuer: intermediate, extensions: leafExtensions() });
    const below = await issue({ subject: 'CN=below', issuer: notCa, extensions: leafExtensions() });
    const error = await refusal(await signed(below, [notCa, intermediate]), communityA, 'off');
    expect(error.code).toBe(UdapCertificateErrorCode.NoChain);
    expect(error.message).toBe('x5c certificate 2 issues another certificate but is not a CA (basicConstraints CA:TRUE)');
  });

  it("refuses a chain longer than an issuer's pathLenConstraint allows", async () => {
    const sub = await issue({ subject: 'C=US, O=Community A, CN=Sub CA', issuer: intermediate, extensions: caExtensions() });
    const below = await issue({ subject: 'CN=below-sub', issuer: sub, extensions: leafExtensions() });
    const error = await refusal(await signed(below, [sub, intermediate]), communityA, 'off');
    expect(error.code).toBe(UdapCertificateErrorCode.NoChain);
    expect(error.message).toBe('the chain is longer than the pathLenConstraint of x5c certificate 3 allows');
  });

  it('refuses an issuer whose keyUsage does not allow keyCertSign', async () => {
    const signOnly = await issue({ subject: 'C=US, O=Community A, CN=CRL only CA', issuer: rootA, extensions: caExtensions(0, KeyUsageFlags.cRLSign) });
    const below = await issue({ subject: 'CN=below-crl-only', issuer: signOnly, extensions: leafExtensions() });
    const error = await refusal(await signed(below, [signOnly]), communityA, 'off');
    expect(error.code).toBe(UdapCertificateErrorCode.NoChain);
    expect(error.message).toBe('the keyUsage of x5c certificate 2 does not allow keyCertSign');
  });

  it('refuses a leaf whose keyUsage does not allow digitalSignature', async () => {
    const encipherOnly = await issue({
      subject: 'CN=encipher',
      issuer: intermediate,
      extensions: leafExtensions(INTERMEDIATE_CRL, KeyUsageFlags.keyAgreement),
    });
    expect((await refusal(await signed(encipherOnly, [intermediate]))).code).toBe(UdapCertificateErrorCode.BadCertificate);
  });

  it('refuses a leaf that is a CA certificate', async () => {
    const caLeaf = await issue({
      subject: 'CN=ca-leaf',
      issuer: intermediate,
      extensions: [...caExtensions(0, KeyUsageFlags.digitalSignature | KeyUsageFlags.keyCertSign)],
    });
    expect((await refusal(await signed(caLeaf, [intermediate]))).code).toBe(UdapCertificateErrorCode.BadCertificate);
  });

  it('refuses an expired leaf', async () => {
    const expired = await issue({ subject: 'CN=expired', issuer: intermediate, extensions: leafExtensions(), notBefore: NOW - 30 * DAY, notAfter: NOW - DAY });
    const error = await refusal(await signed(expired, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.Expired);
    expect(error.message).toBe('the leaf certificate has expired');
  });

  it('refuses a leaf that is not yet valid', async () => {
    const early = await issue({ subject: 'CN=early', issuer: intermediate, extensions: leafExtensions(), notBefore: NOW + DAY, notAfter: NOW + 30 * DAY });
    expect((await refusal(await signed(early, [intermediate]))).code).toBe(UdapCertificateErrorCode.NotYetValid);
  });

  it('refuses a chain through an expired intermediate', async () => {
    const old = await issue({
      subject: 'C=US, O=Community A, CN=Old Issuing CA',
      issuer: rootA,
      extensions: caExtensions(0),
      notBefore: NOW - 30 * DAY,
      notAfter: NOW - DAY,
    });
    const below = await issue({ subject: 'CN=below-old', issuer: old, extensions: leafExtensions() });
    const error = await refusal(await signed(below, [old]), communityA, 'off');
    expect(error.code).toBe(UdapCertificateErrorCode.Expired);
    expect(error.message).toBe('x5c certificate 2 has expired');
  });

  it('refuses a chain whose anchor has expired, though the leaf has not', async () => {
    const shortLived = await root('C=US, O=Community C, CN=Short-lived Root', NOW + 10 * DAY);
    const outliving = await issue({ subject: 'CN=outliving', issuer: shortLived, extensions: leafExtensions(null) });
    clock = NOW + 11 * DAY;
    const error = await refusal(await signed(outliving, []), UdapAnchors.fromPem([pem(shortLived)]), 'off');
    expect(error.code).toBe(UdapCertificateErrorCode.Expired);
    expect(error.message).toBe('the trust anchor has expired');
  });
});

describe('UdapChainVerifier: the JWS', () => {
  it('refuses a JWT whose payload was changed after signing', async () => {
    const [header, , signature] = (await signed(leaf, [intermediate])).split('.');
    const altered = Buffer.from(JSON.stringify({ iss: CLIENT_URI, sub: 'someone else' })).toString('base64url');
    const error = await refusal(`${header}.${altered}.${signature}`);
    expect(error.code).toBe(UdapCertificateErrorCode.BadSignature);
    expect(error.message).toBe("the JWT's signature does not verify with the leaf certificate's key");
  });

  it("refuses a JWT signed by another key than the leaf's", async () => {
    const other = await generateKeys(EC_P256);
    const jws = await new CompactSign(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'ES256', x5c: [der(leaf), der(intermediate)] })
      .sign(other.privateKey);
    expect((await refusal(jws)).code).toBe(UdapCertificateErrorCode.BadSignature);
  });

  it('refuses alg none', async () => {
    const jws = unsigned({ alg: 'none', x5c: [der(leaf), der(intermediate)] }).replace(/[^.]+$/, '');
    expect((await refusal(jws)).code).toBe(UdapCertificateErrorCode.BadAlg);
  });

  it('refuses alg HS256, even with a valid HMAC over the JWT', async () => {
    const jws = await new CompactSign(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'HS256', x5c: [der(leaf), der(intermediate)] })
      .sign(new TextEncoder().encode('a shared secret of at least 32 bytes'));
    const error = await refusal(jws);
    expect(error.code).toBe(UdapCertificateErrorCode.BadAlg);
    expect(error.message).toBe("the JWT's alg must be one of RS256, ES256, RS384, ES384");
  });

  it('refuses RS256 from an EC leaf', async () => {
    const error = await refusal(unsigned({ alg: 'RS256', x5c: [der(leaf), der(intermediate)] }));
    expect(error.code).toBe(UdapCertificateErrorCode.KeyMismatch);
    expect(error.message).toBe("the JWT's alg RS256 needs an RSA key of at least 2048 bits, and the leaf certificate holds another");
  });

  it('refuses ES384 from a P-256 leaf', async () => {
    expect((await refusal(unsigned({ alg: 'ES384', x5c: [der(leaf), der(intermediate)] }))).code).toBe(UdapCertificateErrorCode.KeyMismatch);
  });

  it('accepts ES384 from a P-384 leaf', async () => {
    const p384 = await issue({ subject: 'CN=p384', issuer: intermediate, algorithm: EC_P384, extensions: leafExtensions() });
    await expect(verifier.verify(await signed(p384, [intermediate], 'ES384'), communityA, 'require')).resolves.toBeDefined();
  });

  it('refuses a JWT whose header carries no x5c', async () => {
    expect((await refusal(unsigned({ alg: 'ES256' }))).code).toBe(UdapCertificateErrorCode.NoChain);
  });

  it('refuses an x5c entry that is not a certificate', async () => {
    const error = await refusal(unsigned({ alg: 'ES256', x5c: [Buffer.from('not a certificate').toString('base64')] }));
    expect(error.code).toBe(UdapCertificateErrorCode.BadCertificate);
    expect(error.message).toBe('the leaf certificate cannot be read as an X.509 certificate');
  });

  it('refuses text that is not a compact JWS', async () => {
    expect((await refusal('not.a-jws')).code).toBe(UdapCertificateErrorCode.NotJws);
  });

  it('refuses a payload that is not a JSON object', async () => {
    const jws = await new CompactSign(new TextEncoder().encode('[1]'))
      .setProtectedHeader({ alg: 'ES256', x5c: [der(leaf), der(intermediate)] })
      .sign(leaf.keys.privateKey);
    expect((await refusal(jws)).code).toBe(UdapCertificateErrorCode.NotJws);
  });

  it('never puts the JWT in its message', async () => {
    const jws = await signed(leaf, []);
    const error = await refusal(jws);
    for (const part of jws.split('.')) expect(error.message).not.toContain(part);
  });
});

describe('UdapChainVerifier: revocation', () => {
  it('refuses a revoked leaf', async () => {
    const revoked = await issue({ subject: 'CN=revoked', issuer: intermediate, extensions: leafExtensions() });
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [revoked]));
    const error = await refusal(await signed(revoked, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.Revoked);
    expect(error.message).toBe('the leaf certificate is revoked');
  });

  it("refuses a leaf under an intermediate that the anchor's CRL lists", async () => {
    served.set(ROOT_A_CRL, await crl(rootA, [intermediate]));
    const error = await refusal(await signed(leaf, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.Revoked);
    expect(error.message).toBe('x5c certificate 2 is revoked');
  });

  it('accepts a revoked leaf when the community does not check revocation, and fetches no CRL', async () => {
    const revoked = await issue({ subject: 'CN=revoked-off', issuer: intermediate, extensions: leafExtensions() });
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [revoked]));
    await expect(verifier.verify(await signed(revoked, [intermediate]), communityA, 'off')).resolves.toBeDefined();
    expect(fetches.size).toBe(0);
  });

  it('refuses, with revocation required, a leaf that names no CRL distribution point', async () => {
    const silent = await issue({ subject: 'CN=no-dp', issuer: intermediate, extensions: leafExtensions(null) });
    const error = await refusal(await signed(silent, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.CrlUnavailable);
    expect(error.message).toBe(
      'the revocation status could not be established: the leaf certificate names no http or https CRL distribution point, and this community requires revocation checking',
    );
  });

  it('refuses a leaf whose only CRL distribution point is not http or https', async () => {
    const ldap = await issue({ subject: 'CN=ldap-dp', issuer: intermediate, extensions: leafExtensions('ldap://directory.test/cn=crl') });
    expect((await refusal(await signed(ldap, [intermediate]))).code).toBe(UdapCertificateErrorCode.CrlUnavailable);
  });

  it('refuses when the CRL cannot be fetched', async () => {
    served.set(INTERMEDIATE_CRL, new Error('connection refused'));
    const error = await refusal(await signed(leaf, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.CrlUnavailable);
    expect(error.message).toBe('the revocation status could not be established: the CRL of the leaf certificate could not be fetched');
  });

  it('refuses when the distribution point serves something that is not a CRL', async () => {
    served.set(INTERMEDIATE_CRL, new TextEncoder().encode('<html>moved</html>'));
    expect((await refusal(await signed(leaf, [intermediate]))).code).toBe(UdapCertificateErrorCode.CrlUnavailable);
  });

  it("refuses a CRL signed by another key than the issuer's", async () => {
    const impostor = await generateKeys(EC_P256);
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [], { signingKey: impostor.privateKey }));
    const error = await refusal(await signed(leaf, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.CrlUnavailable);
    expect(error.message).toBe(
      "the revocation status could not be established: the CRL of the leaf certificate is not signed with the key of the certificate's issuer",
    );
  });

  it('refuses a CRL issued by another CA than the certificate issuer', async () => {
    served.set(INTERMEDIATE_CRL, await crl(rootA, []));
    expect((await refusal(await signed(leaf, [intermediate]))).code).toBe(UdapCertificateErrorCode.CrlUnavailable);
  });

  it('refuses a CRL past its nextUpdate', async () => {
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [], { thisUpdate: NOW - 2 * DAY, nextUpdate: NOW - DAY }));
    const error = await refusal(await signed(leaf, [intermediate]));
    expect(error.code).toBe(UdapCertificateErrorCode.CrlUnavailable);
    expect(error.message).toBe('the revocation status could not be established: the CRL of the leaf certificate is out of date (past its nextUpdate)');
  });
});

describe('UdapChainVerifier: caches', () => {
  it('keeps a CRL until its nextUpdate and fetches it again after', async () => {
    const other = await issue({ subject: 'CN=other-client', issuer: intermediate, extensions: leafExtensions() });
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [], { nextUpdate: NOW + 3600_000 }));
    await verifier.verify(await signed(leaf, [intermediate]), communityA, 'require');
    await verifier.verify(await signed(other, [intermediate]), communityA, 'require');
    expect(fetches.get(INTERMEDIATE_CRL)).toBe(1);
    clock = NOW + 3600_000;
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [], { thisUpdate: clock, nextUpdate: clock + 3600_000 }));
    await verifier.verify(await signed(other, [intermediate]), communityA, 'require');
    expect(fetches.get(INTERMEDIATE_CRL)).toBe(2);
  });

  it('answers a verified chain from memory: a second JWT of the same leaf fetches nothing', async () => {
    await verifier.verify(await signed(leaf, [intermediate]), communityA, 'require');
    served.clear();
    await expect(verifier.verify(await signed(leaf, [intermediate], 'ES256', { iss: CLIENT_URI, n: 2 }), communityA, 'require')).resolves.toMatchObject({
      payload: { n: 2 },
    });
    expect(fetches.get(INTERMEDIATE_CRL)).toBe(1);
  });

  it("still checks each JWT's signature when its chain is answered from memory", async () => {
    await verifier.verify(await signed(leaf, [intermediate]), communityA, 'require');
    const [header, , signature] = (await signed(leaf, [intermediate])).split('.');
    const altered = Buffer.from(JSON.stringify({ iss: 'forged' })).toString('base64url');
    expect((await refusal(`${header}.${altered}.${signature}`)).code).toBe(UdapCertificateErrorCode.BadSignature);
  });

  it("does not trust a chain verified for one community in another community's check", async () => {
    await verifier.verify(await signed(leaf, [intermediate]), communityA, 'require');
    expect((await refusal(await signed(leaf, [intermediate]), communityB)).code).toBe(UdapCertificateErrorCode.NoChain);
  });

  it('refuses a leaf revoked meanwhile once the CRL it was checked with has passed its nextUpdate', async () => {
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [], { nextUpdate: NOW + 3600_000 }));
    await verifier.verify(await signed(leaf, [intermediate]), communityA, 'require');
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [leaf], { thisUpdate: NOW + 60_000, nextUpdate: NOW + 7200_000 }));
    clock = NOW + 3600_000 - 1;
    await expect(verifier.verify(await signed(leaf, [intermediate]), communityA, 'require')).resolves.toBeDefined();
    clock = NOW + 3600_000;
    expect((await refusal(await signed(leaf, [intermediate]))).code).toBe(UdapCertificateErrorCode.Revoked);
  });

  it('refuses, fail closed, once a kept CRL has passed its nextUpdate and cannot be fetched again', async () => {
    served.set(INTERMEDIATE_CRL, await crl(intermediate, [], { nextUpdate: NOW + 3600_000 }));
    await verifier.verify(await signed(leaf, [intermediate]), communityA, 'require');
    served.set(INTERMEDIATE_CRL, new Error('timed out'));
    clock = NOW + 3600_000;
    expect((await refusal(await signed(leaf, [intermediate]))).code).toBe(UdapCertificateErrorCode.CrlUnavailable);
  });

  it('shares one fetch of a CRL between concurrent checks', async () => {
    const other = await issue({ subject: 'CN=concurrent', issuer: intermediate, extensions: leafExtensions() });
    const jwts = [await signed(leaf, [intermediate]), await signed(other, [intermediate])];
    await Promise.all(jwts.map((jws) => verifier.verify(jws, communityA, 'require')));
    expect(fetches.get(INTERMEDIATE_CRL)).toBe(1);
  });
});

describe('UdapAnchors and anchorProblem', () => {
  it('accepts a CA certificate within its validity as an anchor', () => {
    expect(anchorProblem(pem(rootA), NOW)).toBeUndefined();
  });

  it('refuses an end-entity certificate as an anchor', () => {
    expect(anchorProblem(pem(leaf), NOW)).toBe('an anchor must be a CA certificate (basicConstraints CA:TRUE)');
  });

  it('refuses an anchor past its notAfter', () => {
    expect(anchorProblem(pem(rootA), NOW + 3651 * DAY)).toBe('the anchor has expired');
  });

  it('refuses text that is not a PEM certificate', () => {
    expect(() => UdapAnchors.fromPem(['not a certificate'])).toThrow(UdapAnchorError);
  });

  it('names an anchor set by its certificates, whatever their order', () => {
    expect(UdapAnchors.fromPem([pem(rootA), pem(rootB)]).key).toBe(UdapAnchors.fromPem([pem(rootB), pem(rootA)]).key);
    expect(communityA.key).not.toBe(communityB.key);
  });
});
