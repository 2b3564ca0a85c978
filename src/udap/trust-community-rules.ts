import { anchorProblem } from '../certificates/udap-chain.js';
import { CONTROL_CHARACTER } from '../common/control-characters.js';
import { checkScopeCeiling, InitialAccessTokenError } from '../clients/initial-access-token-rules.js';
import { readUdapServerCertificate, UdapServerCertificateError } from '../config/udap-server-certificate.js';

/** Limits of a trust community (docs/reference/trust-communities.md). */
export const MAX_COMMUNITY_URI_LENGTH = 2048;
export const MAX_ANCHORS = 20;
export const MAX_ANCHOR_LENGTH = 65_536;
export const MAX_PURPOSES_OF_USE = 100;
export const MAX_ACCESS_TOKEN_LIFETIME = 3600;
export const MAX_SERVER_CERTIFICATE_LENGTH = 65_536;
export const MAX_SERVER_KEY_LENGTH = 16_384;
export const REVOCATION_CHECKS = ['require', 'off'] as const;
export type RevocationCheck = (typeof REVOCATION_CHECKS)[number];

/** A trust community's attributes once every rule is checked (admin JSON:API names). */
export type TrustCommunityAttributes = {
  name: string;
  communityUri: string;
  anchors: string[];
  scopeCeiling: string;
  purposesOfUse: string[];
  revocationCheck: RevocationCheck;
  accessTokenLifetime: number;
  enabled: boolean;
  /** The community's own server certificate for discovery (PEM chain, leaf first); null: the server's. */
  serverCertificate: string | null;
  /** Its leaf's PEM private key, in clear: write-only, sealed by the caller before it is stored. */
  serverKey: string | null;
};

export const TRUST_COMMUNITY_ATTRIBUTES: readonly (keyof TrustCommunityAttributes)[] = [
  'name',
  'communityUri',
  'anchors',
  'scopeCeiling',
  'purposesOfUse',
  'revocationCheck',
  'accessTokenLifetime',
  'enabled',
  'serverCertificate',
  'serverKey',
];

/** Attributes that may be null: null removes the community's own server certificate. */
const NULLABLE = new Set<string>(['serverCertificate', 'serverKey']);

/** What the checks of a server certificate need: the issuer its leaf must name, and the time. */
export type TrustCommunityContext = { issuer?: string; now?: number };

/** A refused trust community; `field` is the attribute (JSON:API name). */
export class TrustCommunityError extends Error {
  constructor(
    readonly field: string,
    message: string,
    /**
     * `type`: a wrong JSON type (400); `rule`: a broken rule (422); `taken`: the id or the
     * communityUri is taken (409); `referenced`: clients still belong to the community (409).
     */
    readonly kind: 'type' | 'rule' | 'taken' | 'referenced' = 'rule',
  ) {
    super(message);
  }
}

type Check<T> = (value: unknown) => T;

/** Each attribute's rule; an absent value (undefined) takes the default, where there is one. */
const CHECKS: { [Name in keyof TrustCommunityAttributes]: Check<TrustCommunityAttributes[Name]> } = {
  name: checkName,
  communityUri: checkCommunityUri,
  anchors: checkAnchors,
  scopeCeiling: checkCeiling,
  purposesOfUse: checkPurposesOfUse,
  revocationCheck: checkRevocationCheck,
  accessTokenLifetime: checkAccessTokenLifetime,
  enabled: checkEnabled,
  serverCertificate: (value) => checkPem('serverCertificate', value, MAX_SERVER_CERTIFICATE_LENGTH),
  serverKey: (value) => checkPem('serverKey', value, MAX_SERVER_KEY_LENGTH),
};

