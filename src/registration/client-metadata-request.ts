import { BASE_GRANT_RULE, BASE_GRANT_TYPE, holdsBaseGrant } from '../oauth/grant-types.js';
import { CONTROL_CHARACTER } from '../common/control-characters.js';
import { RegistrationError, type ClientRegistration } from '../clients/client-registration.js';
import { metadataError } from './registration-error.js';
import type { AdministratorCeilings } from '../clients/administrator-ceilings.js';
import { MTLS_AUTH_METHODS, TLS_CLIENT_AUTH_MEMBERS } from '../clients/mutual-tls.js';

/**
 * The ceilings a client registers (and later updates) under: its initial access token's, copied at
 * registration, and for updates an administrator's changes since (AdministratorCeilings).
 */
export type Ceilings = {
  scopeCeiling: string;
  grantTypes: string;
  authMethods: string;
  accessTokenLifetime: number | null;
  administrator?: AdministratorCeilings;
};

const SET_BY_ADMINISTRATOR = 'an administrator set for this client';

/** The members of RFC 7591 §2 this server registers (docs/reference/registration-endpoint.md#accepted-metadata); others are ignored. */
export const ACCEPTED_MEMBERS = [
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'redirect_uris',
  'scope',
  'client_name',
  'contacts',
  'software_id',
  'software_version',
  'jwks',
  'jwks_uri',
  'dpop_bound_access_tokens',
  'tls_client_certificate_bound_access_tokens',
  ...TLS_CLIENT_AUTH_MEMBERS,
  'tls_client_auth_issuer_dn',
] as const;

/** A client's metadata once every rule of the table held, defaults filled in. */
export type RegisteredMetadata = {
  authMethod: string;
  grantTypes: string[];
  redirectUris: string[];
  scope: string;
  /** undefined: the client_id stands for the name. */
  clientName?: string;
  contacts: string[];
  softwareId: string | null;
  softwareVersion: string | null;
  jwks: Record<string, unknown> | null;
  jwksUri: string | null;
  dpopBound: boolean;
  /** The one `tls_client_auth_*` member a tls_client_auth client registered (RFC 8705 §2.1.2). */
  tlsSubject: Partial<Record<(typeof TLS_CLIENT_AUTH_MEMBERS)[number], string>>;
  /** The DN of the CA that must have issued a tls_client_auth client's certificate (docs/guides/mtls.md#the-ca-file); null: any CA. */
  tlsIssuerDn: string | null;
  certificateBound: boolean;
};

const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);
const KEY_METHODS = new Set(['private_key_jwt', 'self_signed_tls_client_auth']);
const MAX_TEXT = 255;

export function isSecretMethod(method: string): boolean {
  return SECRET_METHODS.has(method);
}

/**
 * Checks RFC 7591 metadata against the rules and the ceilings; a refusal is an OAuthError with
 * invalid_client_metadata (or invalid_redirect_uri) whose description names the member.
 */
