import type { Request } from 'express';
import { exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { readLimitedBody } from '../common/read-body.js';
import { firstDuplicateKey } from '../oauth/token-request.js';
import { metadataError } from './registration-error.js';

export const MAX_REGISTRATION_BYTES = 64 * 1024;

/**
 * The body of a registration or an update: `application/json`, one JSON object of at most 64 KiB,
 * no member twice, no NUL character. Anything else is invalid_client_metadata (413 when too large).
 */
export async function readRegistrationBody(request: Request): Promise<Record<string, unknown>> {
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') throw metadataError('invalid_client_metadata', 'send the client metadata as one application/json object');
  const bytes = await readLimitedBody(
    request,
    MAX_REGISTRATION_BYTES,
    () => metadataError('invalid_client_metadata', `the request body exceeds ${MAX_REGISTRATION_BYTES} bytes`, 413),
    () => metadataError('invalid_client_metadata', 'the request body could not be read'),
  );
  const text = bytes.toString('utf8');
  if (exceedsJsonDepth(text)) throw metadataError('invalid_client_metadata', `the body is ${TOO_DEEP}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw metadataError('invalid_client_metadata', 'the body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw metadataError('invalid_client_metadata', 'the body must be one JSON object');
  const repeated = firstDuplicateKey(text);
  if (repeated !== undefined) throw metadataError('invalid_client_metadata', `member "${repeated}" is given more than once`);
  if (text.includes('\\u0000') || text.includes('\0')) {
    const member = Object.entries(value).find(([, member]) => JSON.stringify(member).includes('\\u0000'))?.[0];
    throw metadataError(
      'invalid_client_metadata',
      member !== undefined ? `${member}: must not contain a NUL character` : 'a member name contains a NUL character',
    );
  }
  return value as Record<string, unknown>;
}

/** A body read, or the refusal reading it gave. */
export type SettledBody = { body: Record<string, unknown> } | { error: unknown };

/**
 * The registration body, or the refusal reading it gave, to be thrown only after the bearer token
 * was looked at: refusals keep their order (token, then body) while the body is read before the
 * request takes its turn in the line.
 */
export function readRegistrationBodySettled(request: Request): Promise<SettledBody> {
  return readRegistrationBody(request).then(
    (body) => ({ body }),
    (error: unknown) => ({ error }),
  );
}
