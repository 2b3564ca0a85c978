export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** Express's `trust proxy` setting: off, a hop count, or the proxies whose X-Forwarded-For is believed. */
export type TrustProxy = false | number | string[];

/** The validated configuration every module reads (API.md §2). */
export type AppConfig = {
  port: number;
  adminPort: number;
  /** Server processes on this host (WORKERS; `auto` resolved to the number of cores). */
  workers: number;
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
  /** API.md §10: DPoP proofs must carry a server-issued nonce. */
  dpopNonce: boolean;
  /** API.md §9: plain-http jwks_uri allowed (development and tests only). */
  jwksUriAllowHttp: boolean;
  /** Days a disclosure row is kept after its token expired (docs/guides/consent-withdrawal.md). */
  disclosureRetentionDays: number;
};

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

export const APP_CONFIG = Symbol('APP_CONFIG');
