import { resolve } from 'node:path';
import type { AppConfig, MtlsSettings } from './app-config.js';
import { ConfigurationError } from './configuration-error.js';
import { loadClientCaFile, loadTlsFiles } from './tls-files.js';
import { loadUdapServerFiles } from './udap-files.js';
import { DEFAULT_DATABASE_CONNECTIONS_PER_WORKER, MIN_DATABASE_CONNECTIONS_PER_WORKER, readVariables } from './variables.js';

/**
 * Validates the environment once, at start: each variable as declared in variables.ts, then the
 * rules between variables. Throws a ConfigurationError whose message is one line naming the first
 * bad variable; values of secrets are never echoed.
 */
/**
 * `forCli`: the command line's configuration, which never serves: MTLS=true alone turns the
 * certificate methods on, without the listener's TLS files or proxy header.
 */
export function loadConfig(env: NodeJS.ProcessEnv, options: { forCli?: boolean } = {}): AppConfig {
  const values = readVariables(env);
  const port = values.PORT;
  const adminPort = values.ADMIN_PORT;
  if (adminPort === port) {
    throw new ConfigurationError('ADMIN_PORT must differ from PORT (admin routes never share the public listener)');
  }
  const tls = loadTlsFiles(values.TLS_CERT_FILE, values.TLS_KEY_FILE, values.TLS_CIPHERS);
  const issuer = parseIssuer(values.ISSUER ?? `${tls ? 'https' : 'http'}://localhost:${port}`);
  const audience = values.ACCESS_TOKEN_AUDIENCE ?? issuer;
  if (/\s/.test(audience)) {
    throw new ConfigurationError('ACCESS_TOKEN_AUDIENCE must not contain white space');
  }
  if (values.ADMIN_TOKEN && values.ADMIN_TOKEN_FILE) {
    throw new ConfigurationError('ADMIN_TOKEN and ADMIN_TOKEN_FILE are both set: set only one');
  }
  const workers = values.WORKERS;
  const mtls = mtlsSettings(values, tls !== undefined, options.forCli === true);
  const udapServerCertificate = loadUdapServerFiles(values.UDAP, values.UDAP_CERT_FILE, values.UDAP_KEY_FILE, issuer, options.forCli !== true);
  return {
    port,
    adminPort,
    workers,
    threadPoolSize: values.UV_THREADPOOL_SIZE,
    databasePoolSize: databasePoolSize(values.DATABASE_POOL_SIZE, workers, env.DATABASE_POOL_SIZE),
    databaseUrl: values.DATABASE_URL,
    dataDir: resolve(values.DATA_DIR ?? '.data'),
    issuer,
    audience,
    adminToken: values.ADMIN_TOKEN,
    adminTokenFile: values.ADMIN_TOKEN_FILE,
    accessTokenTtl: values.ACCESS_TOKEN_TTL,
    refreshTokenTtl: values.REFRESH_TOKEN_TTL,
    keyEncryptionSecret: values.KEY_ENCRYPTION_SECRET,
    tokenSigningAlg: values.TOKEN_SIGNING_ALG,
    trustProxy: values.TRUST_PROXY,
    adminTrustProxy: values.ADMIN_TRUST_PROXY,
    host: values.HOST,
    // The embedded database is a single-host setup: its admin interface stays on this host unless asked.
    adminHost: values.ADMIN_HOST ?? (values.DATABASE_URL === undefined ? '127.0.0.1' : '0.0.0.0'),
    corsAllowedOrigins: values.CORS_ALLOWED_ORIGINS,
    logLevel: values.LOG_LEVEL,
    // Pretty in a terminal outside production, JSON lines everywhere else (containers, files, log shippers).
    logFormat: values.LOG_FORMAT ?? (process.stdout.isTTY && env.NODE_ENV !== 'production' ? 'pretty' : 'json'),
    dpopNonce: values.DPOP_NONCE,
    jwksUriAllowHttp: values.JWKS_URI_ALLOW_HTTP,
    permissionTicketTtl: values.PERMISSION_TICKET_TTL,
    softwareStatementMaxAge: values.DCR_SOFTWARE_STATEMENT_MAX_AGE,
    clientAssertionAudience: values.CLIENT_ASSERTION_AUDIENCE,
    tls,
    disclosureRetentionDays: values.DISCLOSURE_RETENTION_DAYS,
    statusList: values.STATUS_LIST,
    statusListTtl: values.STATUS_LIST_TTL,
    statusListSize: values.STATUS_LIST_SIZE,
    signingKeyPublishAhead: values.SIGNING_KEY_PUBLISH_AHEAD,
    dynamicClientRegistration: values.DYNAMIC_CLIENT_REGISTRATION,
    udap: values.UDAP,
    ...(udapServerCertificate ? { udapServerCertificate } : {}),
    softwareStatementJwksFile: values.DCR_SOFTWARE_STATEMENT_JWKS_FILE,
    ...(mtls ? { mtls } : {}),
  };
}

