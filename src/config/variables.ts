import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { CLIENT_ASSERTION_AUDIENCES, LOG_FORMATS, LOG_LEVELS, SIGNING_ALGORITHMS, type TrustProxy } from './app-config.js';
import { TLS12_CIPHERS, TLS13_CIPHERS } from './tls-ciphers.js';
import { parseTlsCiphers } from './tls-files.js';
import { flag, oneOf, parsed, refusal, text, wholeNumber, type Variable } from './variable.js';

/**
 * Each process needs the change feed's connection, one for the replay store, one for the
 * disclosure writer and two for TypeORM
 * (the migrations at start hold a lock on one while running on another): docs/operations/database.md.
 */
export const MIN_DATABASE_CONNECTIONS_PER_WORKER = 5;
export const DEFAULT_DATABASE_CONNECTIONS_PER_WORKER = 10;

const WORKERS_MAX = 256;

/**
 * Every environment variable the server, the CLI and every worker read, each declared once:
 * name, type, default, range and description. loadConfig (load-config.ts) reads them in this order
 * and adds the rules between variables; docs/reference/configuration.md is generated from here
 * (`npm run docs:config`). A new variable touches this list and the AppConfig it feeds.
 */
export const VARIABLES = {
  PORT: wholeNumber({
    meaning: 'The public listener: token endpoint, JWKS, metadata, introspection, revocation, health.',
    min: 1,
    max: 65_535,
    default: 3000,
  }),
  ADMIN_PORT: wholeNumber({
    meaning:
      'The administrative listener: the admin interface (`/admin`), the console, `/metrics` and `/docs`. Must differ from `PORT`; admin routes never answer on `PORT` and public routes never on `ADMIN_PORT` (`/health/*` answers on both).',
    min: 1,
    max: 65_535,
    default: 3001,
  }),
  DATABASE_URL: text({
    meaning:
      'PostgreSQL connection string. Unset, the server runs an embedded PostgreSQL under `DATA_DIR`; set, an admin token (`ADMIN_TOKEN` or `ADMIN_TOKEN_FILE`) is required.',
    accepted: 'a postgres:// or postgresql:// connection string',
    pattern: /^postgres(ql)?:\/\/\S+$/,
    defaultText: 'unset: embedded PostgreSQL',
    secret: true,
  }),
  ISSUER: text({
    meaning:
      'The `iss` of every token and the base of the metadata URLs (and of the `htu` DPoP proofs must name). An absolute http(s) URL without query or fragment; a trailing `/` is dropped. Every instance behind one load balancer sets the same.',
    accepted: 'an absolute http(s) URL without query or fragment',
    defaultText: '`http://localhost:PORT`; `https://localhost:PORT` with `TLS_CERT_FILE`',
  }),
  ACCESS_TOKEN_AUDIENCE: text({
    meaning:
      'The `aud` of access tokens no data source claims (plain scopes, or no data source serving the definitions); see [the audience of a token](../concepts/audience.md). No white space.',
    accepted: 'a string without white space',
    defaultText: 'the issuer',
  }),
  ADMIN_TOKEN: text({
    meaning: 'The static administrative token (set this or `ADMIN_TOKEN_FILE`, not both).',
    accepted: 'a string without white space',
    pattern: /^\S+$/,
    defaultText: 'embedded mode: generated once into `DATA_DIR/admin-token` (mode 0600); with `DATABASE_URL`: required',
    secret: true,
  }),
  ADMIN_TOKEN_FILE: text({
    meaning: 'A file holding the administrative token (a compose or Kubernetes secret).',
    accepted: 'a file path',
    defaultText: 'unset',
  }),
  ACCESS_TOKEN_TTL: wholeNumber({
    meaning: "Access token lifetime in seconds; a consent ticket's `maxPermissionDuration` can only shorten it.",
    min: 1,
    max: 86_400,
    unit: 'seconds',
    default: 3600,
  }),
  REFRESH_TOKEN_TTL: wholeNumber({
    meaning: 'Refresh token lifetime in seconds; each rotation starts a new one.',
    min: 60,
    max: 365 * 86_400,
    unit: 'seconds',
    default: 14 * 86_400,
    defaultNote: '14 days',
  }),
  KEY_ENCRYPTION_SECRET: text({
    meaning:
      'When set, private signing keys are stored encrypted (AES-256-GCM, key derived with HKDF-SHA256); keys stored in clear before are sealed at start. A wrong or missing secret for sealed keys stops the start with one line.',
    accepted: 'at least 16 characters',
    pattern: /^.{16,}$/s,
    defaultText: 'unset: keys stored as PEM',
    secret: true,
  }),
  TOKEN_SIGNING_ALG: oneOf(SIGNING_ALGORITHMS, {
    meaning:
      'The algorithm of access token signatures (`EdDSA` is Ed25519). Changing it creates a key of the new kind at start; keys of the other kind stay published.',
    default: 'RS256',
  }),
  TRUST_PROXY: parsed({
    meaning:
      'The proxies whose `X-Forwarded-For` is believed for the source address (brute-force limits, logs): a hop count, or a comma-separated list of addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`. With `MTLS_CLIENT_CERT_HEADER` it must be a list: the header is believed only from a peer it names.',
    accepted: 'a hop count or a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal',
    defaultText: "unset: the socket's peer address",
    parse: parseTrustProxy,
  }),
  ADMIN_TRUST_PROXY: parsed({
    meaning:
      "The admin listener's own proxies, whose `X-Forwarded-For` it believes for the source address (the admin token's brute-force limit, the audit trail's actor address); `TRUST_PROXY` never applies to the admin listener. Same syntax as `TRUST_PROXY`; see [security](../operations/security.md#the-admin-listener-believes-only-its-own-proxies).",
    accepted: 'a hop count or a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal',
    defaultText: "unset: the connection's peer address",
    parse: parseTrustProxy,
  }),
  HOST: parsed({
    meaning:
      'The interface address the public listener (`PORT`) binds, e.g. `127.0.0.1` behind a proxy on the same host; `0.0.0.0` is every IPv4 interface, `::` every interface.',
    accepted: 'the IPv4 or IPv6 address of an interface, such as 127.0.0.1, 0.0.0.0 or ::',
    defaultText: 'unset: every interface (IPv4 and IPv6)',
    parse: parseHost,
  }),
  ADMIN_HOST: parsed({
    meaning:
      'The interface address the admin listener (`ADMIN_PORT`) binds; see [deploying](../operations/deploying.md#the-two-listeners-and-their-interfaces).',
    accepted: 'the IPv4 or IPv6 address of an interface, such as 127.0.0.1, 0.0.0.0 or ::',
    defaultText: '`127.0.0.1` with the embedded PostgreSQL (no `DATABASE_URL`); `0.0.0.0` with `DATABASE_URL`',
    parse: parseHost,
  }),
  DATA_DIR: text({
    meaning:
      'The folder of the embedded PostgreSQL (or, as root where the `postgres` user cannot enter it, of `postgres-location`, naming where the cluster lives), its password and the generated admin token.',
    accepted: 'a folder path',
    defaultText: '`./.data`',
  }),
  LOG_LEVEL: oneOf(LOG_LEVELS, {
    meaning: 'The lowest level written; successful token and introspection requests are logged at `debug`. See [logs](../operations/logs.md).',
    default: 'info',
  }),
  LOG_FORMAT: oneOf(LOG_FORMATS, {
    meaning: '`json`: one JSON object per line; `pretty`: pino-pretty (coloured where supported, `NO_COLOR` honoured).',
    defaultText: '`pretty` when stdout is a terminal and `NODE_ENV` is not `production`, else `json`',
  }),
  CORS_ALLOWED_ORIGINS: parsed({
    meaning: 'Comma-separated origins (e.g. `https://app.example`) allowed to call the public endpoints from a browser; never the admin interface.',
    accepted: 'a comma-separated list of origins such as https://app.example',
    defaultText: 'unset: CORS off',
    parse: parseOrigins,
  }),
  UV_THREADPOOL_SIZE: wholeNumber({
    meaning:
      "Threads of libuv's pool, which Node.js itself reads at start. They run the slow hashes of client secrets and sign tokens; slow hashes may take all but two of them, and at most half the cores; see [slow hashes are bounded](../operations/security.md#slow-hashes-are-bounded).",
    min: 1,
    max: 1024,
    default: 4,
  }),
  WORKERS: parsed({
    meaning:
      'Server processes on this host; `auto` is one per core (`os.availableParallelism()`). They share both ports and the database; see [scaling out](../operations/scaling.md#every-core-workers).',
    accepted: `auto or a whole number from 1 to ${WORKERS_MAX}`,
    defaultText: '`1`',
    parse: parseWorkers,
  }),
  DPOP_NONCE: flag({
    meaning: '`true`: DPoP proofs must carry a server-issued nonce (RFC 9449 §8); see [DPoP proofs](token-endpoint.md#dpop-proofs).',
    default: false,
  }),
  JWKS_URI_ALLOW_HTTP: flag({
    meaning: "`true` lets a client's `jwks_uri` be fetched over plain `http` (development and tests only).",
    default: false,
  }),
  DATABASE_POOL_SIZE: wholeNumber({
    meaning: `Database connections of the whole host, divided equally among \`WORKERS\` (at least ${MIN_DATABASE_CONNECTIONS_PER_WORKER} per worker); see [the connection budget](../operations/database.md).`,
    min: MIN_DATABASE_CONNECTIONS_PER_WORKER,
    max: 10_000,
    unit: 'connections',
    // 0: not set; loadConfig makes it DEFAULT_DATABASE_CONNECTIONS_PER_WORKER per worker.
    default: 0,
    defaultText: `${DEFAULT_DATABASE_CONNECTIONS_PER_WORKER} per worker`,
  }),
  PERMISSION_TICKET_TTL: wholeNumber({
    meaning: 'Lifetime of a UMA permission ticket, seconds; see [UMA 2.0 for data sources](../guides/uma.md).',
    min: 1,
    max: 3600,
    unit: 'seconds',
    default: 300,
  }),
  CLIENT_ASSERTION_AUDIENCE: oneOf(CLIENT_ASSERTION_AUDIENCES, {
    meaning:
      "What a client assertion's `aud` may be: `issuer-or-token-endpoint` (SMART) or `issuer` only (FAPI 2.0, against audience injection); see [SMART Backend Services](../guides/smart-backend-services.md).",
    default: 'issuer-or-token-endpoint',
  }),
  TLS_CERT_FILE: text({
    meaning:
      'PEM certificate (chain) of the public listener: with `TLS_KEY_FILE`, `PORT` serves HTTPS only, TLS 1.2 at least, with HSTS; see [TLS and HSTS](../operations/tls.md).',
    accepted: 'a file path',
    defaultText: 'unset (plain HTTP)',
  }),
  TLS_KEY_FILE: text({
    meaning: 'PEM private key of the certificate in `TLS_CERT_FILE` (both or neither); see [TLS and HSTS](../operations/tls.md).',
    accepted: 'a file path',
    defaultText: 'unset',
  }),
  TLS_CIPHERS: parsed({
    meaning: `Narrows the TLS suites of the public listener to those named (colon- or comma-separated). Allowed: TLS 1.2 ${TLS12_CIPHERS.map((name) => `\`${name}\``).join(', ')}; TLS 1.3 ${TLS13_CIPHERS.map((name) => `\`${name}\``).join(', ')}. A TLS version none of whose suites is named keeps all of its allowed ones; see [TLS and HSTS](../operations/tls.md#cipher-suites).`,
    accepted: 'names from the allowed suites, colon- or comma-separated',
    defaultText: 'unset: every allowed suite',
    parse: (_name, raw) => parseTlsCiphers(raw),
  }),
  STATUS_LIST: flag({
    meaning:
      '`true`: every access token carries a `status` claim naming its entry in a token status list, and `/oauth2/status` serves the lists; `false`: neither; see [token status lists](status-lists.md).',
    default: true,
  }),
  STATUS_LIST_TTL: wholeNumber({
    meaning: 'The `ttl` claim of a status list token and its `Cache-Control` max-age, seconds; see [token status lists](status-lists.md).',
    min: 1,
    max: 3600,
    unit: 'seconds',
    default: 60,
  }),
  STATUS_LIST_SIZE: parsed({
    meaning:
      'Entries per status list: a power of two from 1024 to 16777216 (fewer entries, less herd privacy); a full list is followed by a new one; see [token status lists](status-lists.md).',
    accepted: 'a power of two from 1024 to 16777216',
    defaultText: '`1048576`',
    parse: parseStatusListSize,
  }),
  SIGNING_KEY_PUBLISH_AHEAD: wholeNumber({
    meaning:
      'Seconds a new signing key from `keys rotate` is published in the JWKS before it signs; `keys rotate --now` signs at once; see [rotating credentials](../operations/secrets-and-keys.md#rotating-credentials).',
    min: 0,
    max: 86_400,
    unit: 'seconds',
    default: 600,
  }),
  DYNAMIC_CLIENT_REGISTRATION: flag({
    meaning:
      '`true`: clients may register themselves at `/oauth2/register`, always with an initial access token an administrator issued (there is no open mode); `false`: those paths answer 404 and no `registration_endpoint` is advertised. See [dynamic client registration](../guides/dynamic-registration.md).',
    default: true,
  }),
  DCR_SOFTWARE_STATEMENT_JWKS_FILE: text({
    meaning:
      'JWKS file of the public keys of trusted software-statement publishers; a `software_statement` must be signed by one of them. See [dynamic client registration](../guides/dynamic-registration.md#software-statements).',
    accepted: 'a file path',
    defaultText: 'unset: every software statement is refused',
  }),
  DCR_SOFTWARE_STATEMENT_MAX_AGE: wholeNumber({
    meaning:
      'How old a software statement may be: its `iat` at most this many seconds ago (a statement without `iat`, with an `exp` in the past, or with an `aud` that is not this `registration_endpoint` is refused too); see [dynamic client registration](../guides/dynamic-registration.md#software-statements).',
    min: 60,
    max: 10 * 365 * 86_400,
    unit: 'seconds',
    default: 365 * 86_400,
    defaultNote: 'one year',
  }),
  MTLS: flag({
    meaning:
      '`true`: mutual-TLS client authentication and certificate-bound tokens (RFC 8705). Under native TLS the public listener asks every client for a certificate and never requires one; behind a TLS proxy, `MTLS_CLIENT_CERT_HEADER` carries it. Enables `tls_client_auth` (with `TLS_CLIENT_CA_FILE`), `self_signed_tls_client_auth` and certificate-bound tokens; see [mutual TLS](../guides/mtls.md).',
    default: false,
  }),
  TLS_CLIENT_CA_FILE: text({
    meaning:
      'PEM file of the CA certificates (and intermediates) a `tls_client_auth` client certificate must chain to; never the system roots. Needs `MTLS=true`; see [mutual TLS](../guides/mtls.md).',
    accepted: 'a file path',
    defaultText: 'unset: no `tls_client_auth`',
  }),
  MTLS_CLIENT_CERT_HEADER: text({
    meaning:
      'The header in which a TLS-terminating proxy forwards the client certificate: URL-encoded PEM (NGINX `$ssl_client_escaped_cert`) or an RFC 9440 byte sequence (`:base64-DER:`). Believed only from peers `TRUST_PROXY` trusts; needs `MTLS=true` and no `TLS_CERT_FILE`; see [mutual TLS](../guides/mtls.md#behind-nginx).',
    accepted: 'an HTTP header name',
    pattern: /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/,
    defaultText: 'unset',
  }),
  TLS_HANDSHAKE_RATE: wholeNumber({
    meaning:
      "New TLS connections a second per source address under native TLS with `MTLS=true` (a burst of as many is allowed); a connection over the rate is closed before its handshake, so one address cannot spend the server's CPU on handshakes; see [mutual TLS](../guides/mtls.md#bounded-handshakes).",
    min: 1,
    max: 100_000,
    unit: 'connections',
    default: 20,
  }),
  UDAP: flag({
    meaning:
      "`true`: UDAP trust communities for business-to-business clients (HL7 FAST Security IG STU 2): clients certified by a community's certificate authority register themselves and ask for tokens with the `hl7-b2b` extension, and `/.well-known/udap` answers; needs `UDAP_CERT_FILE` and `UDAP_KEY_FILE`. `false`: nothing of UDAP answers. The `trust-community` records (admin interface and CLI) exist either way, so that an administrator can prepare communities before turning UDAP on; see [trust communities](../reference/trust-communities.md).",
    default: false,
  }),
  UDAP_CERT_FILE: text({
    meaning:
      "PEM file of the server's UDAP certificate chain, leaf first: the leaf must hold a subjectAltName URI equal to `ISSUER` and be within its validity. It signs `/.well-known/udap`'s `signed_metadata` (communities without a server certificate of their own). Needed by `UDAP=true`; see [trust communities](../reference/trust-communities.md#discovery).",
    accepted: 'a file path',
    defaultText: 'unset',
  }),
  UDAP_KEY_FILE: text({
    meaning:
      'PEM file of the RSA private key (at least 2048 bits) of the leaf in `UDAP_CERT_FILE`. Needed by `UDAP=true`; see [trust communities](../reference/trust-communities.md#discovery).',
    accepted: 'a file path',
    defaultText: 'unset',
  }),
  DISCLOSURE_RETENTION_DAYS: wholeNumber({
    meaning:
      'Days a disclosure row is kept after its token expired; a job deletes older rows at start and hourly; see [consent withdrawal and the accounting of disclosures](../guides/consent-withdrawal.md).',
    min: 1,
    max: 36_500,
    unit: 'days',
    default: 2190,
    defaultNote: 'six years',
  }),
} satisfies Record<string, Variable<unknown>>;

