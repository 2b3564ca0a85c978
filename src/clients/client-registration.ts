import { CONTROL_CHARACTER } from '../common/control-characters.js';
import { JwksError, validateJwks } from './client-jwks.js';
import { forbiddenTarget } from './jwks-uri-target.js';
import { CLIENT_AUTHENTICATION_TYPES, type ClientAuthenticationType } from './client-metadata.entity.js';
import { SubjectRuleError, checkSubjectRule, type SubjectRuleKind } from '../certificates/subject-rules.js';
import { firstCertificateOf } from '../certificates/x5c.js';
import { BASE_GRANT_RULE, BASE_GRANT_TYPE, GRANT_TYPES, holdsBaseGrant } from '../oauth/grant-types.js';

/** What an operator gives to register a client, with the CLI or over the admin interface (JSON:API names map onto these). */
export type ClientRegistration = {
  clientId: string;
  clientName: string;
  allowedScopes: string;
  authenticationType?: string;
  grantTypes?: string;
  redirectUris?: string[];
  clientSecret?: string;
  /** docs/guides/clients-with-keys.md#registering-the-client: the client's public keys, as a JWKS document (JSON text) or a URL serving one. */
  jwksRaw?: string | null;
  jwksUri?: string | null;
  /** docs/reference/token-endpoint.md#dpop-proofs: every token request must carry a DPoP proof. */
  dpopBound?: boolean;
  /** Seconds a token of this client lives at most (1 to 86400), instead of ACCESS_TOKEN_TTL; null: the default. */
  accessTokenLifetime?: number | null;
  /** docs/guides/mtls.md#registering-a-client: a tls_client_auth client's one subject value (RFC 8705 §2.1.2); null or absent otherwise. */
  tlsClientAuthSubjectDn?: string | null;
  tlsClientAuthSanDns?: string | null;
  tlsClientAuthSanUri?: string | null;
  tlsClientAuthSanIp?: string | null;
  tlsClientAuthSanEmail?: string | null;
  /** docs/guides/mtls.md#the-ca-file: a tls_client_auth client's issuer binding (the issuing CA's DN); null or absent: any CA of the file. */
  tlsClientAuthIssuerDn?: string | null;
  /** docs/guides/mtls.md#certificate-bound-tokens: access tokens bound to the client's certificate (RFC 8705 §3). */
  certificateBound?: boolean;
};

/**
 * What the deployment allows: JWKS_URI_ALLOW_HTTP lets a jwks_uri point at loopback and private
 * hosts; `mtls` (MTLS=true) enables the certificate methods and certificate-bound tokens,
 * `tlsClientAuth` (TLS_CLIENT_CA_FILE set) the method tls_client_auth (docs/guides/mtls.md).
 */
export type RegistrationPolicy = {
  allowPrivateJwksUri: boolean;
  mtls?: boolean;
  tlsClientAuth?: boolean;
  /** A UDAP member (docs/reference/trust-communities.md#registration): its private_key_jwt key is in the certificate of each request, never registered. */
  keysFromCertificate?: boolean;
};

/** The registration fields of the five tls_client_auth subject values, and the rule each one is. */
export const TLS_SUBJECT_FIELDS: readonly (readonly [field: TlsSubjectField, kind: SubjectRuleKind])[] = [
  ['tlsClientAuthSubjectDn', 'subjectDn'],
  ['tlsClientAuthSanDns', 'sanDns'],
  ['tlsClientAuthSanUri', 'sanUri'],
  ['tlsClientAuthSanIp', 'sanIp'],
  ['tlsClientAuthSanEmail', 'sanEmail'],
];
export type TlsSubjectField = 'tlsClientAuthSubjectDn' | 'tlsClientAuthSanDns' | 'tlsClientAuthSanUri' | 'tlsClientAuthSanIp' | 'tlsClientAuthSanEmail';

export const MAX_ACCESS_TOKEN_LIFETIME = 86_400;

export type ValidRegistration = Required<Omit<ClientRegistration, 'clientSecret'>> & {
  authenticationType: ClientAuthenticationType;
  clientSecret?: string;
  jwksRaw: string | null;
  jwksUri: string | null;
  accessTokenLifetime: number | null;
  certificateBound: boolean;
  tlsClientAuthIssuerDn: string | null;
} & Record<TlsSubjectField, string | null>;

