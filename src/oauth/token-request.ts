import { formDecode } from './basic-credentials.js';
import { exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { OAuthError } from './oauth-error.js';

/** Parameters of a token request; an empty value counts as missing (docs/reference/token-endpoint.md#post-oauth2token). */
export type TokenParameters = Partial<Record<string, string>>;

export const MAX_BODY_BYTES = 16 * 1024;

// RFC 8707 §2: `resource` is the one parameter that may be repeated. The parameters keep its first
// value under `resource`; every value, in order, is kept here (see resourcesOf).
const REPEATABLE = 'resource';
// Each distinct resource costs a lookup: a request may name a few, not thousands.
export const MAX_RESOURCES = 10;
const resourceLists = new WeakMap<TokenParameters, string[]>();

/** Every `resource` parameter of a parsed request, in order, empty values left out. */
export function resourcesOf(parameters: TokenParameters): string[] {
  return resourceLists.get(parameters) ?? (parameters.resource === undefined ? [] : [parameters.resource]);
}

/**
 * Parses a token request body of either media type into single-valued string parameters.
 * Throws invalid_request for an unsupported media type, a malformed body, a duplicated
 * parameter (but `resource`, see resourcesOf) or a non-string value (in JSON `resource` may also
 * be an array of strings). Unknown parameters are kept (RFC 6749 §3.2 says ignore them).
 */
export function parseTokenRequestBody(contentType: string | undefined, body: Buffer): TokenParameters {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const charset = /;\s*charset="?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new OAuthError('invalid_request', `unsupported charset "${charset}": use UTF-8`);
  }
  if (mediaType === 'application/x-www-form-urlencoded') return parseForm(body.toString('utf8'));
  if (mediaType === 'application/json') return parseJson(body.toString('utf8'));
  if (mediaType === '' && body.length === 0) return {};
  throw new OAuthError('invalid_request', 'unsupported content type: send application/x-www-form-urlencoded or application/json');
}

function parseForm(text: string): TokenParameters {
  const parameters = Object.create(null) as TokenParameters;
  const resources: string[] = [];
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = formDecode(equals < 0 ? pair : pair.slice(0, equals));
    const value = formDecode(equals < 0 ? '' : pair.slice(equals + 1));
    if (name === undefined || value === undefined) {
      throw new OAuthError('invalid_request', 'malformed form body: bad percent-encoding');
    }
    if (name === REPEATABLE) resources.push(value);
    else add(parameters, name, value);
  }
  return withResources(normalise(parameters), resources);
}

function parseJson(text: string): TokenParameters {
  if (exceedsJsonDepth(text)) throw new OAuthError('invalid_request', `the JSON body is ${TOO_DEEP}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_request', 'malformed JSON body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OAuthError('invalid_request', 'the JSON body must be an object of parameters');
  }
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== undefined) {
    throw new OAuthError('invalid_request', `parameter "${duplicate}" is given more than once`);
  }
  const parameters = Object.create(null) as TokenParameters;
  let resources: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    if (name === REPEATABLE && Array.isArray(member) && member.every((item) => typeof item === 'string')) {
      resources = member;
      continue;
    }
    if (name === REPEATABLE && typeof member === 'string') {
      resources = [member];
      continue;
    }
    if (name === REPEATABLE) throw new OAuthError('invalid_request', 'parameter "resource" must be a string or an array of strings');
    if (typeof member !== 'string') {
      throw new OAuthError('invalid_request', `parameter "${name}" must be a string`);
    }
    parameters[name] = member;
  }
  return withResources(normalise(parameters), resources);
}

function withResources(parameters: TokenParameters, values: string[]): TokenParameters {
  for (const value of values) {
    if (value.includes('\0')) throw new OAuthError('invalid_request', 'parameter "resource" contains a NUL character');
  }
  const resources = values.filter((value) => value !== '');
  if (resources.length === 0) return parameters;
  if (resources.length > MAX_RESOURCES) throw new OAuthError('invalid_request', `at most ${MAX_RESOURCES} resource parameters per request`);
  parameters.resource = resources[0];
  resourceLists.set(parameters, resources);
  return parameters;
}

function add(parameters: TokenParameters, name: string, value: string): void {
  if (name in parameters) {
    throw new OAuthError('invalid_request', `parameter "${name}" is given more than once`);
  }
  parameters[name] = value;
}

function normalise(parameters: TokenParameters): TokenParameters {
  for (const [name, value] of Object.entries(parameters)) {
    if (value!.includes('\0')) throw new OAuthError('invalid_request', `parameter "${name}" contains a NUL character`);
    if (value === '') delete parameters[name];
  }
  return parameters;
}

/**
 * JSON.parse keeps the last of duplicated keys silently; RFC 6749 §3.2 forbids repeating a
 * parameter, so scan the top-level object's keys. Assumes `text` is valid JSON.
 */
export function firstDuplicateKey(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let expectKey = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      const end = endOfString(text, index);
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (seen.has(key)) return key;
        seen.add(key);
        expectKey = false;
      }
      index = end;
    } else if (char === '{' || char === '[') {
      depth += 1;
      expectKey = depth === 1 && char === '{';
    } else if (char === '}' || char === ']') {
      depth -= 1;
    } else if (char === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return undefined;
}

function endOfString(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index;
}
