import 'reflect-metadata';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { Type } from 'class-transformer';
import type { AppConfig, ClientAssertionAudience, LogFormat, LogLevel, SigningAlgorithm, TrustProxy } from './app-config.js';
import { describedVariables, Describe, type DescribedVariable } from './variable-description.js';
import { loadTlsFiles } from './tls-files.js';
import { loadSoftwareStatementKeys } from './software-statement-keys.js';

/** A configuration value that stops the process: the message is one line naming the variable. */
export class ConfigurationError extends Error {}

/**
 * Each process needs the change feed's connection, one for the replay store, one for the
 * disclosure writer and two for TypeORM
 * (the migrations at start hold a lock on one while running on another): docs/operations/database.md.
 */
export const MIN_DATABASE_CONNECTIONS_PER_WORKER = 5;
export const DEFAULT_DATABASE_CONNECTIONS_PER_WORKER = 10;

type Range = { min: number; max: number; unit?: 'seconds' | 'days' | 'connections' };

/** The accepted range of every whole-number variable, stated once: messages and checks are made from it. */
const RANGES = {
  PORT: { min: 1, max: 65_535 },
  ADMIN_PORT: { min: 1, max: 65_535 },
  ACCESS_TOKEN_TTL: { min: 1, max: 86_400, unit: 'seconds' },
  REFRESH_TOKEN_TTL: { min: 60, max: 365 * 86_400, unit: 'seconds' },
  PERMISSION_TICKET_TTL: { min: 1, max: 3600, unit: 'seconds' },
  DISCLOSURE_RETENTION_DAYS: { min: 1, max: 36_500, unit: 'days' },
  WORKERS: { min: 1, max: 256 },
  DATABASE_POOL_SIZE: { min: MIN_DATABASE_CONNECTIONS_PER_WORKER, max: 10_000, unit: 'connections' },
} satisfies Record<string, Range>;

type RangedVariable = keyof typeof RANGES;

/** "a whole number of seconds from 1 to 3600": the words every message about the range uses. */
function rangeText(name: RangedVariable): string {
  const range: Range = RANGES[name];
  const unit = range.unit ? ` of ${range.unit}` : '';
  return `a whole number${unit} from ${range.min} to ${range.max}`;
}

/** The variables validated by @WholeNumberInRange, in declaration order. */
const WHOLE_NUMBER_VARIABLES: RangedVariable[] = [];

