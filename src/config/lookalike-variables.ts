import { VARIABLES } from './variables.js';

// The starts of our names that no other program's variables share: a variable that begins with one
// and is not ours is a misspelling or a setting this version does not have.
const OUR_PREFIXES = [
  'ACCESS_TOKEN_',
  'ADMIN_',
  'CLIENT_ASSERTION_',
  'CORS_ALLOWED',
  'DATABASE_POOL',
  'DCR_',
  'DISCLOSURE_',
  'DPOP_',
  'DYNAMIC_CLIENT',
  'JWKS_URI',
  'KEY_ENCRYPTION',
  'MTLS_',
  'PERMISSION_TICKET',
  'REFRESH_TOKEN',
  'SIGNING_KEY',
  'STATUS_LIST',
  'TLS_CERT',
  'TLS_CLIENT',
  'TLS_KEY',
  'TOKEN_SIGNING',
  'TRUST_PROXY',
];
// Names shells, OpenSSL and Node.js read, some within two letters of ours (SSL_CERT_FILE and TLS_CERT_FILE).
const COMMON = new Set([
  'HOME',
  'HOSTNAME',
  'PATH',
  'PWD',
  'OLDPWD',
  'SHELL',
  'USER',
  'LOGNAME',
  'TERM',
  'LANG',
  'TZ',
  'TMPDIR',
  'EDITOR',
  'MAIL',
  'SHLVL',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
]);
// Shorter names match too many unrelated ones by two letters (PORT and HOST): only prefixes judge those.
const SHORTEST_FOR_DISTANCE = 6;

export type Lookalike = { given: string; known: string | undefined };

/**
 * The environment variables that look like this server's but are none of them (docs/reference/configuration.md):
 * a known prefix, the same name in other letter case, or within two letters of a known name (a
 * transposition, a letter missing or doubled), each with the known name it is closest to.
 */
export function lookalikeVariables(env: NodeJS.ProcessEnv): Lookalike[] {
  const known = Object.keys(VARIABLES);
  const found: Lookalike[] = [];
  for (const given of Object.keys(env).sort()) {
    if (known.includes(given) || COMMON.has(given) || given.startsWith('npm_')) continue;
    const upper = given.toUpperCase();
    const closest = closestName(upper, known);
    const prefixed = OUR_PREFIXES.some((prefix) => upper.startsWith(prefix));
    if (closest !== undefined || prefixed) found.push({ given, known: closest ?? nearestByPrefix(upper, known) });
  }
  return found;
}

/** The one line a lookalike is reported with, at `warn`. */
export function lookalikeLine({ given, known }: Lookalike): string {
  return `${given} is not a setting of this server and is ignored${known !== undefined ? `; did you mean ${known}?` : ''}`;
}

function closestName(upper: string, known: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    if (name === upper) return name;
    if (name.length < SHORTEST_FOR_DISTANCE) continue;
    const distance = editDistance(upper, name, 2);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function nearestByPrefix(upper: string, known: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(upper, name, 8);
    if (distance <= 8 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance (a transposition counts one), or limit + 1 once it is certainly over limit. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = Array.from({ length: b.length + 1 }, (_, index) => index);
  let previous = before.slice();
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1);
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}
