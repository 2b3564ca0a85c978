import 'reflect-metadata';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { Type } from 'class-transformer';
import type { AppConfig, LogFormat, LogLevel, SigningAlgorithm, TrustProxy } from './app-config.js';

/** A configuration value that stops the process: the message is one line naming the variable. */
export class ConfigurationError extends Error {}

const MAX_TTL_SECONDS = 86_400;
const MAX_REFRESH_TTL_SECONDS = 365 * 86_400;
const MAX_WORKERS = 256;
const MAX_RETENTION_DAYS = 36_500;
const RETENTION_MESSAGE = `DISCLOSURE_RETENTION_DAYS must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}`;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

class Environment {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'PORT must be a whole number from 1 to 65535' })
  @Min(1, { message: 'PORT must be a whole number from 1 to 65535' })
  @Max(65535, { message: 'PORT must be a whole number from 1 to 65535' })
  PORT?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'ADMIN_PORT must be a whole number from 1 to 65535' })
  @Min(1, { message: 'ADMIN_PORT must be a whole number from 1 to 65535' })
  @Max(65535, { message: 'ADMIN_PORT must be a whole number from 1 to 65535' })
  ADMIN_PORT?: number;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    message: 'DATABASE_URL must be a postgres:// or postgresql:// connection string',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  ISSUER?: string;

  @IsOptional()
  @IsString()
  ACCESS_TOKEN_AUDIENCE?: string;

  @IsOptional()
  @Matches(/^\S+$/, { message: 'ADMIN_TOKEN must be non-empty and contain no white space' })
  ADMIN_TOKEN?: string;

  @IsOptional()
  @IsString()
  ADMIN_TOKEN_FILE?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `ACCESS_TOKEN_TTL must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}` })
  @Min(1, { message: `ACCESS_TOKEN_TTL must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}` })
  @Max(MAX_TTL_SECONDS, {
    message: `ACCESS_TOKEN_TTL must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}`,
  })
  ACCESS_TOKEN_TTL?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `REFRESH_TOKEN_TTL must be a whole number of seconds from 60 to ${MAX_REFRESH_TTL_SECONDS}` })
  @Min(60, { message: `REFRESH_TOKEN_TTL must be a whole number of seconds from 60 to ${MAX_REFRESH_TTL_SECONDS}` })
  @Max(MAX_REFRESH_TTL_SECONDS, { message: `REFRESH_TOKEN_TTL must be a whole number of seconds from 60 to ${MAX_REFRESH_TTL_SECONDS}` })
  REFRESH_TOKEN_TTL?: number;

  @IsOptional()
  @Matches(/^.{16,}$/s, { message: 'KEY_ENCRYPTION_SECRET must be at least 16 characters' })
  KEY_ENCRYPTION_SECRET?: string;

  @IsOptional()
  @IsIn(['RS256', 'PS256', 'ES256', 'EdDSA'], { message: 'TOKEN_SIGNING_ALG must be RS256, PS256, ES256 or EdDSA' })
  TOKEN_SIGNING_ALG?: string;

  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  @IsOptional()
  @IsString()
  DATA_DIR?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL?: string;

  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'LOG_FORMAT must be json or pretty' })
  LOG_FORMAT?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'DPOP_NONCE must be true or false' })
  DPOP_NONCE?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'JWKS_URI_ALLOW_HTTP must be true or false' })
  JWKS_URI_ALLOW_HTTP?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: RETENTION_MESSAGE })
  @Min(1, { message: RETENTION_MESSAGE })
  @Max(MAX_RETENTION_DAYS, { message: RETENTION_MESSAGE })
  DISCLOSURE_RETENTION_DAYS?: number;

  @IsOptional()
  @Matches(/^\s*(auto|0*[1-9]\d{0,2})\s*$/, { message: `WORKERS must be auto or a whole number from 1 to ${MAX_WORKERS}` })
  WORKERS?: string;
}

const VARIABLES = [
  'PORT', 'ADMIN_PORT', 'DATABASE_URL', 'ISSUER', 'ACCESS_TOKEN_AUDIENCE', 'ADMIN_TOKEN',
  'ADMIN_TOKEN_FILE', 'ACCESS_TOKEN_TTL', 'TOKEN_SIGNING_ALG', 'TRUST_PROXY', 'DATA_DIR',
  'REFRESH_TOKEN_TTL', 'KEY_ENCRYPTION_SECRET',
  'LOG_LEVEL', 'LOG_FORMAT', 'CORS_ALLOWED_ORIGINS', 'WORKERS',
  'DPOP_NONCE', 'JWKS_URI_ALLOW_HTTP', 'DISCLOSURE_RETENTION_DAYS',
];

/**
 * Validates the environment once, at start. Throws a ConfigurationError whose message is one
 * line naming the first bad variable; values of secrets are never echoed.
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  // An empty variable counts as unset, as shells and compose files often produce them.
  const present = Object.fromEntries(
    VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '').map((name) => [
      name,
      env[name],
    ]),
  );
  for (const name of ['PORT', 'ADMIN_PORT', 'ACCESS_TOKEN_TTL', 'REFRESH_TOKEN_TTL', 'DISCLOSURE_RETENTION_DAYS']) {
    if (present[name] !== undefined && !/^\d+$/.test(present[name]!.trim())) {
      throw new ConfigurationError(numberMessage(name, present[name]!));
    }
  }
  const environment = plainToInstance(Environment, present);
  const errors = validateSync(environment, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const message = Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`;
    throw new ConfigurationError(withValue(message, first.property, present[first.property]));
  }
  const port = environment.PORT ?? 3000;
  const adminPort = environment.ADMIN_PORT ?? 3001;
  if (adminPort === port) {
    throw new ConfigurationError('ADMIN_PORT must differ from PORT (admin routes never share the public listener)');
  }
  const issuer = parseIssuer(environment.ISSUER ?? `http://localhost:${port}`);
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
    disclosureRetentionDays: environment.DISCLOSURE_RETENTION_DAYS ?? 2190,
  };
}

/** `auto`: one per core the process may use (os.availableParallelism). */
function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value.trim() === 'auto') return availableParallelism();
  const count = Number(value.trim());
  if (count > MAX_WORKERS) throw new ConfigurationError(`WORKERS must be auto or a whole number from 1 to ${MAX_WORKERS} (got ${JSON.stringify(value)})`);
  return count;
}

function numberMessage(name: string, value: string): string {
  const ranges: Record<string, string> = {
    ACCESS_TOKEN_TTL: `a whole number of seconds from 1 to ${MAX_TTL_SECONDS}`,
    REFRESH_TOKEN_TTL: `a whole number of seconds from 60 to ${MAX_REFRESH_TTL_SECONDS}`,
    DISCLOSURE_RETENTION_DAYS: `a whole number of days from 1 to ${MAX_RETENTION_DAYS}`,
  };
  const range = ranges[name] ?? 'a whole number from 1 to 65535';
  return `${name} must be ${range} (got ${JSON.stringify(value)})`;
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
    throw new ConfigurationError(
      `ISSUER must be an absolute http(s) URL without query or fragment (got ${JSON.stringify(value)})`,
    );
  }
  return value.replace(/\/+$/, '');
}

function parseOrigins(value: string | undefined): string[] {
  if (value === undefined) return [];
  const origins = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigurationError(`CORS_ALLOWED_ORIGINS must be a comma-separated list of origins such as https://app.example (got ${JSON.stringify(origin)})`);
    }
  }
  return origins;
}

function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
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