/** A whole number within the variable's range in RANGES, with the one message naming the variable. */
function WholeNumberInRange(): PropertyDecorator {
  return (target, property) => {
    const name = property as RangedVariable;
    const { min, max } = RANGES[name];
    const message = `${name} must be ${rangeText(name)}`;
    // Applied in the order a stack of decorators written Type, IsInt, Min, Max would be.
    for (const decorator of [Max(max, { message }), Min(min, { message }), IsInt({ message }), Type(() => Number)]) {
      decorator(target, property);
    }
    WHOLE_NUMBER_VARIABLES.push(name);
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

class Environment {
  @Describe({
    meaning: 'The public listener: token endpoint, JWKS, metadata, introspection, revocation, health.',
    default: '`3000`',
  })
  @IsOptional()
  @WholeNumberInRange()
  PORT?: number;

  @Describe({
    meaning:
      'The administrative listener: the admin interface (`/admin`), the console, `/metrics` and `/docs`. Must differ from `PORT`; admin routes never answer on `PORT` and public routes never on `ADMIN_PORT` (`/health/*` answers on both).',
    default: '`3001`',
  })
  @IsOptional()
  @WholeNumberInRange()
  ADMIN_PORT?: number;

  @Describe({
    meaning:
      'PostgreSQL connection string. Unset, the server runs an embedded PostgreSQL under `DATA_DIR`; set, an admin token (`ADMIN_TOKEN` or `ADMIN_TOKEN_FILE`) is required.',
    default: 'unset: embedded PostgreSQL',
  })
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    message: 'DATABASE_URL must be a postgres:// or postgresql:// connection string',
  })
  DATABASE_URL?: string;

  @Describe({
    meaning:
      'The `iss` of every token and the base of the metadata URLs (and of the `htu` DPoP proofs must name). An absolute http(s) URL without query or fragment; a trailing `/` is dropped. Every instance behind one load balancer sets the same.',
    default: '`http://localhost:PORT`; `https://localhost:PORT` with `TLS_CERT_FILE`',
    accepted: 'an absolute http(s) URL without query or fragment',
  })
  @IsOptional()
  @IsString()
  ISSUER?: string;

  @Describe({
    meaning:
      'The `aud` of access tokens no data source claims (plain scopes, or no data source serving the definitions); see [the audience of a token](../concepts/audience.md). No white space.',
    default: 'the issuer',
    accepted: 'a string without white space',
  })
  @IsOptional()
  @IsString()
  ACCESS_TOKEN_AUDIENCE?: string;

  @Describe({
    meaning: 'The static administrative token (set this or `ADMIN_TOKEN_FILE`, not both).',
    accepted: 'a string without white space',
    default: 'embedded mode: generated once into `DATA_DIR/admin-token` (mode 0600); with `DATABASE_URL`: required',
  })
  @IsOptional()
  @Matches(/^\S+$/, { message: 'ADMIN_TOKEN must be non-empty and contain no white space' })
  ADMIN_TOKEN?: string;

  @Describe({
    meaning: 'A file holding the administrative token (a compose or Kubernetes secret).',
    default: 'unset',
    accepted: 'a file path',
  })
  @IsOptional()
  @IsString()
  ADMIN_TOKEN_FILE?: string;

  @Describe({
    meaning: "Access token lifetime in seconds; a consent ticket's `maxPermissionDuration` can only shorten it.",
    default: '`3600`',
  })
  @IsOptional()
  @WholeNumberInRange()
  ACCESS_TOKEN_TTL?: number;

  @Describe({
    meaning: 'Refresh token lifetime in seconds; each rotation starts a new one.',
    default: '`1209600` (14 days)',
  })
  @IsOptional()
  @WholeNumberInRange()
  REFRESH_TOKEN_TTL?: number;

  @Describe({
    meaning:
      'When set, private signing keys are stored encrypted (AES-256-GCM, key derived with HKDF-SHA256); keys stored in clear before are sealed at start. A wrong or missing secret for sealed keys stops the start with one line.',
    default: 'unset: keys stored as PEM',
  })
  @IsOptional()
  @Matches(/^.{16,}$/s, { message: 'KEY_ENCRYPTION_SECRET must be at least 16 characters' })
  KEY_ENCRYPTION_SECRET?: string;

  @Describe({
    meaning:
      'The algorithm of access token signatures (`EdDSA` is Ed25519). Changing it creates a key of the new kind at start; keys of the other kind stay published.',
    default: '`RS256`',
  })
  @IsOptional()
  @IsIn(['RS256', 'PS256', 'ES256', 'EdDSA'], { message: 'TOKEN_SIGNING_ALG must be RS256, PS256, ES256 or EdDSA' })
  TOKEN_SIGNING_ALG?: string;

  @Describe({
    meaning:
      'The proxies whose `X-Forwarded-For` is believed for the source address (brute-force limits, logs): a hop count, or a comma-separated list of addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`.',
    default: "unset: the socket's peer address",
    accepted: 'a hop count, or addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`, comma-separated',
  })
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  @Describe({
    meaning:
      'The folder of the embedded PostgreSQL (or, as root where the `postgres` user cannot enter it, of `postgres-location`, naming where the cluster lives), its password and the generated admin token.',
    default: '`./.data`',
    accepted: 'a folder path',
  })
  @IsOptional()
  @IsString()
  DATA_DIR?: string;

  @Describe({
    meaning: 'The lowest level written; successful token requests are logged at `debug`. See [logs](../operations/logs.md).',
    default: '`info`',
  })
  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL?: string;

  @Describe({
    meaning: '`json`: one JSON object per line; `pretty`: pino-pretty (coloured where supported, `NO_COLOR` honoured).',
    default: '`pretty` when stdout is a terminal and `NODE_ENV` is not `production`, else `json`',
  })
  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'LOG_FORMAT must be json or pretty' })
  LOG_FORMAT?: string;

  @Describe({
    meaning: 'Comma-separated origins (e.g. `https://app.example`) allowed to call the public endpoints from a browser; never the admin interface.',
    default: 'unset: CORS off',
    accepted: 'comma-separated origins such as `https://app.example`',
  })
  @IsOptional()
  @IsString()
  CORS_ALLOWED_ORIGINS?: string;

  @Describe({
    meaning: '`true`: DPoP proofs must carry a server-issued nonce (RFC 9449 §8); see [DPoP proofs](token-endpoint.md#dpop-proofs).',
    default: '`false`',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'DPOP_NONCE must be true or false' })
  DPOP_NONCE?: string;

  @Describe({
    meaning: "`true` lets a client's `jwks_uri` be fetched over plain `http` (development and tests only).",
    default: '`false`',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'JWKS_URI_ALLOW_HTTP must be true or false' })
  JWKS_URI_ALLOW_HTTP?: string;

  @Describe({
    meaning: `Lifetime of a UMA permission ticket, seconds (${RANGES.PERMISSION_TICKET_TTL.min}–${RANGES.PERMISSION_TICKET_TTL.max}); see [UMA 2.0 for data sources](../guides/uma.md).`,
    default: '`300`',
  })
  @IsOptional()
  @WholeNumberInRange()
  PERMISSION_TICKET_TTL?: number;

  @Describe({
    meaning:
      "What a client assertion's `aud` may be: `issuer-or-token-endpoint` (SMART) or `issuer` only (FAPI 2.0, against audience injection); see [SMART Backend Services](../guides/smart-backend-services.md).",
    default: '`issuer-or-token-endpoint`',
  })
  @IsOptional()
  @IsIn(['issuer-or-token-endpoint', 'issuer'], { message: 'CLIENT_ASSERTION_AUDIENCE must be issuer-or-token-endpoint or issuer' })
  CLIENT_ASSERTION_AUDIENCE?: string;

  @Describe({
    meaning: `Days a disclosure row is kept after its token expired (${RANGES.DISCLOSURE_RETENTION_DAYS.min}–${RANGES.DISCLOSURE_RETENTION_DAYS.max}); a job deletes older rows at start and hourly; see [consent withdrawal and the accounting of disclosures](../guides/consent-withdrawal.md).`,
    default: '`2190` (six years)',
  })
  @IsOptional()
  @WholeNumberInRange()
  DISCLOSURE_RETENTION_DAYS?: number;

  @Describe({
    meaning:
      'Server processes on this host; `auto` is one per core (`os.availableParallelism()`). They share both ports and the database; see [scaling out](../operations/scaling.md#every-core-workers).',
    default: '`1`',
  })
  @IsOptional()
  @Matches(/^\s*(auto|0*[1-9]\d{0,2})\s*$/, { message: `WORKERS must be auto or ${rangeText('WORKERS')}` })
  WORKERS?: string;

  @Describe({
    meaning: `Database connections of the whole host, divided equally among \`WORKERS\` (at least ${MIN_DATABASE_CONNECTIONS_PER_WORKER} per worker); see [the connection budget](../operations/database.md).`,
    default: '10 per worker',
  })
  @IsOptional()
  @Matches(/^\s*\d{1,9}\s*$/, {
    message: `DATABASE_POOL_SIZE must be ${rangeText('DATABASE_POOL_SIZE')}`,
  })
  DATABASE_POOL_SIZE?: string;

  @Describe({
    meaning:
      'PEM certificate (chain) of the public listener: with `TLS_KEY_FILE`, `PORT` serves HTTPS only, TLS 1.2 at least, with HSTS; see [TLS and HSTS](../operations/tls.md).',
    default: 'unset (plain HTTP)',
  })
  @IsOptional()
  @IsString()
  TLS_CERT_FILE?: string;

  @Describe({
    meaning: 'PEM private key of the certificate in `TLS_CERT_FILE` (both or neither); see [TLS and HSTS](../operations/tls.md).',
    default: 'unset',
  })
  @IsOptional()
  @IsString()
  TLS_KEY_FILE?: string;

  @Describe({
    meaning:
      '`true`: clients may register themselves at `/oauth2/register`, always with an initial access token an administrator issued (there is no open mode); `false`: those paths answer 404 and no `registration_endpoint` is advertised. See [dynamic client registration](../guides/dynamic-registration.md).',
    default: '`true`',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'DYNAMIC_CLIENT_REGISTRATION must be true or false' })
  DYNAMIC_CLIENT_REGISTRATION?: string;

  @Describe({
    meaning:
      'JWKS file of the public keys of trusted software-statement publishers; a `software_statement` must be signed by one of them. See [dynamic client registration](../guides/dynamic-registration.md#software-statements).',
    default: 'unset: every software statement is refused',
  })
  @IsOptional()
  @IsString()
  DCR_SOFTWARE_STATEMENT_JWKS_FILE?: string;
}

