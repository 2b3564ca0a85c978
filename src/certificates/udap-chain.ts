import { createHash, X509Certificate as NodeCertificate, type KeyObject } from 'node:crypto';
import 'reflect-metadata';
import {
  BasicConstraintsExtension,
  CRLDistributionPointsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectAlternativeNameExtension,
  X509Certificate,
  X509Crl,
} from '@peculiar/x509';
import { compactVerify, decodeProtectedHeader, type ProtectedHeaderParameters } from 'jose';
import { compactJwsTooDeep, exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { MIN_RSA_MODULUS_BITS } from '../common/rsa-bounds.js';
import { readName, type DistinguishedName } from './client-certificate.js';
import { formatDistinguishedName, sameName } from './distinguished-name.js';
import { keyOutOfBounds } from './key-bounds.js';

// UDAP's certificate checks (the HL7 FAST Security IG's "JWT validation", for software statements
// and client assertions alike): a JWT's x5c chain to a trust community's anchors, its signature
// by the leaf's key, and the chain's revocation status from the CRLs its certificates name.

/** The algorithms a UDAP JWT may be signed with (the IG's, §21's discovery document). */
export const UDAP_ALGORITHMS = ['RS256', 'ES256', 'RS384', 'ES384'] as const;
export type UdapAlgorithm = (typeof UDAP_ALGORITHMS)[number];

/** A community's `revocationCheck`. */
export type RevocationCheck = 'require' | 'off';

/** Fetches the CRL a distribution point names (DER); rejects when it cannot. */
export type CrlFetch = (url: string) => Promise<Uint8Array>;

export enum UdapCertificateErrorCode {
  /** Not a compact JWS, its header or payload unreadable, or its payload not a JSON object. */
  NotJws = 'not_jws',
  /** The header's alg is not one of UDAP_ALGORITHMS (none and HMAC included). */
  BadAlg = 'bad_alg',
  /** The leaf's key is not of the type (or curve, or size) the alg needs. */
  KeyMismatch = 'key_mismatch',
  /** An x5c certificate cannot be read, or cannot serve in a chain (its key, its extensions, its use). */
  BadCertificate = 'bad_certificate',
  /** No x5c, or no chain from the leaf to an anchor of the community. */
  NoChain = 'no_chain',
  Expired = 'expired',
  NotYetValid = 'not_yet_valid',
  Revoked = 'revoked',
  /** Revocation checking is required and a CRL could not be had, read, trusted or is out of date. */
  CrlUnavailable = 'crl_unavailable',
  /** The JWS's signature does not verify with the leaf's key. */
  BadSignature = 'bad_signature',
}

/**
 * A refusal of a UDAP JWT's certificates or signature. The message fits an OAuth
 * `error_description`: it names certificates by their place in x5c, never the token, a name or a URL.
 */
export class UdapCertificateError extends Error {
  constructor(
    readonly code: UdapCertificateErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A community's anchors that cannot be read (a configuration error, not a client's). */
export class UdapAnchorError extends Error {}

/** What the next steps need of the leaf. */
export type UdapLeaf = {
  /** base64url SHA-256 of the DER (`x5t#S256`). */
  thumbprint: string;
  /** Its subjectAltName URIs (the client's identity in its community is one of them). */
  sanUris: readonly string[];
  /** Its subject as RFC 4514 text, most significant RDN last. */
  subject: string;
  notAfter: Date;
};

export type UdapJwsHeader = ProtectedHeaderParameters & { alg: UdapAlgorithm; x5c: string[] };

export type VerifiedUdapJws = {
  header: UdapJwsHeader;
  /** The payload, a JSON object; its claims are the caller's to judge. */
  payload: Record<string, unknown>;
  leaf: UdapLeaf;
};

const MAX_JWS_LENGTH = 65_536;
const MAX_X5C = 8;
const MAX_LINKS = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// A CRL's thisUpdate may be this far ahead of our clock (its issuer's clock may run ahead of ours).
const CLOCK_SKEW_MS = 60_000;
const MAX_CHAINS = 10_000;
const MAX_CRLS = 1_000;
const SIGNATURE_HASHES: ReadonlySet<string> = new Set(['SHA-256', 'SHA-384', 'SHA-512']);
// RFC 5280 extensions this check understands; any other marked critical makes a certificate unusable.
const UNDERSTOOD_EXTENSIONS: ReadonlySet<string> = new Set([
  '2.5.29.14', // subjectKeyIdentifier
  '2.5.29.15', // keyUsage
  '2.5.29.17', // subjectAltName
  '2.5.29.19', // basicConstraints
  '2.5.29.31', // cRLDistributionPoints
  '2.5.29.32', // certificatePolicies (no policy is required, so none can fail a path)
  '2.5.29.35', // authorityKeyIdentifier
  '2.5.29.37', // extKeyUsage
]);
// A CRL's critical extensions that do not change what it says: its issuingDistributionPoint
// names the scope of the CRL found at the very distribution point the certificate named.
const UNDERSTOOD_CRL_EXTENSIONS: ReadonlySet<string> = new Set(['2.5.29.20', '2.5.29.28', '2.5.29.35']);

/** One certificate of a chain, read once. */
type ChainCertificate = {
  label: string;
  der: Buffer;
  node: NodeCertificate;
  x509: X509Certificate;
  fingerprint: string;
  subject: DistinguishedName;
  issuer: DistinguishedName;
  notBefore: number;
  notAfter: number;
};

/**
 * A trust community's anchors (PEM CA certificates), read once: make it when the community is
 * loaded or changed, not per request. `key` names the set, so that a verified chain is kept per
 * anchor set and a removed anchor stops trusting at once.
 */
export class UdapAnchors {
  readonly key: string;

  private constructor(readonly certificates: readonly ChainCertificate[]) {
    this.key = createHash('sha256')
      .update(
        certificates
          .map((certificate) => certificate.fingerprint)
          .sort((a, b) => a.localeCompare(b))
          .join(','),
      )
      .digest('base64url');
  }

  static fromPem(pems: readonly string[]): UdapAnchors {
    const certificates = pems.flatMap((pem) => {
      let blocks: ArrayBuffer[];
      try {
        blocks = PemConverter.decode(pem);
      } catch {
        throw new UdapAnchorError('an anchor is not a PEM certificate');
      }
      if (blocks.length === 0) throw new UdapAnchorError('an anchor is not a PEM certificate');
      return blocks.map((der) =>
        readCertificate(Buffer.from(der), 'the trust anchor', () => new UdapAnchorError('an anchor cannot be read as an X.509 certificate')),
      );
    });
    if (certificates.length === 0) throw new UdapAnchorError('a community needs at least one anchor');
    return new UdapAnchors(certificates);
  }
}

/**
 * Why a PEM certificate cannot be a community's anchor, or undefined: it must be one readable
 * certificate, a CA (basicConstraints CA:TRUE), within its validity at `now`.
 */
export function anchorProblem(pem: string, now = Date.now()): string | undefined {
  let anchors: UdapAnchors;
  try {
    anchors = UdapAnchors.fromPem([pem]);
  } catch (error) {
    return (error as Error).message;
  }
  if (anchors.certificates.length !== 1) return 'an anchor must be one certificate';
  const [anchor] = anchors.certificates;
  if (basicConstraints(anchor)?.ca !== true) return 'an anchor must be a CA certificate (basicConstraints CA:TRUE)';
  if (now < anchor.notBefore) return 'the anchor is not yet valid';
  if (now > anchor.notAfter) return 'the anchor has expired';
  return undefined;
}

/** The leaf's SAN URIs, subject and thumbprint, from its DER (the server's own certificate, say). */
export function describeLeaf(der: Uint8Array): UdapLeaf {
  const leaf = readCertificate(
    Buffer.from(der),
    'the certificate',
    () => new UdapCertificateError(UdapCertificateErrorCode.BadCertificate, 'the certificate cannot be read'),
  );
  return describeCertificate(leaf);
}

type ChainEntry = { leaf: UdapLeaf; key: KeyObject; validFrom: number; validUntil: number };
type CrlEntry = { crl: X509Crl; nextUpdate: number };

/**
 * Checks UDAP JWTs (software statements, client assertions) against a community's anchors. A
 * chain once verified is kept per leaf (SHA-256 of its DER) and anchor set until the earliest of
 * its certificates' notAfter and its CRLs' nextUpdate, so that the steady state costs one JWS
 * signature check; a CRL is kept per URL until its nextUpdate and fetched again after it.
 */
export class UdapChainVerifier {
  private readonly chains = new Map<string, ChainEntry>();
  private readonly crls = new Map<string, CrlEntry>();
  private readonly pendingCrls = new Map<string, Promise<X509Crl>>();
  private readonly fetchCrl: CrlFetch;
  private readonly now: () => number;

  constructor(options: { fetchCrl: CrlFetch; now?: () => number }) {
    this.fetchCrl = options.fetchCrl;
    this.now = options.now ?? Date.now;
  }

  /** The JWS's header, payload and leaf when its chain and signature hold; a UdapCertificateError otherwise. */
  async verify(jws: string, anchors: UdapAnchors, revocation: RevocationCheck): Promise<VerifiedUdapJws> {
    const header = readHeader(jws);
    const now = this.now();
    const leafDer = Buffer.from(header.x5c[0], 'base64');
    const cacheKey = `${hash(leafDer)}|${anchors.key}|${revocation}`;
    const cached = this.chains.get(cacheKey);
    if (cached && cached.validFrom <= now && now < cached.validUntil) {
      keyFitsAlgorithm(cached.key, header.alg);
      return { header, payload: await verifySignature(jws, cached.key, header.alg), leaf: cached.leaf };
    }
    const certificates = header.x5c.map((text, index) => readX5c(text, index));
    const [leaf, ...intermediates] = certificates;
    leafProblem(leaf, header.alg);
    const payload = await verifySignature(jws, leaf.node.publicKey, header.alg);
    const chain = buildChain(leaf, intermediates, anchors, now);
    const crlsUntil = revocation === 'require' ? await this.checkRevocation(chain, now) : Infinity;
    const entry: ChainEntry = {
      leaf: describeCertificate(leaf),
      key: leaf.node.publicKey,
      validFrom: Math.max(...chain.map((certificate) => certificate.notBefore)),
      validUntil: Math.min(crlsUntil, ...chain.map((certificate) => certificate.notAfter + 1)),
    };
    remember(this.chains, cacheKey, entry, MAX_CHAINS);
    return { header, payload, leaf: entry.leaf };
  }

  /** Every certificate below the anchor checked against its CRLs; answers the earliest nextUpdate. */
  private async checkRevocation(chain: ChainCertificate[], now: number): Promise<number> {
    let earliest = Infinity;
    for (let index = 0; index < chain.length - 1; index += 1) {
      const [certificate, issuer] = [chain[index], chain[index + 1]];
      const points = distributionPoints(certificate);
      if (points.length === 0) {
        throw crlUnavailable(`${certificate.label} names no http or https CRL distribution point, and this community requires revocation checking`);
      }
      for (const urls of points) {
        if (urls.length === 0) throw crlUnavailable(`${certificate.label} names a CRL distribution point with no http or https URL`);
        const crl = await this.currentCrl(urls, certificate, issuer, now);
        if (crl.crl.findRevoked(certificate.x509)) throw new UdapCertificateError(UdapCertificateErrorCode.Revoked, `${certificate.label} is revoked`);
        earliest = Math.min(earliest, crl.nextUpdate);
      }
    }
    return earliest;
  }

  /** The first of a distribution point's URLs that yields a current CRL of `issuer`. */
  private async currentCrl(urls: string[], certificate: ChainCertificate, issuer: ChainCertificate, now: number): Promise<CrlEntry> {
    let problem: UdapCertificateError | undefined;
    for (const url of urls) {
      try {
        return await this.crlAt(url, certificate, issuer, now);
      } catch (error) {
        if (!(error instanceof UdapCertificateError)) throw error;
        problem ??= error;
      }
    }
    throw problem!;
  }

  private async crlAt(url: string, certificate: ChainCertificate, issuer: ChainCertificate, now: number): Promise<CrlEntry> {
    const cached = this.crls.get(url);
    if (cached && now < cached.nextUpdate && (await crlProblem(cached.crl, issuer, now)) === undefined) return cached;
    let crl: X509Crl;
    try {
      crl = await this.loadShared(url);
    } catch (error) {
      throw crlUnavailable(`the CRL of ${certificate.label} ${(error as Error).message}`);
    }
    const problem = await crlProblem(crl, issuer, now);
    if (problem !== undefined) throw crlUnavailable(`the CRL of ${certificate.label} ${problem}`);
    return { crl, nextUpdate: crl.nextUpdate!.getTime() };
  }

  /**
   * The CRL at `url`, fetched and read, kept by URL until its nextUpdate before it is handed
   * out: concurrent checks that need it share one fetch. Whoever uses a kept CRL checks it
   * against the issuer at hand (its name, its signature, its dates) first.
   */
  private loadShared(url: string): Promise<X509Crl> {
    const pending = this.pendingCrls.get(url);
    if (pending) return pending;
    const loaded = this.fetchCrl(url)
      .then(
        (bytes) => readCrl(bytes),
        () => Promise.reject(new Error('could not be fetched')),
      )
      .then((crl) => {
        if (crl.nextUpdate !== undefined) remember(this.crls, url, { crl, nextUpdate: crl.nextUpdate.getTime() }, MAX_CRLS);
        return crl;
      })
      .finally(() => this.pendingCrls.delete(url));
    this.pendingCrls.set(url, loaded);
    return loaded;
  }
}

function readCrl(bytes: Uint8Array): X509Crl {
  try {
    return new X509Crl(bytes);
  } catch {
    throw new Error('cannot be read');
  }
}

function readHeader(jws: string): UdapJwsHeader {
  if (typeof jws !== 'string' || jws.length > MAX_JWS_LENGTH || jws.split('.').length !== 3) throw notJws('the JWT is not a compact JWS');
  if (compactJwsTooDeep(jws)) throw notJws(`the JWT's header or payload is ${TOO_DEEP}`);
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    throw notJws("the JWT's header cannot be read");
  }
  if (!(UDAP_ALGORITHMS as readonly unknown[]).includes(header.alg)) {
    throw new UdapCertificateError(UdapCertificateErrorCode.BadAlg, `the JWT's alg must be one of ${UDAP_ALGORITHMS.join(', ')}`);
  }
  const x5c: unknown = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0)
    throw new UdapCertificateError(UdapCertificateErrorCode.NoChain, "the JWT's header carries no x5c certificate chain");
  if (x5c.length > MAX_X5C) throw badCertificate(`the JWT's x5c holds more than ${MAX_X5C} certificates`);
  x5c.forEach((text: unknown, index) => {
    if (typeof text !== 'string' || !BASE64.test(text)) throw badCertificate(`${labelOf(index)} is not base64 DER`);
  });
  return header as UdapJwsHeader;
}