/** What a refusal of the clients module is about: each edge (admin interface, RFC 7591/7592, CLI) answers it in its own format. */
export enum ClientErrorCode {
  /** A rule of the registration is broken; the error's `field` names the input. */
  InvalidRegistration = 'invalid_registration',
  /** The record id or the clientId asked for belongs to another client. */
  Taken = 'taken',
  /** No such client. */
  NotFound = 'not_found',
  /** Tickets, requested resources, data sources or UMA resources still refer to the client. */
  StillReferenced = 'still_referenced',
  /** The client authenticates with a key or certificate: it has no secret to rotate. */
  NoSecret = 'no_secret',
}

/** A refusal of the clients module; `field` names the offending input, `code` what kind of refusal it is. */
export class RegistrationError extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly code: ClientErrorCode = ClientErrorCode.InvalidRegistration,
  ) {
    super(message);
  }
}

/**
 * The record id or the clientId a new client asks for is already taken (`field`: `id` or
 * `clientId`): a conflict with a stored client, not a malformed registration.
 */
export class ClientTakenError extends RegistrationError {
  constructor(
    field: 'id' | 'clientId',
    readonly value: string | number,
  ) {
    super(field, field === 'id' ? `a client record with id ${value} already exists` : `a client with id "${value}" already exists`, ClientErrorCode.Taken);
  }
}

// RFC 6749 appendix A: client_id and client_secret are VSCHAR, scope tokens NQCHAR.
const VSCHAR = /^[\x20-\x7e]+$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const MAX_LENGTH = 255;

export function validateRegistration(input: ClientRegistration, policy: RegistrationPolicy = { allowPrivateJwksUri: false }): ValidRegistration {
  checkVschar('clientId', input.clientId);
  checkText('clientName', input.clientName);
  const scopes = normaliseSpaced('allowedScopes', input.allowedScopes, SCOPE_TOKEN);
  const authenticationType = input.authenticationType ?? 'client_secret_basic';
  if (!(CLIENT_AUTHENTICATION_TYPES as readonly string[]).includes(authenticationType)) {
    throw new RegistrationError('authenticationType', `authentication method must be one of ${CLIENT_AUTHENTICATION_TYPES.join(', ')}`);
  }
  const grantTypes = normaliseSpaced('grantTypes', input.grantTypes ?? BASE_GRANT_TYPE, /^\S+$/);
  for (const grant of grantTypes.split(' ')) {
    if (!(GRANT_TYPES as readonly string[]).includes(grant)) {
      throw new RegistrationError('grantTypes', `grant type "${grant}" is not supported (use ${GRANT_TYPES.join(', ')})`);
    }
  }
  if (!holdsBaseGrant(grantTypes.split(' '))) throw new RegistrationError('grantTypes', `grant types ${BASE_GRANT_RULE}`);
  const redirectUris = (input.redirectUris ?? []).map(checkRedirectUri);
  if (input.clientSecret !== undefined) checkSecret(input.clientSecret);
  const keys = checkKeys(authenticationType, input, policy);
  const certificate = checkCertificateMethods(authenticationType, input, keys, policy);
  return {
    ...keys,
    ...certificate,
    accessTokenLifetime: checkLifetime(input.accessTokenLifetime ?? null),
    dpopBound: input.dpopBound ?? false,
    clientId: input.clientId,
    clientName: input.clientName,
    allowedScopes: scopes,
    authenticationType: authenticationType as ClientAuthenticationType,
    grantTypes,
    redirectUris,
    clientSecret: input.clientSecret,
  };
}

/**
 * The checks of a client's key material, for every way of registering a client (the admin
 * interface, the CLI, dynamic registration): a JWKS (JSON text) or a URL serving one, never
 * both. The JWKS holds 1 to 10 public keys within the bounds of
 * docs/operations/security.md#bounded-key-cost; the URL is an https URL whose literal host is no
 * internal address (docs/operations/security.md#jwks_uri-targets) unless the policy allows it.
 * A refusal is a RegistrationError whose `field` is `jwksRaw` or `jwksUri` and whose message says
 * why; map the field onto the caller's own member name (e.g. `jwks`, `jwks_uri`).
 */
export function validateKeyMaterial(
  keys: { jwksRaw?: string | null; jwksUri?: string | null },
  policy: RegistrationPolicy = { allowPrivateJwksUri: false },
): { jwksRaw: string | null; jwksUri: string | null } {
  const jwksRaw = keys.jwksRaw ?? null;
  const jwksUri = keys.jwksUri ?? null;
  if (jwksRaw !== null && jwksUri !== null) throw new RegistrationError('jwksUri', 'give jwksRaw or jwksUri, not both');
  if (jwksRaw !== null) {
    try {
      validateJwks(jwksRaw);
    } catch (error) {
      if (error instanceof JwksError) throw new RegistrationError('jwksRaw', `jwksRaw: ${error.message}`);
      throw error;
    }
  }
  if (jwksUri !== null) checkJwksUri(jwksUri, policy);
  return { jwksRaw, jwksUri };
}