/** The variables loadConfig reads (a variable missing here is ignored, even if validated above). */
export const VARIABLES = [
  'PORT',
  'ADMIN_PORT',
  'DATABASE_URL',
  'ISSUER',
  'ACCESS_TOKEN_AUDIENCE',
  'ADMIN_TOKEN',
  'ADMIN_TOKEN_FILE',
  'ACCESS_TOKEN_TTL',
  'TOKEN_SIGNING_ALG',
  'TRUST_PROXY',
  'DATA_DIR',
  'REFRESH_TOKEN_TTL',
  'KEY_ENCRYPTION_SECRET',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'CORS_ALLOWED_ORIGINS',
  'WORKERS',
  'DPOP_NONCE',
  'JWKS_URI_ALLOW_HTTP',
  'DATABASE_POOL_SIZE',
  'PERMISSION_TICKET_TTL',
  'CLIENT_ASSERTION_AUDIENCE',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'DISCLOSURE_RETENTION_DAYS',
  'DYNAMIC_CLIENT_REGISTRATION',
  'DCR_SOFTWARE_STATEMENT_JWKS_FILE',
];

/** The validated variables with their descriptions, for docs/reference/configuration.md. */
export function validatedVariables(): DescribedVariable[] {
  return describedVariables(Environment);
}

