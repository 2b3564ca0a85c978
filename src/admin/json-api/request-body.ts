import type { Request } from 'express';
import { exceedsJsonDepth, TOO_DEEP } from '../../common/json-depth.js';
import { readLimitedBody } from '../../common/read-body.js';
import { AdminError, malformed } from './admin-error.js';

export const MAX_ADMIN_BODY_BYTES = 1024 * 1024;
export const JSON_API = 'application/vnd.api+json';

/**
 * The request's media type must be JSON:API, with the jsonpatch extension when `patch` is set
 * (415 otherwise); the body at most 1 MiB (413) and valid JSON (400).
 */
export async function readJsonApiBody(request: Request, patch: boolean): Promise<unknown> {
  checkMediaType(request.headers['content-type'], patch);
  const body = await readLimitedBody(
    request,
    MAX_ADMIN_BODY_BYTES,
    () => new AdminError(413, 'payload_too_large', `the request body exceeds ${MAX_ADMIN_BODY_BYTES} bytes`),
    () => malformed('the request body could not be read'),
  );
  const text = body.toString('utf8');
  if (exceedsJsonDepth(text)) throw malformed(`the request body is ${TOO_DEEP}`);
  try {
    return JSON.parse(text);
  } catch {
    throw malformed('the request body is not valid JSON');
  }
}

function checkMediaType(header: string | undefined, patch: boolean): void {
  const [type, ...parameters] = (header ?? '').split(';').map((part) => part.trim());
  const extensions = parameters
    .map((parameter) => /^ext="?([^"]*)"?$/i.exec(parameter)?.[1])
    .filter((value): value is string => value !== undefined)
    .flatMap((value) => value.split(/\s+/));
  const others = parameters.filter((parameter) => !/^(ext|charset)=/i.test(parameter));
  const jsonPatch = extensions.some((extension) => extension === 'jsonpatch' || extension.endsWith('/jsonpatch'));
  if (type?.toLowerCase() !== JSON_API || others.length > 0 || jsonPatch !== patch) {
    const wanted = patch ? `${JSON_API}; ext=jsonpatch` : JSON_API;
    throw new AdminError(415, 'unsupported_media_type', `send Content-Type: ${wanted}`);
  }
}
