import { OAuthError } from './oauth-error.js';

// RFC 6749 §3.3: scope-token = 1*NQCHAR, separated by single spaces.
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;

export type ResourceScope = { name: string; definition: string; scope: string };

/** The requested names, in order, without repeats; invalid_scope when missing or malformed. */
export function parseScope(value: string | undefined): string[] {
  if (value === undefined) {
    throw new OAuthError('invalid_scope', 'the scope parameter is required');
  }
  if (!SCOPE.test(value)) {
    throw new OAuthError('invalid_scope', 'scope must be names of printable characters separated by single spaces');
  }
  return [...new Set(value.split(' '))];
}

/** `<definition>:<scope>`, e.g. `blood-glucose-level:read`; undefined for a plain scope. */
export function asResourceScope(name: string): ResourceScope | undefined {
  const match = /^([^:]+):([^:]+)$/.exec(name);
  return match ? { name, definition: match[1], scope: match[2] } : undefined;
}
