import { randomBytes, createHash } from 'node:crypto';
import { enabledAuthMethods } from '../oauth/client-authentication-methods.js';
import { BASE_GRANT_RULE, BASE_GRANT_TYPE, GRANT_TYPES, holdsBaseGrant } from '../oauth/grant-types.js';
import { MAX_ACCESS_TOKEN_LIFETIME } from './client-registration.js';
import { MTLS_AUTH_METHODS } from './mutual-tls.js';

/** Ceilings and limits of an initial access token (docs/guides/dynamic-registration.md#initial-access-tokens). */
export const MAX_USES = 100_000;
export const MAX_LIFETIME_DAYS = 90;
export const DEFAULT_EXPIRES_IN_SECONDS = 86_400;
export const DEFAULT_GRANT_TYPES = BASE_GRANT_TYPE;

/** The grant types a dynamically registered client may have: the UMA grant and refresh tokens only beside client_credentials. */
export const REGISTRABLE_GRANT_TYPES: readonly string[] = GRANT_TYPES;

/** A broken rule of an initial access token; `field` is the attribute (JSON:API name). */
export class InitialAccessTokenError extends Error {
  constructor(
    readonly field: string,
    message: string,
    /** `type`: a wrong JSON type (the admin interface's 400); `rule`: a broken rule (422); `taken`: the record id is taken (409). */
    readonly kind: 'type' | 'rule' | 'taken' = 'rule',
  ) {
    super(message);
  }
}

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** A space-separated string or an array of names, as one normalised space-separated string (each name once). */
export function namesOf(field: string, value: unknown): string[] {
  const items = typeof value === 'string' ? value.trim().split(/\s+/).filter(Boolean) : Array.isArray(value) ? (value as unknown[]) : undefined;
  if (!items || items.some((item) => typeof item !== 'string' || item.length > 255)) {
    throw new InitialAccessTokenError(field, `${field} must be a space-separated string or an array of names`, 'type');
  }
  return [...new Set(items as string[])];
}

export function checkScopeCeiling(value: unknown): string {
  const names = namesOf('scopeCeiling', value);
  if (names.length === 0 || names.some((name) => !SCOPE_TOKEN.test(name)) || names.join(' ').length > 4096) {
    throw new InitialAccessTokenError('scopeCeiling', 'scopeCeiling must hold one or more scope names of printable characters (4096 characters at most)');
  }
  return names.join(' ');
}

export function checkGrantTypes(value: unknown): string {
  if (value === undefined || value === null) return DEFAULT_GRANT_TYPES;
  const names = namesOf('grantTypes', value);
  for (const name of names) {
    if (!REGISTRABLE_GRANT_TYPES.includes(name)) {
      throw new InitialAccessTokenError('grantTypes', `grant type "${name}" is not supported (use ${REGISTRABLE_GRANT_TYPES.join(', ')})`);
    }
  }
  if (!holdsBaseGrant(names)) throw new InitialAccessTokenError('grantTypes', `grantTypes ${BASE_GRANT_RULE}`);
  return names.join(' ');
}

export function checkAuthMethods(value: unknown, mtls: boolean): string {
  const enabled: readonly string[] = enabledAuthMethods(mtls);
  if (value === undefined || value === null) return enabled.join(' ');
  const names = namesOf('authMethods', value);
  if (names.length === 0) throw new InitialAccessTokenError('authMethods', 'authMethods must name at least one method');
  for (const name of names) {
    if ((MTLS_AUTH_METHODS as readonly string[]).includes(name) && !mtls) {
      throw new InitialAccessTokenError('authMethods', `${name} needs mutual TLS, which is not enabled on this server`);
    }
    if (!enabled.includes(name))
      throw new InitialAccessTokenError('authMethods', `authentication method "${name}" is not supported (use ${enabled.join(', ')})`);
  }
  return names.join(' ');
}

export function checkLifetime(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number') throw new InitialAccessTokenError('accessTokenLifetime', 'accessTokenLifetime must be a number of seconds or null', 'type');
  if (!Number.isInteger(value) || value < 1 || value > MAX_ACCESS_TOKEN_LIFETIME) {
    throw new InitialAccessTokenError(
      'accessTokenLifetime',
      `accessTokenLifetime must be a whole number of seconds from 1 to ${MAX_ACCESS_TOKEN_LIFETIME}, or null`,
    );
  }
  return value;
}

export function checkMaxUses(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value !== 'number') throw new InitialAccessTokenError('maxUses', 'maxUses must be a number', 'type');
  if (!Number.isInteger(value) || value < 1 || value > MAX_USES) {
    throw new InitialAccessTokenError('maxUses', `maxUses must be a whole number from 1 to ${MAX_USES}`);
  }
  return value;
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339, in the future and at most 90 days ahead; absent: 24 hours from now. */
export function checkExpiresAt(value: unknown, now = new Date()): Date {
  if (value === undefined) return new Date(now.getTime() + DEFAULT_EXPIRES_IN_SECONDS * 1000);
  if (typeof value !== 'string') throw new InitialAccessTokenError('expiresAt', 'expiresAt must be a string (RFC 3339 date-time)', 'type');
  const date = typeof value === 'string' && RFC_3339.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw new InitialAccessTokenError('expiresAt', 'expiresAt must be an RFC 3339 date-time such as 2026-12-01T12:00:00Z');
  if (date.getTime() <= now.getTime()) throw new InitialAccessTokenError('expiresAt', 'expiresAt must be in the future');
  if (date.getTime() > now.getTime() + MAX_LIFETIME_DAYS * 86_400_000) {
    throw new InitialAccessTokenError('expiresAt', `expiresAt must be at most ${MAX_LIFETIME_DAYS} days ahead`);
  }
  return date;
}

/** A new token: 256 random bits, base64url; shown once. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How an initial access token or a registration access token is stored: SHA-256, base64url (they carry 256 random bits, no slow hash needed). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
