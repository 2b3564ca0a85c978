import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type CompactVerifyResult } from 'jose';
import { compactJwsTooDeep, exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import type { webcrypto } from 'node:crypto';
import { ASSERTION_ALGORITHMS } from '../oauth/client-assertion-claims.js';
import { metadataError } from './registration-error.js';
import { ACCEPTED_MEMBERS } from './client-metadata-request.js';

const ALGORITHMS = [...ASSERTION_ALGORITHMS];
const MAX_AHEAD_SECONDS = 10;

/**
 * RFC 7591 §2.3: a software statement's accepted members override the request's. Only statements
 * signed by a key of DCR_SOFTWARE_STATEMENT_JWKS_FILE are believed (docs/guides/dynamic-registration.md#software-statements);
 * without that file, every statement is unapproved.
 */
/** What a statement is judged against besides its signature: its age, and the endpoint it was meant for. */
export type StatementRules = { maxAgeSeconds: number; registrationEndpoint: string };

export async function applySoftwareStatement(
  body: Record<string, unknown>,
  publishers: { keys: Record<string, unknown>[] } | undefined,
  rules: StatementRules,
  now = Math.floor(Date.now() / 1000),
): Promise<Record<string, unknown>> {
  const statement = body.software_statement;
  if (statement === undefined) return body;
  if (publishers === undefined) throw metadataError('unapproved_software_statement', 'software_statement: this server trusts no software statement publisher');
  if (typeof statement !== 'string' || statement.length > 16_384) throw invalid('must be a compact JWS (a string)');
  if (compactJwsTooDeep(statement)) throw invalid(`its header or payload is ${TOO_DEEP}`);
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(statement);
  } catch {
    throw invalid('is not a compact JWS');
  }
  if (typeof header.alg !== 'string' || !(ALGORITHMS as string[]).includes(header.alg))
    throw invalid(`its "alg" is not accepted (use ${ALGORITHMS.join(', ')})`);
  const verified = await verify(statement, publishers);
  let claims: Record<string, unknown>;
  const text = new TextDecoder().decode(verified.payload);
  if (exceedsJsonDepth(text)) throw invalid(`its payload is ${TOO_DEEP}`);
  try {
    claims = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalid('its payload is not a JSON object');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw invalid('its payload is not a JSON object');
  if (typeof claims.iss !== 'string' || claims.iss === '') throw invalid('"iss" is required');
  if (typeof claims.iat !== 'number' || claims.iat > now + MAX_AHEAD_SECONDS) throw invalid('"iat" is required and must not be in the future');
  // A statement is a long-lived credential of its publisher: an old one, or one made for another server, is not replayed here.
  if (claims.iat < now - rules.maxAgeSeconds) throw invalid(`"iat" is older than ${rules.maxAgeSeconds} seconds (DCR_SOFTWARE_STATEMENT_MAX_AGE)`);
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || claims.exp <= now)) throw invalid('it has expired');
  if (claims.aud !== undefined) {
    const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(rules.registrationEndpoint))
      throw invalid(`"aud" does not name this server's registration_endpoint (${rules.registrationEndpoint})`);
  }
  const merged: Record<string, unknown> = { ...body };
  delete merged.software_statement;
  for (const member of [...ACCEPTED_MEMBERS, 'software_id', 'software_version']) {
    if (claims[member] !== undefined) merged[member] = claims[member];
  }
  return merged;
}

async function verify(statement: string, publishers: { keys: Record<string, unknown>[] }): Promise<CompactVerifyResult> {
  const keys = createLocalJWKSet(publishers);
  try {
    return await compactVerify(statement, keys, { algorithms: ALGORITHMS });
  } catch (error) {
    // Several keys without a kid fit: try each.
    if ((error as { code?: string }).code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
      for await (const key of error as AsyncIterable<webcrypto.CryptoKey>) {
        try {
          return await compactVerify(statement, key, { algorithms: ALGORITHMS });
        } catch {
          // the next candidate
        }
      }
    }
    throw invalid('it is not signed by a trusted publisher');
  }
}

function invalid(reason: string) {
  return metadataError('invalid_software_statement', `software_statement: ${reason}`);
}