function readX5c(text: string, index: number): ChainCertificate {
  const label = labelOf(index);
  return readCertificate(Buffer.from(text, 'base64'), label, () => badCertificate(`${label} cannot be read as an X.509 certificate`));
}

function labelOf(index: number): string {
  return index === 0 ? 'the leaf certificate' : `x5c certificate ${index + 1}`;
}

function readCertificate(der: Buffer, label: string, unreadable: () => Error): ChainCertificate {
  try {
    const node = new NodeCertificate(der);
    const x509 = new X509Certificate(der);
    return {
      label,
      der,
      node,
      x509,
      fingerprint: hash(der),
      subject: readName(x509.subjectName),
      issuer: readName(x509.issuerName),
      notBefore: x509.notBefore.getTime(),
      notAfter: x509.notAfter.getTime(),
    };
  } catch {
    throw unreadable();
  }
}

function describeCertificate(leaf: ChainCertificate): UdapLeaf {
  const names = leaf.x509.getExtension(SubjectAlternativeNameExtension)?.names.toJSON() ?? [];
  return {
    thumbprint: leaf.fingerprint,
    sanUris: names.filter((name) => name.type === 'url').map((name) => name.value),
    subject: formatDistinguishedName(leaf.subject),
    notAfter: new Date(leaf.notAfter),
  };
}

