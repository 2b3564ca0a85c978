import { CONTROL_CHARACTER } from '../common/control-characters.js';
import type { OAuthError } from '../oauth/oauth-error.js';
import { metadataError } from './registration-error.js';

// docs/reference/trust-communities.md#registration: the claims of a UDAP software statement (HL7
// FAST Security IG STU 2 §3.1; udap.org's Dynamic Client Registration), once its certificates and
// signature are checked. Framework-free.

/** How long a statement may live (`exp` − `iat`), and how far ahead of our clock its `iat` may be. */
export const MAX_STATEMENT_LIFETIME_SECONDS = 300;
const MAX_CLOCK_AHEAD_SECONDS = 10;
const MAX_TEXT = 255;
const MAX_JTI = 255;
const MAX_CONTACTS = 10;
const MAX_SCOPE = 4096;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const GRANT = 'client_credentials';
const AUTH_METHOD = 'private_key_jwt';

/** What a checked statement registers; `cancel`: `grant_types` was `[]`. */
export type UdapStatement = {
  iss: string;
  jti: string;
  exp: number;
  cancel: boolean;
  clientName: string;
  contacts: string[];
  grantTypes: string[];
  scope: string;
};

export type UdapStatementContext = {
  /** The SAN URIs of the statement's leaf certificate. */
  sanUris: readonly string[];
  registrationEndpoint: string;
  /** The community's scopeCeiling (space-separated). */
  scopeCeiling: string;
  /** Seconds since the epoch. */
  now: number;
};

/**
 * The statement's claims checked in order: identity and timing (invalid_software_statement, or
 * unapproved_software_statement when `iss` is not a SAN URI of the leaf), then the metadata
 * (invalid_client_metadata). A refusal is an OAuthError whose description names the claim.
 */
export function checkUdapStatement(claims: Record<string, unknown>, context: UdapStatementContext): UdapStatement {
  const { iss } = claims;
  if (typeof iss !== 'string' || iss === '') throw invalidStatement('"iss" is required: the client\'s URI, a subjectAltName URI of its certificate');
  if (!context.sanUris.includes(iss)) throw unapproved('"iss" is not a subjectAltName URI of the statement\'s leaf certificate');
  if (claims.sub !== iss) throw invalidStatement('"sub" must equal "iss"');
  if (claims.aud !== context.registrationEndpoint)
    throw invalidStatement(`"aud" must be the registration endpoint ${context.registrationEndpoint} as a string`);
  const { iat, exp } = claims;
  if (!isNumericDate(iat)) throw invalidStatement('"iat" is required and must be a NumericDate');
  if (!isNumericDate(exp)) throw invalidStatement('"exp" is required and must be a NumericDate');
  if (iat > context.now + MAX_CLOCK_AHEAD_SECONDS) throw invalidStatement('"iat" is in the future');
  if (exp <= context.now) throw invalidStatement('"exp" is past: the statement has expired');
  if (exp - iat > MAX_STATEMENT_LIFETIME_SECONDS) throw invalidStatement(`"exp" must be at most ${MAX_STATEMENT_LIFETIME_SECONDS} seconds after "iat"`);
  const { jti } = claims;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI || jti.includes('\0')) {
    throw invalidStatement(`"jti" is required: a string of 1 to ${MAX_JTI} characters`);
  }
  const grantTypes = readGrantTypes(claims.grant_types);
  const cancel = grantTypes.length === 0;
  const clientName = claims.client_name;
  if (!cancel || clientName !== undefined) {
    if (typeof clientName !== 'string' || clientName.trim() === '' || clientName.length > MAX_TEXT || CONTROL_CHARACTER.test(clientName)) {
      throw invalidStatement(`"client_name" is required: 1 to ${MAX_TEXT} characters without control characters`);
    }
  }
  for (const member of ['redirect_uris', 'response_types'] as const) {
    if (claims[member] !== undefined) throw metadata(`${member}: not for a client_credentials client; leave it out`);
  }
  const contacts = cancel && claims.contacts === undefined ? [] : readContacts(claims.contacts);
  if (!cancel || claims.token_endpoint_auth_method !== undefined) {
    if (claims.token_endpoint_auth_method !== AUTH_METHOD) throw metadata(`token_endpoint_auth_method: must be ${AUTH_METHOD}`);
  }
  const scope = cancel && claims.scope === undefined ? '' : readScope(claims.scope, context.scopeCeiling);
  return { iss, jti, exp, cancel, clientName: typeof clientName === 'string' ? clientName : '', contacts, grantTypes, scope };
}

function readGrantTypes(value: unknown): string[] {
  if (!Array.isArray(value)) throw metadata(`grant_types: required, ["${GRANT}"] (or [] to cancel the registration)`);
  if (value.length === 0) return [];
  if (value.length !== 1 || value[0] !== GRANT) throw metadata(`grant_types: must be ["${GRANT}"] (or [] to cancel the registration)`);
  return [GRANT];
}

function readContacts(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CONTACTS) {
    throw metadata(`contacts: required, an array of 1 to ${MAX_CONTACTS} mailto: URIs`);
  }
  for (const contact of value as unknown[]) {
    if (typeof contact !== 'string' || !/^mailto:[^\s@]+@[^\s@]+$/i.test(contact) || contact.length > MAX_TEXT) {
      throw metadata('contacts: each contact must be a mailto: URI');
    }
  }
  return value as string[];
}

function readScope(value: unknown, ceiling: string): string {
  if (typeof value !== 'string' || value.length > MAX_SCOPE) throw metadata('scope: required, a space-separated list of scopes');
  const names = [...new Set(value.split(' ').filter(Boolean))];
  if (names.length === 0) throw metadata('scope: must name at least one scope');
  const allowed = new Set(ceiling.split(' ').filter(Boolean));
  for (const name of names) {
    if (!SCOPE_TOKEN.test(name)) throw metadata('scope: a scope name holds a character RFC 6749 does not allow');
    if (!allowed.has(name)) throw metadata(`scope: ${clip(name)} is outside this trust community's scope ceiling`);
  }
  return names.join(' ');
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function invalidStatement(reason: string): OAuthError {
  return metadataError('invalid_software_statement', `software_statement: ${reason}`);
}

export function unapproved(reason: string): OAuthError {
  return metadataError('unapproved_software_statement', `software_statement: ${reason}`);
}

function metadata(description: string): OAuthError {
  return metadataError('invalid_client_metadata', description);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
