/**
 * RFC 8707 §2: a resource indicator is an absolute URI (a scheme, and no fragment), compared as
 * a plain string. Whitespace is refused although `URL` would trim or encode it.
 */
export function isAbsoluteUri(value: string): boolean {
  if (/\s/.test(value) || value.includes('#')) return false;
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value)) return false;
  return URL.canParse(value);
}