/** docs/guides/clients-with-keys.md#registering-the-client: a private_key_jwt client has keys (a JWKS or its URL, never both) and no secret. */
function checkKeys(authenticationType: string, input: ClientRegistration, policy: RegistrationPolicy): { jwksRaw: string | null; jwksUri: string | null } {
  const { jwksRaw, jwksUri } = validateKeyMaterial(input, policy);
  if (authenticationType === 'private_key_jwt') {
    if (jwksRaw === null && jwksUri === null && policy.keysFromCertificate !== true) {
      throw new RegistrationError('jwksRaw', 'a private_key_jwt client needs its public keys: give jwksRaw or jwksUri');
    }
    if (input.clientSecret !== undefined) throw new RegistrationError('clientSecret', 'a private_key_jwt client has no client secret');
  }
  return { jwksRaw, jwksUri };
}

/**
 * docs/guides/mtls.md#registering-a-client: tls_client_auth needs MTLS=true and TLS_CLIENT_CA_FILE,
 * and exactly one subject value (other methods none); self_signed_tls_client_auth needs MTLS=true
 * and a key set whose keys carry `x5c` (a JWKS: at least one key whose first certificate holds
 * that key); neither has a secret. Certificate-bound tokens need MTLS=true, and are never asked
 * for together with DPoP-bound ones (a token carries one binding).
 */
function checkCertificateMethods(
  authenticationType: string,
  input: ClientRegistration,
  keys: { jwksRaw: string | null; jwksUri: string | null },
  policy: RegistrationPolicy,
): Record<TlsSubjectField, string | null> & { certificateBound: boolean; tlsClientAuthIssuerDn: string | null } {
  const subjects = Object.fromEntries(TLS_SUBJECT_FIELDS.map(([field]) => [field, null])) as Record<TlsSubjectField, string | null>;
  const given = TLS_SUBJECT_FIELDS.filter(([field]) => input[field] !== undefined && input[field] !== null);
  if (authenticationType === 'tls_client_auth') {
    if (!policy.mtls) throw new RegistrationError('authenticationType', 'tls_client_auth needs mutual TLS, which this server does not have on (MTLS=true)');
    if (!policy.tlsClientAuth) throw new RegistrationError('authenticationType', 'tls_client_auth needs TLS_CLIENT_CA_FILE, which this server does not have');
    if (given.length !== 1) {
      throw new RegistrationError(
        given[1]?.[0] ?? 'tlsClientAuthSubjectDn',
        `a tls_client_auth client registers exactly one of ${TLS_SUBJECT_FIELDS.map(([field]) => field).join(', ')}`,
      );
    }
    const [field, kind] = given[0];
    try {
      subjects[field] = checkSubjectRule(kind, input[field]);
    } catch (error) {
      if (error instanceof SubjectRuleError) throw new RegistrationError(field, `${field}: ${error.message}`);
      throw error;
    }
  } else if (given.length > 0) {
    throw new RegistrationError(given[0][0], `${given[0][0]} is only for a client authenticating with tls_client_auth`);
  }
  const tlsClientAuthIssuerDn = checkIssuerBinding(authenticationType, input.tlsClientAuthIssuerDn);
  if (authenticationType === 'self_signed_tls_client_auth') {
    if (!policy.mtls)
      throw new RegistrationError('authenticationType', 'self_signed_tls_client_auth needs mutual TLS, which this server does not have on (MTLS=true)');
    if (keys.jwksRaw === null && keys.jwksUri === null) {
      throw new RegistrationError('jwksRaw', 'a self_signed_tls_client_auth client registers its certificates: give jwksRaw or jwksUri with x5c keys');
    }
    if (keys.jwksRaw !== null) {
      const jwks = validateJwks(keys.jwksRaw);
      if (!jwks.keys.some((key) => firstCertificateOf(key) !== undefined)) {
        throw new RegistrationError('jwksRaw', 'jwksRaw: no key carries an "x5c" whose first certificate holds that key (RFC 7517 §4.7)');
      }
    }
  }
  if ((authenticationType === 'tls_client_auth' || authenticationType === 'self_signed_tls_client_auth') && input.clientSecret !== undefined) {
    throw new RegistrationError('clientSecret', `a ${authenticationType} client has no client secret`);
  }
  const certificateBound = input.certificateBound ?? false;
  if (typeof certificateBound !== 'boolean') throw new RegistrationError('certificateBound', 'certificate-bound tokens are true or false');
  if (certificateBound && !policy.mtls)
    throw new RegistrationError('certificateBound', 'certificate-bound tokens need mutual TLS, which this server does not have on (MTLS=true)');
  if (certificateBound && input.dpopBound === true) {
    throw new RegistrationError('certificateBound', 'a client gets DPoP-bound or certificate-bound tokens, not both: a token carries one binding');
  }
  return { ...subjects, certificateBound, tlsClientAuthIssuerDn };
}