/**
 * Validates the environment once, at start. Throws a ConfigurationError whose message is one
 * line naming the first bad variable; values of secrets are never echoed.
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  // An empty variable counts as unset, as shells and compose files often produce them.
  const present = Object.fromEntries(VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '').map((name) => [name, env[name]]));
  for (const name of WHOLE_NUMBER_VARIABLES) {
    if (present[name] !== undefined && !/^\d+$/.test(present[name].trim())) {
      throw new ConfigurationError(numberMessage(name, present[name]));
    }
  }
  const environment = plainToInstance(Environment, present);
  const errors = validateSync(environment, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0];
    const message = Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`;
    throw new ConfigurationError(withValue(message, first.property, present[first.property]));
  }
  const port = environment.PORT ?? 3000;
  const adminPort = environment.ADMIN_PORT ?? 3001;
  if (adminPort === port) {
    throw new ConfigurationError('ADMIN_PORT must differ from PORT (admin routes never share the public listener)');
  }
  const tls = loadTlsFiles(environment.TLS_CERT_FILE, environment.TLS_KEY_FILE);
  const issuer = parseIssuer(environment.ISSUER ?? `${tls ? 'https' : 'http'}://localhost:${port}`);
  const audience = environment.ACCESS_TOKEN_AUDIENCE ?? issuer;
  if (/\s/.test(audience)) {
    throw new ConfigurationError('ACCESS_TOKEN_AUDIENCE must not contain white space');
  }
  if (environment.ADMIN_TOKEN && environment.ADMIN_TOKEN_FILE) {
    throw new ConfigurationError('ADMIN_TOKEN and ADMIN_TOKEN_FILE are both set: set only one');
  }
  const workers = parseWorkers(environment.WORKERS);
  return {
    port,
    adminPort,
    workers,
    databasePoolSize: parseDatabasePoolSize(environment.DATABASE_POOL_SIZE, workers),
    databaseUrl: environment.DATABASE_URL,
    dataDir: resolve(environment.DATA_DIR ?? '.data'),
    issuer,
    audience,
    adminToken: environment.ADMIN_TOKEN,
    adminTokenFile: environment.ADMIN_TOKEN_FILE,
    accessTokenTtl: environment.ACCESS_TOKEN_TTL ?? 3600,
    refreshTokenTtl: environment.REFRESH_TOKEN_TTL ?? 14 * 86_400,
    keyEncryptionSecret: environment.KEY_ENCRYPTION_SECRET,
    tokenSigningAlg: (environment.TOKEN_SIGNING_ALG ?? 'RS256') as SigningAlgorithm,
    trustProxy: parseTrustProxy(environment.TRUST_PROXY),
    corsAllowedOrigins: parseOrigins(present.CORS_ALLOWED_ORIGINS),
    logLevel: (environment.LOG_LEVEL ?? 'info') as LogLevel,
    // Pretty in a terminal outside production, JSON lines everywhere else (containers, files, log shippers).
    logFormat: (environment.LOG_FORMAT ?? (process.stdout.isTTY && env.NODE_ENV !== 'production' ? 'pretty' : 'json')) as LogFormat,
    dpopNonce: environment.DPOP_NONCE === 'true',
    jwksUriAllowHttp: environment.JWKS_URI_ALLOW_HTTP === 'true',
    permissionTicketTtl: environment.PERMISSION_TICKET_TTL ?? 300,
    clientAssertionAudience: (environment.CLIENT_ASSERTION_AUDIENCE ?? 'issuer-or-token-endpoint') as ClientAssertionAudience,
    tls,
    disclosureRetentionDays: environment.DISCLOSURE_RETENTION_DAYS ?? 2190,
    dynamicClientRegistration: environment.DYNAMIC_CLIENT_REGISTRATION !== 'false',
    softwareStatementKeys: loadSoftwareStatementKeys(environment.DCR_SOFTWARE_STATEMENT_JWKS_FILE),
  };
}

/** `auto`: one per core the process may use (os.availableParallelism). */
function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value.trim() === 'auto') return availableParallelism();
  const count = Number(value.trim());
  if (count > RANGES.WORKERS.max) throw new ConfigurationError(`WORKERS must be auto or ${rangeText('WORKERS')} (got ${JSON.stringify(value)})`);
  return count;
}

