import { OAuthError } from '../oauth/oauth-error.js';
import { isObject, scopeNamesOf } from './protection-body.js';

/** A resource description as registered (FedAuthz §3.1), after validation; unknown members dropped. */
export type ResourceDescription = {
  resource_scopes: string[];
  type: string;
  name?: string;
  description?: string;
  icon_uri?: string;
};

const MAX_SCOPES = 100;

/** Validates a resource description; invalid_request naming the member otherwise (docs/guides/uma.md). */
export function parseResourceDescription(body: unknown): ResourceDescription {
  if (!isObject(body)) throw invalid('the body must be one JSON object (a resource description)');
  if (body.resource_scopes === undefined) throw invalid('resource_scopes is required');
  const scopes = scopeNamesOf(body.resource_scopes);
  if (scopes === undefined) {
    throw invalid('resource_scopes must be an array of scope names (non-empty strings)');
  }
  if (scopes.length === 0) throw invalid('resource_scopes must not be empty');
  if (scopes.length > MAX_SCOPES) throw invalid(`resource_scopes may hold at most ${MAX_SCOPES} names`);
  const repeated = scopes.find((scope, index) => scopes.indexOf(scope) !== index);
  if (repeated !== undefined) throw invalid(`resource_scopes repeats "${repeated}"`);
  return {
    resource_scopes: scopes,
    type: text(body, 'type', 255, true)!,
    ...optional('name', text(body, 'name', 255, false)),
    ...optional('description', text(body, 'description', 2000, false)),
    ...optional('icon_uri', iconUri(body)),
  };
}

function text(body: Record<string, unknown>, member: string, maxLength: number, required: boolean): string | undefined {
  const value = body[member];
  if (value === undefined) {
    if (required) throw invalid(`${member} is required: the name of a resource definition a data source of this client serves`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(`${member} must be a string`);
  if (value.trim() === '') throw invalid(`${member} must not be empty`);
  if (value.length > maxLength) throw invalid(`${member} must be at most ${maxLength} characters`);
  return value;
}

function iconUri(body: Record<string, unknown>): string | undefined {
  const value = text(body, 'icon_uri', 2048, false);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw invalid('icon_uri must be an absolute http or https URI');
  return value;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function invalid(description: string): OAuthError {
  return new OAuthError('invalid_request', description);
}