export function readMetadata(body: Record<string, unknown>, ceilings: Ceilings, mtls: boolean): RegisteredMetadata {
  const authMethod = optionalString(body, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  const known = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', ...MTLS_AUTH_METHODS];
  if (!known.includes(authMethod)) refuse(`token_endpoint_auth_method: "${clip(authMethod)}" is not supported (use ${known.join(', ')})`);
  if ((MTLS_AUTH_METHODS as readonly string[]).includes(authMethod) && !mtls) {
    refuse(`token_endpoint_auth_method: ${authMethod} needs mutual TLS, which is not enabled on this server`);
  }
  if (!ceilings.authMethods.split(' ').includes(authMethod)) {
    refuse(`token_endpoint_auth_method: ${authMethod} is outside this initial access token's ceiling (${ceilings.authMethods})`);
  }

  const grantTypes = optionalStrings(body, 'grant_types', 10) ?? [BASE_GRANT_TYPE];
  const allowedGrants = ceilings.grantTypes.split(' ');
  for (const grant of grantTypes) {
    if (!allowedGrants.includes(grant)) refuse(`grant_types: ${clip(grant)} is outside this initial access token's ceiling (${ceilings.grantTypes})`);
  }
  const administrator = ceilings.administrator ?? {};
  if (administrator.grantTypes !== undefined) {
    const granted = administrator.grantTypes.split(' ');
    for (const grant of grantTypes) {
      if (!granted.includes(grant)) refuse(`grant_types: ${clip(grant)} is outside the grant types ${SET_BY_ADMINISTRATOR} (${administrator.grantTypes})`);
    }
  }
  if (!holdsBaseGrant(grantTypes)) refuse(`grant_types: ${BASE_GRANT_RULE}`);

  const responseTypes = optionalStrings(body, 'response_types', 10);
  if (responseTypes !== undefined && responseTypes.length > 0) refuse('response_types: must be empty (this server has no browser flows)');

  const redirectUris = (optionalStrings(body, 'redirect_uris', 100, 2048) ?? []).map(checkRedirectUri);

  const scope = readScope(body, ceilings);
  const clientName = optionalString(body, 'client_name');
  if (clientName !== undefined && (clientName.trim() === '' || clientName.length > MAX_TEXT)) refuse(`client_name: must be 1 to ${MAX_TEXT} characters`);
  const contacts = optionalStrings(body, 'contacts', 10) ?? [];
  const softwareId = optionalString(body, 'software_id') ?? null;
  const softwareVersion = optionalString(body, 'software_version') ?? null;

  const jwks = body.jwks;
  if (jwks !== undefined && (typeof jwks !== 'object' || jwks === null || Array.isArray(jwks))) refuse('jwks: must be a JSON object (a JWK Set)');
  const jwksUri = optionalString(body, 'jwks_uri', 2048) ?? null;
  if (jwks !== undefined && jwksUri !== null) refuse('jwks, jwks_uri: give one of them, not both');
  const hasKeys = jwks !== undefined || jwksUri !== null;
  if (KEY_METHODS.has(authMethod) && !hasKeys) refuse(`jwks, jwks_uri: a ${authMethod} client must register its public keys (jwks or jwks_uri)`);
  if (!KEY_METHODS.has(authMethod) && hasKeys)
    refuse(`${jwks !== undefined ? 'jwks' : 'jwks_uri'}: only for private_key_jwt (and self_signed_tls_client_auth) clients`);

  const tlsMembers = TLS_CLIENT_AUTH_MEMBERS.filter((member) => body[member] !== undefined);
  for (const member of tlsMembers) optionalString(body, member);
  if (authMethod === 'tls_client_auth' && tlsMembers.length !== 1)
    refuse(`tls_client_auth_*: a tls_client_auth client registers exactly one of ${TLS_CLIENT_AUTH_MEMBERS.join(', ')}`);
  if (authMethod !== 'tls_client_auth' && tlsMembers.length > 0) refuse(`${tlsMembers[0]}: only for tls_client_auth clients`);
  const tlsIssuerDn = optionalString(body, 'tls_client_auth_issuer_dn') ?? null;
  if (authMethod !== 'tls_client_auth' && tlsIssuerDn !== null) refuse('tls_client_auth_issuer_dn: only for tls_client_auth clients');

  const dpopBound = optionalBoolean(body, 'dpop_bound_access_tokens') ?? administrator.dpopBound === true;
  if (administrator.dpopBound === true && !dpopBound) refuse(`dpop_bound_access_tokens: must stay true, which ${SET_BY_ADMINISTRATOR}`);
  const certificateBound = optionalBoolean(body, 'tls_client_certificate_bound_access_tokens') ?? administrator.certificateBound === true;
  if (administrator.certificateBound === true && !certificateBound) {
    refuse(`tls_client_certificate_bound_access_tokens: must stay true, which ${SET_BY_ADMINISTRATOR}`);
  }
  if (dpopBound && certificateBound) refuse('dpop_bound_access_tokens, tls_client_certificate_bound_access_tokens: not both true (one binding per token)');
  if (certificateBound && !mtls) refuse('tls_client_certificate_bound_access_tokens: needs mutual TLS, which is not enabled on this server');

  return {
    authMethod,
    grantTypes: [...new Set(grantTypes)],
    redirectUris,
    scope,
    clientName,
    contacts,
    softwareId,
    softwareVersion,
    jwks: (jwks as Record<string, unknown> | undefined) ?? null,
    jwksUri,
    dpopBound,
    tlsSubject: Object.fromEntries(tlsMembers.map((member) => [member, body[member] as string])),
    tlsIssuerDn,
    certificateBound,
  };
}

/** What the clients module registers for this metadata (so every rule of the admin interface applies too). */
export function toClientRegistration(metadata: RegisteredMetadata, clientId: string, ceilings: Ceilings): ClientRegistration {
  return {
    clientId,
    clientName: metadata.clientName ?? clientId,
    allowedScopes: metadata.scope,
    authenticationType: metadata.authMethod,
    grantTypes: metadata.grantTypes.join(' '),
    redirectUris: metadata.redirectUris,
    jwksRaw: metadata.jwks === null ? null : JSON.stringify(metadata.jwks),
    jwksUri: metadata.jwksUri,
    dpopBound: metadata.dpopBound,
    accessTokenLifetime: ceilings.administrator?.accessTokenLifetime !== undefined ? ceilings.administrator.accessTokenLifetime : ceilings.accessTokenLifetime,
    tlsClientAuthSubjectDn: metadata.tlsSubject.tls_client_auth_subject_dn ?? null,
    tlsClientAuthSanDns: metadata.tlsSubject.tls_client_auth_san_dns ?? null,
    tlsClientAuthSanUri: metadata.tlsSubject.tls_client_auth_san_uri ?? null,
    tlsClientAuthSanIp: metadata.tlsSubject.tls_client_auth_san_ip ?? null,
    tlsClientAuthSanEmail: metadata.tlsSubject.tls_client_auth_san_email ?? null,
    tlsClientAuthIssuerDn: metadata.tlsIssuerDn,
    certificateBound: metadata.certificateBound,
  };
}

// The clients module's field names, as RFC 7591 members.
const MEMBER_OF_FIELD: Record<string, string> = {
  clientId: 'client_id',
  clientName: 'client_name',
  allowedScopes: 'scope',
  authenticationType: 'token_endpoint_auth_method',
  grantTypes: 'grant_types',
  redirectUris: 'redirect_uris',
  jwksRaw: 'jwks',
  jwksUri: 'jwks_uri',
  dpopBound: 'dpop_bound_access_tokens',
  accessTokenLifetime: 'access_token_lifetime',
  tlsClientAuthSubjectDn: 'tls_client_auth_subject_dn',
  tlsClientAuthSanDns: 'tls_client_auth_san_dns',
  tlsClientAuthSanUri: 'tls_client_auth_san_uri',
  tlsClientAuthSanIp: 'tls_client_auth_san_ip',
  tlsClientAuthSanEmail: 'tls_client_auth_san_email',
  tlsClientAuthIssuerDn: 'tls_client_auth_issuer_dn',
  certificateBound: 'tls_client_certificate_bound_access_tokens',
  clientSecret: 'client_secret',
};

/** A refusal of the clients module's rules as RFC 7591 answers it: the member named, redirect URIs with their own code. */
export function asMetadataError(error: RegistrationError): Error {
  const member = MEMBER_OF_FIELD[error.field] ?? error.field;
  let text = error.message;
  for (const [field, name] of Object.entries(MEMBER_OF_FIELD)) text = text.replaceAll(field, name);
  const description = text.startsWith(`${member}:`) ? text : `${member}: ${text}`;
  return metadataError(error.field === 'redirectUris' ? 'invalid_redirect_uri' : 'invalid_client_metadata', description);
}

function readScope(body: Record<string, unknown>, ceilings: Ceilings): string {
  const given = optionalString(body, 'scope', 4096);
  const administrator = ceilings.administrator?.scope;
  if (given === undefined) return administrator ?? ceilings.scopeCeiling;
  const names = [...new Set(given.split(' ').filter(Boolean))];
  if (names.length === 0) refuse('scope: must name at least one scope');
  const ceiling = new Set(ceilings.scopeCeiling.split(' '));
  const narrowed = administrator === undefined ? undefined : new Set(administrator.split(' '));
  for (const name of names) {
    if (!ceiling.has(name)) refuse(`scope: ${clip(name)} is outside this initial access token's ceiling`);
    if (narrowed && !narrowed.has(name)) refuse(`scope: ${clip(name)} is outside the scopes ${SET_BY_ADMINISTRATOR} (${administrator})`);
  }
  return names.join(' ');
}

function checkRedirectUri(uri: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(uri);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.protocol !== 'https:' || uri.includes('#')) {
    throw metadataError('invalid_redirect_uri', `redirect_uris: ${JSON.stringify(clip(uri))} must be an absolute https URI without a fragment`);
  }
  return uri;
}