/** A new community's attributes as given, every rule checked, defaults applied. */
export function checkNewTrustCommunity(values: ReadonlyMap<string, unknown>, context: TrustCommunityContext = {}): TrustCommunityAttributes {
  const checked = {} as Record<string, unknown>;
  for (const name of TRUST_COMMUNITY_ATTRIBUTES) checked[name] = CHECKS[name](values.get(name));
  const attributes = checked as TrustCommunityAttributes;
  checkServerCertificatePair(attributes.serverCertificate, attributes.serverKey, context);
  return attributes;
}

/** The attributes a replace names, each checked by its rule (null is a value only serverCertificate and serverKey take: both removed). */
export function checkTrustCommunityChanges(values: ReadonlyMap<string, unknown>, context: TrustCommunityContext = {}): Partial<TrustCommunityAttributes> {
  const checked = {} as Record<string, unknown>;
  for (const name of TRUST_COMMUNITY_ATTRIBUTES) {
    if (!values.has(name)) continue;
    const value = values.get(name);
    if (value === undefined || (value === null && !NULLABLE.has(name))) throw new TrustCommunityError(name, `${name} cannot be null`, 'type');
    checked[name] = CHECKS[name](value);
  }
  if (values.has('serverCertificate') || values.has('serverKey')) {
    checkServerCertificatePair(checked.serverCertificate as string | null | undefined, checked.serverKey as string | null | undefined, context);
    // One of them null (the other absent) removes both: a key without its certificate is never kept.
    if (checked.serverCertificate == null) Object.assign(checked, { serverCertificate: null, serverKey: null });
  }
  return checked;
}

/**
 * serverCertificate and serverKey go together (both set, or both null): the leaf within its
 * validity with a SAN URI equal to the issuer (it signs signed_metadata, whose iss is the
 * issuer), the key an RSA key of at least 2048 bits that is the leaf's
 * (config/udap-server-certificate.ts).
 */
function checkServerCertificatePair(certificate: string | null | undefined, key: string | null | undefined, context: TrustCommunityContext): void {
  if (certificate == null && key == null) return;
  if (certificate == null) throw new TrustCommunityError('serverCertificate', 'serverCertificate must be given with serverKey (both, or both null)');
  if (key == null) throw new TrustCommunityError('serverKey', 'serverKey must be given with serverCertificate (both, or both null)');
  if (context.issuer === undefined) throw new Error('a server certificate is checked against the issuer: pass it in the context');
  try {
    readUdapServerCertificate(certificate, key, context.issuer, context.now);
  } catch (error) {
    if (!(error instanceof UdapServerCertificateError)) throw error;
    const field = error.part === 'certificate' ? 'serverCertificate' : 'serverKey';
    throw new TrustCommunityError(field, `${field} ${error.message}`);
  }
}

function checkName(value: unknown): string {
  if (value === undefined) throw new TrustCommunityError('name', 'name is required');
  if (typeof value !== 'string') throw new TrustCommunityError('name', 'name must be a string', 'type');
  if (value.trim() === '' || value.length > 255 || CONTROL_CHARACTER.test(value)) {
    throw new TrustCommunityError('name', 'name must be 1 to 255 characters without control characters');
  }
  return value;
}

function checkCommunityUri(value: unknown): string {
  if (value === undefined) throw new TrustCommunityError('communityUri', 'communityUri is required');
  if (typeof value !== 'string') throw new TrustCommunityError('communityUri', 'communityUri must be a string', 'type');
  if (!isAbsoluteUri(value, MAX_COMMUNITY_URI_LENGTH)) {
    throw new TrustCommunityError('communityUri', `communityUri must be an absolute URI (at most ${MAX_COMMUNITY_URI_LENGTH} characters, no white space)`);
  }
  return value;
}

