import { HL7_B2B, type Hl7B2b } from './hl7-b2b.js';
import { OAuthError } from './oauth-error.js';

// docs/reference/trust-communities.md#token-request: the hl7-b2b extension of a UDAP client
// assertion (HL7 FAST Security IG STU 2 §5.2.1.1), read from the assertion's `extensions` claim.

const MAX_TEXT = 2048;
const MAX_LIST = 32;

/**
 * The assertion's `extensions.hl7-b2b`, checked and reduced to the members the IG names (others
 * dropped). Missing or malformed: 400 invalid_grant naming the member; a purpose of use outside
 * `allowedPurposes` (a non-empty list; empty allows any): 400 invalid_grant naming the code.
 */
export function readHl7B2b(extensions: unknown, allowedPurposes: readonly string[]): Hl7B2b {
  if (extensions === undefined) throw refused(`the client assertion must carry "extensions" with "${HL7_B2B}"`);
  if (!isObject(extensions)) throw refused('the client assertion\'s "extensions" must be a JSON object');
  const b2b = extensions[HL7_B2B];
  if (b2b === undefined) throw refused(`the client assertion's "extensions" must hold "${HL7_B2B}"`);
  if (!isObject(b2b)) throw refused(`"${HL7_B2B}" must be a JSON object`);
  if (b2b.version !== '1') throw refused(member('version', 'must be the string "1"'));
  const organizationId = absoluteUri(b2b, 'organization_id', true)!;
  const purposes = b2b.purpose_of_use;
  if (purposes === undefined) throw refused(member('purpose_of_use', 'is required'));
  if (!Array.isArray(purposes) || purposes.length === 0 || purposes.length > MAX_LIST || !purposes.every(isCode)) {
    throw refused(member('purpose_of_use', `must be a non-empty array of at most ${MAX_LIST} purpose-of-use codes (strings)`));
  }
  if (allowedPurposes.length > 0) {
    const outside = purposes.find((code) => !allowedPurposes.includes(code));
    if (outside !== undefined) throw refused(`the purpose of use ${outside} is not one this client's trust community allows`);
  }
  const result: Hl7B2b = { version: '1', organization_id: organizationId, purpose_of_use: [...new Set(purposes)] };
  for (const name of ['organization_name', 'subject_name', 'subject_id', 'subject_role'] as const) {
    const value = b2b[name];
    if (value === undefined) continue;
    if (!isText(value)) throw refused(member(name, `must be a string of 1 to ${MAX_TEXT} characters`));
    result[name] = value;
  }
  const policies = uriList(b2b, 'consent_policy', false);
  if (policies !== undefined) result.consent_policy = policies;
  const references = uriList(b2b, 'consent_reference', true);
  if (references !== undefined) result.consent_reference = references;
  return result;
}

function refused(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}

function member(name: string, rule: string): string {
  return `"${HL7_B2B}" member "${name}" ${rule}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT && !value.includes('\0');
}

function isCode(value: unknown): value is string {
  return isText(value) && !/\s/.test(value);
}

/** An absolute URI (a scheme and more); `url`: an http or https URL. */
function isAbsolute(value: unknown, url: boolean): value is string {
  if (!isText(value) || /\s/.test(value)) return false;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return false;
  }
  return url ? (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.host !== '' : /^[a-z][a-z0-9+.-]*:./i.test(value);
}

function absoluteUri(b2b: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = b2b[name];
  if (value === undefined) {
    if (required) throw refused(member(name, 'is required'));
    return undefined;
  }
  if (!isAbsolute(value, false)) throw refused(member(name, 'must be an absolute URI'));
  return value;
}

/** consent_policy: an array of absolute URIs; consent_reference: an array of absolute http(s) URLs. */
function uriList(b2b: Record<string, unknown>, name: 'consent_policy' | 'consent_reference', url: boolean): string[] | undefined {
  const value = b2b[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw refused(member(name, url ? 'must be an array of absolute URLs' : 'must be an array of absolute URIs'));
  const list = value as unknown[];
  if (list.length > MAX_LIST || !list.every((entry) => isAbsolute(entry, url))) {
    throw refused(member(name, url ? `must be absolute URLs (at most ${MAX_LIST})` : `must be absolute URIs (at most ${MAX_LIST})`));
  }
  return list;
}
