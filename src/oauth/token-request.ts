import { formDecode } from './basic-credentials.js';
import { OAuthError } from './oauth-error.js';

/** Parameters of a token request; an empty value counts as missing (API.md §4). */
export type TokenParameters = Partial<Record<string, string>>;

export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Parses a token request body of either media type into single-valued string parameters.
 * Throws invalid_request for an unsupported media type, a malformed body, a duplicated
 * parameter or a non-string value. Unknown parameters are kept (RFC 6749 §3.2 says ignore them).
 */
export function parseTokenRequestBody(contentType: string | undefined, body: Buffer): TokenParameters {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const charset = /;\s*charset="?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new OAuthError('invalid_request', `unsupported charset "${charset}": use UTF-8`);
  }
  if (mediaType === 'application/x-www-form-urlencoded') return parseForm(body.toString('utf8'));
  if (mediaType === 'application/json') return parseJson(body.toString('utf8'));
  if (mediaType === '' && body.length === 0) return {};
  throw new OAuthError(
    'invalid_request',
    'unsupported content type: send application/x-www-form-urlencoded or application/json',
  );
}

function parseForm(text: string): TokenParameters {
  const parameters: TokenParameters = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = formDecode(equals < 0 ? pair : pair.slice(0, equals));
    const value = formDecode(equals < 0 ? '' : pair.slice(equals + 1));
    if (name === undefined || value === undefined) {
      throw new OAuthError('invalid_request', 'malformed form body: bad percent-encoding');
    }
    add(parameters, name, value);
  }
  return normalise(parameters);
}

function parseJson(text: string): TokenParameters {
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
  const parameters: TokenParameters = Object.create(null);
  for (const [name, member] of Object.entries(value)) {
    if (typeof member !== 'string') {
      throw new OAuthError('invalid_request', `parameter "${name}" must be a string`);
    }
    parameters[name] = member;
  }
  return normalise(parameters);
}

function add(parameters: TokenParameters, name: string, value: string): void {
  if (name in parameters) {
    throw new OAuthError('invalid_request', `parameter "${name}" is given more than once`);
  }
  parameters[name] = value;
}

function normalise(parameters: TokenParameters): TokenParameters {
  for (const [name, value] of Object.entries(parameters)) {
    // eslint-disable-next-line no-control-regex
    if (/[\x00]/.test(value!)) throw new OAuthError('invalid_request', `parameter "${name}" contains a NUL character`);
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