/** The issuer binding (docs/guides/mtls.md#the-ca-file): a distinguished name, only for tls_client_auth; null when not given. */
function checkIssuerBinding(authenticationType: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (authenticationType !== 'tls_client_auth') {
    throw new RegistrationError('tlsClientAuthIssuerDn', 'tlsClientAuthIssuerDn is only for a client authenticating with tls_client_auth');
  }
  try {
    // The same syntax as a subject DN; the message names the issuer's own member.
    return checkSubjectRule('subjectDn', value);
  } catch (error) {
    if (error instanceof SubjectRuleError) {
      throw new RegistrationError(
        'tlsClientAuthIssuerDn',
        `tlsClientAuthIssuerDn: ${error.message.replace('tls_client_auth_subject_dn', 'tls_client_auth_issuer_dn')}`,
      );
    }
    throw error;
  }
}

function checkJwksUri(uri: string, policy: RegistrationPolicy): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(uri);
  } catch {
    parsed = undefined;
  }
  // Plain http only where the deployment allows it (JWKS_URI_ALLOW_HTTP): refused at registration, not only at fetch time.
  const schemes = policy.allowPrivateJwksUri ? ['https:', 'http:'] : ['https:'];
  if (!parsed || !schemes.includes(parsed.protocol) || parsed.hash || uri.length > 2048) {
    throw new RegistrationError('jwksUri', 'jwksUri must be an absolute https URL without fragment, of at most 2048 characters');
  }
  // Judged as written: a name is resolved (and judged again) only when the keys are fetched.
  const forbidden = policy.allowPrivateJwksUri ? undefined : forbiddenTarget(parsed);
  if (forbidden !== undefined) throw new RegistrationError('jwksUri', `jwksUri ${forbidden}`);
}

function checkLifetime(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_ACCESS_TOKEN_LIFETIME) {
    throw new RegistrationError('accessTokenLifetime', `accessTokenLifetime must be a whole number of seconds from 1 to ${MAX_ACCESS_TOKEN_LIFETIME}, or null`);
  }
  return value;
}

function checkVschar(field: string, value: string): void {
  if (typeof value !== 'string' || !VSCHAR.test(value) || value.length > MAX_LENGTH) {
    throw new RegistrationError(field, `${field} must be 1 to ${MAX_LENGTH} printable ASCII characters`);
  }
}

function checkText(field: string, value: string): void {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_LENGTH || CONTROL_CHARACTER.test(value)) {
    throw new RegistrationError(field, `${field} must be 1 to ${MAX_LENGTH} characters without control characters`);
  }
}

export function checkSecret(secret: string): void {
  if (typeof secret !== 'string' || !VSCHAR.test(secret) || secret.length < 16 || secret.length > MAX_LENGTH) {
    throw new RegistrationError('clientSecret', `client secret must be 16 to ${MAX_LENGTH} printable ASCII characters`);
  }
}

/** Collapses runs of white space to one space and checks each name. */
function normaliseSpaced(field: string, value: string, token: RegExp): string {
  const names = typeof value === 'string' ? value.trim().split(/\s+/).filter(Boolean) : [];
  if (names.length === 0 || names.some((name) => !token.test(name)) || value.length > 4096) {
    throw new RegistrationError(field, `${field} must be one or more space-separated names of printable characters`);
  }
  return [...new Set(names)].join(' ');
}

function checkRedirectUri(uri: string): string {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw new RegistrationError('redirectUris', `redirect URI ${JSON.stringify(uri)} is not an absolute URI`);
  }
  if (parsed.hash || uri.length > 2048) {
    throw new RegistrationError('redirectUris', `redirect URI ${JSON.stringify(uri)} must have no fragment and at most 2048 characters`);
  }
  return uri;
}