export type VariableName = keyof typeof VARIABLES;

/** Every variable's value as read, defaults applied. */
export type VariableValues = { [Name in VariableName]: ReturnType<(typeof VARIABLES)[Name]['read']> };

/** The variables whose values are secrets (never echoed, never in a worker's environment). */
export const SECRET_VARIABLES: readonly VariableName[] = (Object.keys(VARIABLES) as VariableName[]).filter(
  (name) => (VARIABLES[name] as Variable<unknown>).secret === true,
);

/** Reads every variable in declaration order; the first refusal stops with its one line. An empty variable counts as unset. */
export function readVariables(env: NodeJS.ProcessEnv): VariableValues {
  const values: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(VARIABLES) as [string, Variable<unknown>][]) {
    const raw = env[name];
    values[name] = variable.read(name, raw === '' ? undefined : raw);
  }
  return values as VariableValues;
}

/** `auto`: one per core the process may use (os.availableParallelism). */
function parseWorkers(name: string, raw: string | undefined, accepted: string): number {
  if (raw === undefined) return 1;
  if (raw.trim() === 'auto') return availableParallelism();
  const count = /^\s*\d+\s*$/.test(raw) ? Number(raw.trim()) : Number.NaN;
  if (!(count >= 1 && count <= WORKERS_MAX)) throw refusal(name, accepted, raw);
  return count;
}

