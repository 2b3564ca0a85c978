/** A client id and secret from `Authorization: Basic …`, decoded as RFC 6749 §2.3.1 says. */
export type BasicCredentials = { clientId: string; clientSecret: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Strictly parses a Basic authorization header: scheme `Basic` (any case), one token68 of
 * canonical base64, UTF-8 inside, split at the first colon, each half form-urldecoded, no NUL.
 * Returns undefined for anything else, never throws.
 */
export function parseBasicAuthorization(header: string): BasicCredentials | undefined {
  const match = /^basic +([^ ]+) *$/i.exec(header);
  if (!match || !BASE64.test(match[1])) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(match[1], 'base64'));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (!clientId || !clientSecret) return undefined;
  // PostgreSQL cannot store NUL, and scrypt would hash "secret\0" like "secret": never credentials.
  if (clientId.includes('\0') || clientSecret.includes('\0')) return undefined;
  return { clientId, clientSecret };
}

/** application/x-www-form-urlencoded decoding; undefined for a malformed percent escape. */
export function formDecode(value: string): string | undefined {
  // Most ids and secrets have nothing to decode: the common case allocates nothing.
  if (!value.includes('%') && !value.includes('+')) return value;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
