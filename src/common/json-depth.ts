/** How deep a JSON body or a JWT's claims may nest (docs/operations/security.md, "Nesting is bounded"). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests objects and arrays deeper than `max`, read in one pass over the text
 * without parsing it (so no recursion, whatever the depth). JSON.parse itself copes with any
 * depth, but JSON.stringify, structuredClone and every recursive walk of the parsed value overflow
 * the stack a few thousand levels down: a body such as `{"jwks": {"a": {"a": …}}}` 8,000 deep
 * would be a 500. Callers refuse such text before anything walks it, with their endpoint's 400.
 * Brackets inside strings do not count.
 */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth -= 1;
    }
  }
  return false;
}

export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/** Whether the protected header or the payload of a compact JWS nests deeper than allowed (read before either is parsed). */
export function compactJwsTooDeep(jws: string, max = MAX_JSON_DEPTH): boolean {
  const [header = '', payload = ''] = jws.split('.', 2);
  return [header, payload].some((segment) => exceedsJsonDepth(Buffer.from(segment, 'base64url').toString('utf8'), max));
}