/** The leaf must be an end entity whose key may sign, fits the alg, and costs a bounded verification. */
function leafProblem(leaf: ChainCertificate, alg: UdapAlgorithm): void {
  usable(leaf);
  if (basicConstraints(leaf)?.ca === true) throw badCertificate('the leaf certificate is a CA certificate, not an end entity');
  const usages = leaf.x509.getExtension(KeyUsagesExtension)?.usages;
  if (usages !== undefined && (usages & KeyUsageFlags.digitalSignature) === 0)
    throw badCertificate("the leaf certificate's keyUsage does not allow digitalSignature");
  keyFitsAlgorithm(leaf.node.publicKey, alg);
}

/** A certificate of x5c whose key or extensions this check cannot honour is refused. */
function usable(certificate: ChainCertificate): void {
  const outOfBounds = keyOutOfBounds(certificate.node);
  if (outOfBounds !== undefined) throw badCertificate(`${certificate.label} cannot be used: ${outOfBounds}`);
  const unknown = certificate.x509.extensions.find((extension) => extension.critical && !UNDERSTOOD_EXTENSIONS.has(extension.type));
  if (unknown !== undefined) throw badCertificate(`${certificate.label} has a critical extension this server does not process (${unknown.type})`);
}

function keyFitsAlgorithm(key: KeyObject, alg: UdapAlgorithm): void {
  const details = key.asymmetricKeyDetails ?? {};
  const fits = alg.startsWith('RS')
    ? key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) >= MIN_RSA_MODULUS_BITS
    : key.asymmetricKeyType === 'ec' && details.namedCurve === (alg === 'ES256' ? 'prime256v1' : 'secp384r1');
  if (!fits) {
    const needed = alg.startsWith('RS') ? `an RSA key of at least ${MIN_RSA_MODULUS_BITS} bits` : `an EC key on ${alg === 'ES256' ? 'P-256' : 'P-384'}`;
    throw new UdapCertificateError(UdapCertificateErrorCode.KeyMismatch, `the JWT's alg ${alg} needs ${needed}, and the leaf certificate holds another`);
  }
}