function optionalString(body: Record<string, unknown>, member: string, maxLength = MAX_TEXT): string | undefined {
  const value = body[member];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') refuse(`${member}: must be a string`);
  if (value.length > maxLength) refuse(`${member}: must be at most ${maxLength} characters`);
  if (CONTROL_CHARACTER.test(value)) refuse(`${member}: must not contain control characters`);
  return value;
}

function optionalStrings(body: Record<string, unknown>, member: string, maxItems: number, maxLength = MAX_TEXT): string[] | undefined {
  const value = body[member];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) refuse(`${member}: must be an array of strings`);
  const items: unknown[] = value;
  if (items.length > maxItems) refuse(`${member}: at most ${maxItems} values`);
  for (const item of items) {
    if (typeof item !== 'string') refuse(`${member}: must be an array of strings`);
    if (item.length === 0 || item.length > maxLength) refuse(`${member}: each value must be 1 to ${maxLength} characters`);
    if (CONTROL_CHARACTER.test(item)) refuse(`${member}: must not contain control characters`);
  }
  return items as string[];
}

function optionalBoolean(body: Record<string, unknown>, member: string): boolean | undefined {
  const value = body[member];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') refuse(`${member}: must be true or false`);
  return value;
}

function refuse(description: string): never {
  throw metadataError('invalid_client_metadata', description);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