function parseOrigins(name: string, raw: string | undefined, accepted: string): string[] {
  if (raw === undefined) return [];
  const origins = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) throw refusal(name, accepted, origin);
  }
  return origins;
}

/** A power of two from 1024 to 2^24 (docs/reference/status-lists.md). */
function parseStatusListSize(name: string, raw: string | undefined, accepted: string): number {
  if (raw === undefined) return 1 << 20;
  const size = /^\s*\d{1,9}\s*$/.test(raw) ? Number(raw.trim()) : Number.NaN;
  if (!(size >= 1024 && size <= 1 << 24 && (size & (size - 1)) === 0)) throw refusal(name, accepted, raw);
  return size;
}

/** HOST, ADMIN_HOST: an IP address (brackets around an IPv6 one are dropped); undefined when unset. */
function parseHost(name: string, raw: string | undefined, accepted: string): string | undefined {
  if (raw === undefined) return undefined;
  const address = raw.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(address) === 0) throw refusal(name, accepted, raw);
  return address;
}

/** Express's `trust proxy` setting: off, a hop count, or the proxies whose X-Forwarded-For is believed. */
export function parseTrustProxy(name: string, raw: string | undefined, accepted: string): TrustProxy {
  if (raw === undefined || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const named = new Set(['loopback', 'linklocal', 'uniquelocal']);
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const validPrefix = prefix === undefined || /^\d{1,3}$/.test(prefix);
    if (!named.has(entry) && !(isIP(address ?? '') && validPrefix)) throw refusal(name, accepted, raw);
  }
  return entries;
}
