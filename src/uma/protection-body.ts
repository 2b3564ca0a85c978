import type { Request } from 'express';
import { exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { readLimitedBody } from '../common/read-body.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { firstDuplicateKey } from '../oauth/token-request.js';

const MAX_BODY_BYTES = 64 * 1024;

/**
 * The JSON body of a protection API request (the app has no global body parser): `application/json`,
 * at most 64 KiB, valid JSON without a repeated member at the top level and without NUL
 * characters (PostgreSQL cannot store them). Anything else is invalid_request.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') throw new OAuthError('invalid_request', 'send the body as application/json');
  const bytes = await readLimitedBody(
    request,
    MAX_BODY_BYTES,
    () => new OAuthError('invalid_request', `the request body exceeds ${MAX_BODY_BYTES} bytes`).withStatus(413),
    () => new OAuthError('invalid_request', 'the request body could not be read'),
  );
  const text = bytes.toString('utf8');
  if (exceedsJsonDepth(text)) throw new OAuthError('invalid_request', `the body is ${TOO_DEEP}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_request', 'the body is not valid JSON');
  }
  const repeated = firstDuplicateKey(text);
  if (repeated !== undefined) throw new OAuthError('invalid_request', `member "${repeated}" is given more than once`);
  if (text.includes('\\u0000') || text.includes('\0')) throw new OAuthError('invalid_request', 'the body contains a NUL character');
  return value;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as a list of scope names (non-empty strings of at most 255 characters), or undefined. */
export function scopeNamesOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items: unknown[] = value;
  return items.every((item): item is string => typeof item === 'string' && item !== '' && item.length <= 255) ? items : undefined;
}