async function verifySignature(jws: string, key: KeyObject, alg: UdapAlgorithm): Promise<Record<string, unknown>> {
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(jws, key, { algorithms: [alg] }));
  } catch {
    throw new UdapCertificateError(UdapCertificateErrorCode.BadSignature, "the JWT's signature does not verify with the leaf certificate's key");
  }
  const text = new TextDecoder().decode(payload);
  if (exceedsJsonDepth(text)) throw notJws(`the JWT's payload is ${TOO_DEEP}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notJws("the JWT's payload is not a JSON object");
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw notJws("the JWT's payload is not a JSON object");
  return parsed as Record<string, unknown>;
}

function validity(certificate: ChainCertificate, now: number): UdapCertificateError | undefined {
  if (now < certificate.notBefore) return new UdapCertificateError(UdapCertificateErrorCode.NotYetValid, `${certificate.label} is not yet valid`);
  if (now > certificate.notAfter) return new UdapCertificateError(UdapCertificateErrorCode.Expired, `${certificate.label} has expired`);
  return undefined;
}

/** The links tried in one search, and why each that failed did. */
type Search = {
  anchors: UdapAnchors;
  intermediates: ChainCertificate[];
  now: number;
  links: number;
  failures: { depth: number; error: UdapCertificateError }[];
};

/**
 * A path from the leaf through x5c's other certificates (in any order) to one of the anchors.
 * When there is none, the refusal is the one met deepest along the paths tried (an expired
 * intermediate says so); when no issuer even has the right name, it is NoChain. At most
 * MAX_LINKS links are tried: x5c certificates that all share one name would otherwise make the
 * search try every order of them, a signature check each.
 */
function buildChain(leaf: ChainCertificate, intermediates: ChainCertificate[], anchors: UdapAnchors, now: number): ChainCertificate[] {
  const leafValidity = validity(leaf, now);
  if (leafValidity) throw leafValidity;
  const search: Search = { anchors, intermediates, now, links: 0, failures: [] };
  const path = extend([leaf], search);
  if (path) return path;
  const deepest = search.failures.sort((a, b) => b.depth - a.depth)[0];
  throw deepest?.error ?? noChain("the JWT's x5c chain does not lead to a trust anchor of this community");
}

function extend(path: ChainCertificate[], search: Search): ChainCertificate[] | undefined {
  const current = path[path.length - 1];
  const issuers = [...search.anchors.certificates, ...search.intermediates].filter(
    (candidate) => !path.includes(candidate) && sameName(current.issuer, candidate.subject),
  );
  for (const candidate of issuers) {
    search.links += 1;
    if (search.links > MAX_LINKS) return undefined;
    const isAnchor = search.anchors.certificates.includes(candidate);
    const problem = isAnchor ? linkProblem(path, candidate, search.now) : intermediateProblem(path, candidate, search.now);
    if (problem !== undefined) {
      search.failures.push({ depth: path.length, error: problem });
      continue;
    }
    if (isAnchor) return [...path, candidate];
    const found = path.length < MAX_X5C ? extend([...path, candidate], search) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** linkProblem for an issuer taken from x5c, which must also be usable (its key's cost, its critical extensions). */
function intermediateProblem(path: ChainCertificate[], candidate: ChainCertificate, now: number): UdapCertificateError | undefined {
  try {
    usable(candidate);
  } catch (error) {
    if (error instanceof UdapCertificateError) return error;
    throw error;
  }
  return linkProblem(path, candidate, now);
}

/** Why `issuer` cannot have issued the last certificate of `path` (RFC 5280 §6.1), or undefined. */
function linkProblem(path: ChainCertificate[], issuer: ChainCertificate, now: number): UdapCertificateError | undefined {
  const child = path[path.length - 1];
  const constraints = basicConstraints(issuer);
  if (constraints?.ca !== true) return noChain(`${issuer.label} issues another certificate but is not a CA (basicConstraints CA:TRUE)`);
  // pathLenConstraint: the intermediates below the issuer that are not self-issued.
  const below = path.slice(1).filter((certificate) => !sameName(certificate.subject, certificate.issuer)).length;
  if (constraints.pathLength !== undefined && below > constraints.pathLength)
    return noChain(`the chain is longer than the pathLenConstraint of ${issuer.label} allows`);
  const usages = issuer.x509.getExtension(KeyUsagesExtension)?.usages;
  if (usages !== undefined && (usages & KeyUsageFlags.keyCertSign) === 0) return noChain(`the keyUsage of ${issuer.label} does not allow keyCertSign`);
  if (!SIGNATURE_HASHES.has(hashOf(child))) return badCertificate(`${child.label} is signed with a hash other than SHA-256, SHA-384 or SHA-512`);
  if (!signedBy(child, issuer)) return noChain(`the signature of ${child.label} does not verify with the key of its issuer`);
  return validity(issuer, now);
}

function signedBy(child: ChainCertificate, issuer: ChainCertificate): boolean {
  try {
    return child.node.verify(issuer.node.publicKey);
  } catch {
    return false;
  }
}

function hashOf(certificate: ChainCertificate): string {
  const algorithm = certificate.x509.signatureAlgorithm as { hash?: { name?: string } };
  return algorithm.hash?.name ?? '';
}

function basicConstraints(certificate: ChainCertificate): BasicConstraintsExtension | undefined {
  return certificate.x509.getExtension(BasicConstraintsExtension) ?? undefined;
}

/** Each distribution point's http and https URLs; a point with none of them counts as an empty list. */
function distributionPoints(certificate: ChainCertificate): string[][] {
  const extension = certificate.x509.getExtension(CRLDistributionPointsExtension);
  return (extension?.distributionPoints ?? []).map((point) =>
    (point.distributionPoint?.fullName ?? [])
      .map((name) => name.uniformResourceIdentifier)
      .filter((uri): uri is string => uri !== undefined && /^https?:\/\//i.test(uri)),
  );
}

/** Why a CRL cannot speak for `issuer`'s certificates at `now`, or undefined (RFC 5280 §6.3.3). */
async function crlProblem(crl: X509Crl, issuer: ChainCertificate, now: number): Promise<string | undefined> {
  if (!sameName(readName(crl.issuerName), issuer.subject)) return "is not issued by the certificate's issuer";
  const usages = issuer.x509.getExtension(KeyUsagesExtension)?.usages;
  if (usages !== undefined && (usages & KeyUsageFlags.cRLSign) === 0) return 'is issued by a CA whose keyUsage does not allow cRLSign';
  const critical = crl.extensions.find((extension) => extension.critical && !UNDERSTOOD_CRL_EXTENSIONS.has(extension.type));
  if (critical !== undefined) return `has a critical extension this server does not process (${critical.type})`;
  let verified: boolean;
  try {
    verified = await crl.verify({ publicKey: issuer.x509 });
  } catch {
    verified = false;
  }
  if (!verified) return "is not signed with the key of the certificate's issuer";
  if (crl.thisUpdate.getTime() > now + CLOCK_SKEW_MS) return 'is not yet valid (thisUpdate)';
  if (crl.nextUpdate === undefined) return 'has no nextUpdate';
  if (crl.nextUpdate.getTime() <= now) return 'is out of date (past its nextUpdate)';
  return undefined;
}

function remember<T>(cache: Map<string, T>, key: string, value: T, limit: number): void {
  cache.delete(key);
  if (cache.size >= limit) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

function hash(der: Buffer): string {
  return createHash('sha256').update(der).digest('base64url');
}

function notJws(message: string): UdapCertificateError {
  return new UdapCertificateError(UdapCertificateErrorCode.NotJws, message);
}

function badCertificate(message: string): UdapCertificateError {
  return new UdapCertificateError(UdapCertificateErrorCode.BadCertificate, message);
}

function noChain(message: string): UdapCertificateError {
  return new UdapCertificateError(UdapCertificateErrorCode.NoChain, message);
}

function crlUnavailable(message: string): UdapCertificateError {
  return new UdapCertificateError(UdapCertificateErrorCode.CrlUnavailable, `the revocation status could not be established: ${message}`);
}