/**
 * Connections of the whole host, shared among the workers: at least 4 per worker, by default 10
 * per worker (docs/operations/database.md).
 */
function parseDatabasePoolSize(value: string | undefined, workers: number): number {
  if (value === undefined) return DEFAULT_DATABASE_CONNECTIONS_PER_WORKER * workers;
  const size = Number(value.trim());
  const least = MIN_DATABASE_CONNECTIONS_PER_WORKER * workers;
  const { min, max } = RANGES.DATABASE_POOL_SIZE;
  if (size > max || size < min) {
    throw new ConfigurationError(`DATABASE_POOL_SIZE must be ${rangeText('DATABASE_POOL_SIZE')} (got ${JSON.stringify(value)})`);
  }
  if (size < least) {
    throw new ConfigurationError(
      `DATABASE_POOL_SIZE must be at least ${MIN_DATABASE_CONNECTIONS_PER_WORKER} connections per worker: ${least} for WORKERS=${workers} (got ${JSON.stringify(value)})`,
    );
  }
  return size;
}

function numberMessage(name: RangedVariable, value: string): string {
  return `${name} must be ${rangeText(name)} (got ${JSON.stringify(value)})`;
}

const SECRET_VARIABLES = new Set(['DATABASE_URL', 'ADMIN_TOKEN', 'KEY_ENCRYPTION_SECRET']);

function withValue(message: string, name: string, value: string | undefined): string {
  if (value === undefined || SECRET_VARIABLES.has(name)) return message;
  return `${message} (got ${JSON.stringify(value)})`;
}

function parseIssuer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(`ISSUER must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
  }
  // RFC 8414 §2: the issuer is an https URL with no query or fragment (http allowed for development).
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || /\s/.test(value)) {
    throw new ConfigurationError(`ISSUER must be an absolute http(s) URL without query or fragment (got ${JSON.stringify(value)})`);
  }
  return value.replace(/\/+$/, '');
}

function parseOrigins(value: string | undefined): string[] {
  if (value === undefined) return [];
  const origins = value
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
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigurationError(
        `CORS_ALLOWED_ORIGINS must be a comma-separated list of origins such as https://app.example (got ${JSON.stringify(origin)})`,
      );
    }
  }
  return origins;
}

function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const named = new Set(['loopback', 'linklocal', 'uniquelocal']);
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const validPrefix = prefix === undefined || /^\d{1,3}$/.test(prefix);
    if (!named.has(entry) && !(isIP(address ?? '') && validPrefix)) {
      throw new ConfigurationError(
        `TRUST_PROXY must be a hop count or a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal (got ${JSON.stringify(value)})`,
      );
    }
  }
  return entries;
}
