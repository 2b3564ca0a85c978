import type { TlsFiles } from './tls-files.js';

export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** Express's `trust proxy` setting: off, a hop count, or the proxies whose X-Forwarded-For is believed. */
export type TrustProxy = false | number | string[];

/** The validated configuration every module reads (docs/reference/configuration.md). */
export type AppConfig = {
  port: number;
  adminPort: number;
  /** Server processes on this host (WORKERS; `auto` resolved to the number of cores). */
  workers: number;
  /** DATABASE_POOL_SIZE: database connections of the whole host, divided among the workers (docs/operations/database.md). */
  databasePoolSize: number;
  /** Unset: an embedded PostgreSQL under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  issuer: string;
  audience: string;
  adminToken?: string;
  adminTokenFile?: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /** Encrypts signing keys at rest when set. */
  keyEncryptionSecret?: string;
  tokenSigningAlg: SigningAlgorithm;
  trustProxy: TrustProxy;
  /** Origins allowed to call the public endpoints from a browser; empty: CORS off. */
  corsAllowedOrigins: string[];
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** docs/reference/token-endpoint.md#dpop-proofs: DPoP proofs must carry a server-issued nonce. */
  dpopNonce: boolean;
  /** docs/reference/token-endpoint.md#client-assertions-private_key_jwt: plain-http jwks_uri allowed (development and tests only). */
  jwksUriAllowHttp: boolean;
  /** UMA permission ticket lifetime in seconds, 1–3600 (docs/guides/uma.md). */
  permissionTicketTtl: number;
  /**
   * What a client assertion's `aud` may be: the issuer or the token endpoint URL (SMART), or the
   * issuer only (FAPI 2.0); see docs/guides/smart-backend-services.md.
   */
  clientAssertionAudience: ClientAssertionAudience;
  /** TLS_CERT_FILE and TLS_KEY_FILE: the public listener serves HTTPS only (docs/operations/tls.md). */
  tls?: TlsFiles;
  /** Days a disclosure row is kept after its token expired (docs/guides/consent-withdrawal.md). */
  disclosureRetentionDays: number;
  /** DYNAMIC_CLIENT_REGISTRATION: /oauth2/register answers (always behind initial access tokens); see docs/guides/dynamic-registration.md. */
  dynamicClientRegistration: boolean;
  /** DCR_SOFTWARE_STATEMENT_JWKS_FILE, read at start: the keys of trusted software-statement publishers; undefined: statements refused. */
  softwareStatementKeys?: { keys: Record<string, unknown>[] };
};

export type ClientAssertionAudience = 'issuer-or-token-endpoint' | 'issuer';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

export const APP_CONFIG = Symbol('APP_CONFIG');
