/**
 * SMART App Launch scopes as this server accepts them (docs/guides/smart-backend-services.md):
 * `system/` only; v2 `system/<Type>.<letters>[?<query>]` where the letters are a non-empty,
 * in-order subset of `cruds`; v1 `system/<Type>.read|write|*`; `*` as the type for every mapped
 * type.
 */
export type SmartScope = {
  name: string;
  /** A FHIR resource type, or `*` for the wildcard. */
  type: string;
  /** The permission letters, v1 names translated (`read` → `rs`). */
  letters: string;
  /** The FHIR search query after `?`, compared as an exact string; null when absent. */
  query: string | null;
  /** Written in v1 form (`read`, `write`, `*`). */
  v1: boolean;
};

/** A name in SMART form that this server does not accept, and why. */
export type UnsupportedSmartScope = { name: string; unsupported: string };

const V1_LETTERS: Record<string, string> = { read: 'rs', write: 'cud', '*': 'cruds' };
const LETTERS = /^c?r?u?d?s?$/;
const TYPE = /^([A-Z][A-Za-z]{0,63}|\*)$/;

/** Whether a scope name is in SMART form (`system/`, `patient/` or `user/`). */
export function isSmartScopeName(name: string): boolean {
  return /^(system|patient|user)\//.test(name);
}

/** A SMART scope, or why it is not accepted; undefined when the name is not in SMART form at all. */
export function parseSmartScope(name: string): SmartScope | UnsupportedSmartScope | undefined {
  if (!isSmartScopeName(name)) return undefined;
  if (!name.startsWith('system/'))
    return { name, unsupported: 'only system/ scopes are supported (backend services): patient/ and user/ scopes need an end user' };
  const match = /^system\/([^.?]+)\.([^?]+)(?:\?(.*))?$/.exec(name);
  if (!match) return { name, unsupported: 'a SMART scope is system/<FHIR type>.<permissions>[?<query>]' };
  const [, type, permissions, rawQuery] = match as unknown as [string, string, string, string | undefined];
  if (!TYPE.test(type)) return { name, unsupported: `"${type}" is not a FHIR resource type (or *)` };
  const query = rawQuery ?? null;
  if (query === '') return { name, unsupported: 'the query after "?" is empty' };
  const v1Letters = V1_LETTERS[permissions];
  if (v1Letters !== undefined) {
    if (query !== null) return { name, unsupported: 'a v1 scope (read, write, *) takes no query' };
    return { name, type, letters: v1Letters, query: null, v1: true };
  }
  if (permissions === '' || !LETTERS.test(permissions)) {
    return { name, unsupported: `"${permissions}" is not a SMART permission: use letters of c, r, u, d, s in that order, or read, write, *` };
  }
  if (type === '*' && query !== null) return { name, unsupported: 'a wildcard scope takes no query' };
  return { name, type, letters: permissions, query, v1: false };
}

export function isUnsupported(scope: SmartScope | UnsupportedSmartScope): scope is UnsupportedSmartScope {
  return 'unsupported' in scope;
}

/** Whether `held` (an in-order subset of cruds) holds every letter of `wanted`. */
export function holdsLetters(held: string, wanted: string): boolean {
  return [...wanted].every((letter) => held.includes(letter));
}

/** The SMART scope of a mapped scope record: `system/<Type>.<letters>[?<query>]`. */
export function smartScopeName(type: string, letters: string, query: string | null): string {
  return `system/${type}.${letters}${query === null ? '' : `?${query}`}`;
}
