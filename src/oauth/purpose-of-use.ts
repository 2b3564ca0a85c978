import { CONTROL_CHARACTER } from '../common/control-characters.js';

/** The longest purpose-of-use code kept (a purpose's `purposesOfUse`, a disclosure filter). */
export const MAX_PURPOSE_OF_USE_LENGTH = 255;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * A purpose-of-use code in the form the HL7 FAST Security IG's `hl7-b2b` extension asserts it: an
 * absolute URI naming the code system and the code, such as
 * `urn:oid:2.16.840.1.113883.5.8#TREAT` (HL7 v3 ActReason) — a scheme, something after it, a
 * fragment allowed, no white space or control character, at most 255 characters
 * (docs/concepts/consent-tickets.md#purpose-of-use). Codes compare as exact strings.
 */
export function isPurposeOfUseCode(value: string): boolean {
  return isAbsoluteUriWithin(value, MAX_PURPOSE_OF_USE_LENGTH);
}

/** An absolute URI (RFC 3986: a scheme and something after it, a fragment allowed) of at most `maxLength` characters. */
export function isAbsoluteUriWithin(value: string, maxLength: number): boolean {
  if (value.length === 0 || value.length > maxLength || /\s/.test(value) || CONTROL_CHARACTER.test(value) || !SCHEME.test(value)) return false;
  if (value.replace(SCHEME, '') === '') return false;
  return URL.canParse(value);
}
