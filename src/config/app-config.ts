import type { UdapServerCertificate } from './udap-server-certificate.js';
import type { TlsFiles } from './tls-files.js';

export const SIGNING_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** Express's `trust proxy` setting: off, a hop count, or the proxies whose X-Forwarded-For is believed. */
export type TrustProxy = false | number | string[];

/** The validated configuration every module reads (docs/reference/configuration.md). */
export type AppConfig = {
  port: number;
  adminPort: number;
  /** Server processes on this host (WORKERS; `auto` resolved to the number of cores). */
  workers: number;
  /** UV_THREADPOOL_SIZE: libuv's threads, which bound the slow hashes (auth/slow-hash-gate.ts). */
  threadPoolSize: number;
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
  /** TRUST_PROXY: the public listener's proxies. */
  trustProxy: TrustProxy;
  /** ADMIN_TRUST_PROXY: the admin listener's own proxies (TRUST_PROXY never applies there). */
  adminTrustProxy: TrustProxy;
  /** HOST: the public listener's interface; undefined: every interface. */
  host?: string;
  /** ADMIN_HOST: the admin listener's interface (127.0.0.1 by default with the embedded database, else 0.0.0.0). */
  adminHost: string;
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
  /** DCR_SOFTWARE_STATEMENT_MAX_AGE: seconds a software statement's iat may lie in the past. */
  softwareStatementMaxAge: number;
  /**
   * What a client assertion's `aud` may be: the issuer or the token endpoint URL (SMART), or the
   * issuer only (FAPI 2.0); see docs/guides/smart-backend-services.md.
   */
  clientAssertionAudience: ClientAssertionAudience;
  /** TLS_CERT_FILE and TLS_KEY_FILE: the public listener serves HTTPS only (docs/operations/tls.md). */
  tls?: TlsFiles;
  /** Days a disclosure row is kept after its token expired (docs/guides/consent-withdrawal.md). */
  disclosureRetentionDays: number;
  /** Access tokens carry a `status` claim and the status list endpoints answer (docs/reference/status-lists.md). */
  statusList: boolean;
  /** The status list token's `ttl` and max-age, seconds. */
  statusListTtl: number;
  /** Entries per status list, a power of two. */
  statusListSize: number;
  /** Seconds a rotated signing key is published before it signs (docs/operations/key-rotation.md). */
  signingKeyPublishAhead: number;
  /** DYNAMIC_CLIENT_REGISTRATION: /oauth2/register answers (always behind initial access tokens); see docs/guides/dynamic-registration.md. */
  dynamicClientRegistration: boolean;
  /** UDAP: trust communities' clients may register and ask for tokens; see docs/reference/trust-communities.md. */
  udap: boolean;
  /** UDAP_CERT_FILE and UDAP_KEY_FILE, checked: what signs `/.well-known/udap`; present whenever a server runs with UDAP=true. */
  udapServerCertificate?: UdapServerCertificate;
  /** DCR_SOFTWARE_STATEMENT_JWKS_FILE: the key set of trusted software-statement publishers (read by the registration service at start); unset: statements refused. */
  softwareStatementJwksFile?: string;
  /** MTLS, TLS_CLIENT_CA_FILE and MTLS_CLIENT_CERT_HEADER (docs/guides/mtls.md); absent: mutual TLS off. */
  mtls?: MtlsSettings;
};

/** Mutual TLS as configured (docs/guides/mtls.md). */
export type MtlsSettings = {
  /** TLS_CLIENT_CA_FILE's PEM text: the CAs tls_client_auth chains must reach; absent: no tls_client_auth. */
  clientCa?: string;
  /** MTLS_CLIENT_CERT_HEADER, lower-cased: where a trusted proxy forwards the certificate. */
  certificateHeader?: string;
  /**
   * The command line's view (docs/reference/cli.md): mutual TLS is on, and the listener's files
   * (TLS_CERT_FILE, TLS_CLIENT_CA_FILE, the proxy header) are the server's business, not needed
   * to register a certificate client.
   */
  registrationOnly?: boolean;
  /** TLS_HANDSHAKE_RATE: new connections a second per source address under native TLS. */
  handshakeRate: number;
};

export const CLIENT_ASSERTION_AUDIENCES = ['issuer-or-token-endpoint', 'issuer'] as const;
export type ClientAssertionAudience = (typeof CLIENT_ASSERTION_AUDIENCES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const APP_CONFIG = Symbol('APP_CONFIG');