/**
 * docs/guides/mtls.md: MTLS needs a place the certificate comes from (native TLS, or a trusted
 * proxy's header, never both); TLS_CLIENT_CA_FILE and MTLS_CLIENT_CERT_HEADER need MTLS.
 */
function mtlsSettings(values: ReturnType<typeof readVariables>, tls: boolean, forCli: boolean): MtlsSettings | undefined {
  const header = values.MTLS_CLIENT_CERT_HEADER;
  if (header !== undefined) {
    if (tls)
      throw new ConfigurationError(
        'MTLS_CLIENT_CERT_HEADER is for a TLS-terminating proxy: unset it or TLS_CERT_FILE (native TLS reads the certificate itself)',
      );
    if (values.TRUST_PROXY === false)
      throw new ConfigurationError('MTLS_CLIENT_CERT_HEADER needs TRUST_PROXY: the header is believed only from the proxies it names');
    // A hop count trusts whatever peer is nearest (Express's hop-count form is true for hop 0): with
    // a certificate header, anyone who can reach the port could hand in any client's public certificate.
    if (!Array.isArray(values.TRUST_PROXY))
      throw new ConfigurationError(
        'TRUST_PROXY must name the proxies (loopback, CIDR ranges or addresses), not a hop count, when MTLS_CLIENT_CERT_HEADER is set: the certificate header is believed only from the proxies it names',
      );
    if (!values.MTLS) throw new ConfigurationError('MTLS_CLIENT_CERT_HEADER needs MTLS=true');
  }
  if (values.TLS_CLIENT_CA_FILE !== undefined && !values.MTLS) throw new ConfigurationError('TLS_CLIENT_CA_FILE needs MTLS=true');
  if (!values.MTLS) return undefined;
  if (forCli && !tls && header === undefined) {
    const clientCa = values.TLS_CLIENT_CA_FILE === undefined ? undefined : loadClientCaFile(values.TLS_CLIENT_CA_FILE);
    return { registrationOnly: true, handshakeRate: values.TLS_HANDSHAKE_RATE, ...(clientCa !== undefined ? { clientCa } : {}) };
  }
  if (!tls && header === undefined) {
    throw new ConfigurationError(
      'MTLS=true needs TLS_CERT_FILE (native TLS) or MTLS_CLIENT_CERT_HEADER (behind a TLS proxy): the certificate has to come from somewhere',
    );
  }
  const clientCa = values.TLS_CLIENT_CA_FILE === undefined ? undefined : loadClientCaFile(values.TLS_CLIENT_CA_FILE);
  return {
    ...(clientCa !== undefined ? { clientCa } : {}),
    ...(header !== undefined ? { certificateHeader: header.toLowerCase() } : {}),
    handshakeRate: values.TLS_HANDSHAKE_RATE,
  };
}

/**
 * Connections of the whole host, shared among the workers: at least
 * MIN_DATABASE_CONNECTIONS_PER_WORKER per worker, by default DEFAULT_DATABASE_CONNECTIONS_PER_WORKER
 * per worker (docs/operations/database.md).
 */
function databasePoolSize(size: number, workers: number, raw: string | undefined): number {
  if (size === 0) return DEFAULT_DATABASE_CONNECTIONS_PER_WORKER * workers;
  const least = MIN_DATABASE_CONNECTIONS_PER_WORKER * workers;
  if (size < least) {
    throw new ConfigurationError(
      `DATABASE_POOL_SIZE must be at least ${MIN_DATABASE_CONNECTIONS_PER_WORKER} connections per worker: ${least} for WORKERS=${workers} (got ${JSON.stringify(raw)})`,
    );
  }
  return size;
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