/** Each anchor one CA certificate within its validity (certificates/udap-chain.ts), named by its index. */
function checkAnchors(value: unknown, now = Date.now()): string[] {
  if (value === undefined) throw new TrustCommunityError('anchors', 'anchors is required');
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new TrustCommunityError('anchors', 'anchors must be an array of PEM certificates', 'type');
  }
  const anchors = value as string[];
  if (anchors.length === 0 || anchors.length > MAX_ANCHORS) {
    throw new TrustCommunityError('anchors', `anchors must hold 1 to ${MAX_ANCHORS} PEM certificates`);
  }
  for (const [index, anchor] of anchors.entries()) {
    const problem = anchor.length > MAX_ANCHOR_LENGTH ? 'the certificate is too long' : anchorProblem(anchor, now);
    if (problem) throw new TrustCommunityError('anchors', `anchors[${index}]: ${problem}`);
  }
  return anchors;
}

/** As an initial access token's scopeCeiling (clients/initial-access-token-rules.ts), but required. */
function checkCeiling(value: unknown): string {
  if (value === undefined) throw new TrustCommunityError('scopeCeiling', 'scopeCeiling is required');
  try {
    return checkScopeCeiling(value);
  } catch (error) {
    if (error instanceof InitialAccessTokenError) throw new TrustCommunityError('scopeCeiling', error.message, error.kind === 'type' ? 'type' : 'rule');
    throw error;
  }
}

/** Codes in the IG's URI form, such as urn:oid:2.16.840.1.113883.5.8#TREAT; each once. */
function checkPurposesOfUse(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new TrustCommunityError('purposesOfUse', 'purposesOfUse must be an array of strings', 'type');
  }
  const codes = value as string[];
  if (codes.length > MAX_PURPOSES_OF_USE) throw new TrustCommunityError('purposesOfUse', `purposesOfUse holds at most ${MAX_PURPOSES_OF_USE} codes`);
  for (const code of codes) {
    if (!isAbsoluteUri(code, 255)) {
      throw new TrustCommunityError(
        'purposesOfUse',
        `purpose-of-use code "${code.slice(0, 255)}" must be an absolute URI of at most 255 characters without white space, such as urn:oid:2.16.840.1.113883.5.8#TREAT`,
      );
    }
  }
  return [...new Set(codes)];
}

/** A PEM text (a chain, or a key) of at most `maxLength` characters; undefined or null: none. Its content is checked with its pair. */
function checkPem(name: string, value: unknown, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new TrustCommunityError(name, `${name} must be a PEM string or null`, 'type');
  if (value.length > maxLength || !value.includes('-----BEGIN '))
    throw new TrustCommunityError(name, `${name} must be PEM text of at most ${maxLength} characters`);
  return value;
}

function checkRevocationCheck(value: unknown): RevocationCheck {
  if (value === undefined) return 'require';
  if (typeof value !== 'string') throw new TrustCommunityError('revocationCheck', 'revocationCheck must be a string', 'type');
  if (!(REVOCATION_CHECKS as readonly string[]).includes(value)) {
    throw new TrustCommunityError('revocationCheck', `revocationCheck must be ${REVOCATION_CHECKS.join(' or ')}`);
  }
  return value as RevocationCheck;
}

function checkAccessTokenLifetime(value: unknown): number {
  if (value === undefined) return MAX_ACCESS_TOKEN_LIFETIME;
  if (typeof value !== 'number') throw new TrustCommunityError('accessTokenLifetime', 'accessTokenLifetime must be a number of seconds', 'type');
  if (!Number.isInteger(value) || value < 1 || value > MAX_ACCESS_TOKEN_LIFETIME) {
    throw new TrustCommunityError('accessTokenLifetime', `accessTokenLifetime must be a whole number of seconds from 1 to ${MAX_ACCESS_TOKEN_LIFETIME}`);
  }
  return value;
}

function checkEnabled(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') throw new TrustCommunityError('enabled', 'enabled must be true or false', 'type');
  return value;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** An absolute URI (RFC 3986: a scheme and something after it), printable, no white space. */
function isAbsoluteUri(value: string, maxLength: number): boolean {
  if (value.length === 0 || value.length > maxLength || /\s/.test(value) || CONTROL_CHARACTER.test(value) || !SCHEME.test(value)) return false;
  if (value.replace(SCHEME, '') === '') return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
