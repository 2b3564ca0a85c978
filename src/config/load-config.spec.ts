import { availableParallelism } from 'node:os';
import { ConfigurationError } from './configuration-error.js';
import { loadConfig } from './load-config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      adminPort: 3001,
      issuer: 'http://localhost:3000',
      audience: 'http://localhost:3000',
      accessTokenTtl: 3600,
      tokenSigningAlg: 'RS256',
      trustProxy: false,
      logLevel: 'info',
    });
    expect(config.databaseUrl).toBeUndefined();
  });

  it('accepts the FAPI 2.0 signing algorithms and the proof-of-possession switches', () => {
    expect(loadConfig({ TOKEN_SIGNING_ALG: 'PS256' }).tokenSigningAlg).toBe('PS256');
    expect(loadConfig({ TOKEN_SIGNING_ALG: 'EdDSA' }).tokenSigningAlg).toBe('EdDSA');
    expect(loadConfig({})).toMatchObject({ dpopNonce: false, jwksUriAllowHttp: false });
    expect(loadConfig({ DPOP_NONCE: 'true', JWKS_URI_ALLOW_HTTP: 'true' })).toMatchObject({ dpopNonce: true, jwksUriAllowHttp: true });
  });

  it('keeps UMA permission tickets 300 s by default, PERMISSION_TICKET_TTL from 1 to 3600', () => {
    expect(loadConfig({}).permissionTicketTtl).toBe(300);
    expect(loadConfig({ PERMISSION_TICKET_TTL: '1' }).permissionTicketTtl).toBe(1);
    expect(loadConfig({ PERMISSION_TICKET_TTL: '3600' }).permissionTicketTtl).toBe(3600);
  });

  it.each(['0', '3601', 'soon', '-5', '2.5'])('refuses PERMISSION_TICKET_TTL=%s with one line naming it', (value) => {
    expect(() => loadConfig({ PERMISSION_TICKET_TTL: value })).toThrow(ConfigurationError);
    expect(() => loadConfig({ PERMISSION_TICKET_TTL: value })).toThrow(
      /^PERMISSION_TICKET_TTL must be a whole number of seconds from 1 to 3600 \(got "[^"\n]*"\)$/,
    );
  });

  it('accepts the issuer or the token endpoint as assertion audience by default, and the issuer only on request', () => {
    expect(loadConfig({}).clientAssertionAudience).toBe('issuer-or-token-endpoint');
    expect(loadConfig({ CLIENT_ASSERTION_AUDIENCE: 'issuer' }).clientAssertionAudience).toBe('issuer');
  });

  it('keeps disclosures six years by default, and as many days as DISCLOSURE_RETENTION_DAYS says', () => {
    expect(loadConfig({}).disclosureRetentionDays).toBe(2190);
    expect(loadConfig({ DISCLOSURE_RETENTION_DAYS: '1' }).disclosureRetentionDays).toBe(1);
  });

  it.each(['0', '-5', '1.5', 'soon', '99999999'])('refuses DISCLOSURE_RETENTION_DAYS=%s with one line naming it', (value) => {
    expect(() => loadConfig({ DISCLOSURE_RETENTION_DAYS: value })).toThrow(ConfigurationError);
    expect(() => loadConfig({ DISCLOSURE_RETENTION_DAYS: value })).toThrow(/^DISCLOSURE_RETENTION_DAYS must be a whole number of days from 1 to 36500/);
  });

  it('turns token status lists on by default, of 2^20 entries and a 60 s ttl, and publishes rotated keys 600 s ahead', () => {
    expect(loadConfig({})).toMatchObject({ statusList: true, statusListSize: 1 << 20, statusListTtl: 60, signingKeyPublishAhead: 600 });
    expect(loadConfig({ STATUS_LIST: 'false', STATUS_LIST_SIZE: '1024', STATUS_LIST_TTL: '1', SIGNING_KEY_PUBLISH_AHEAD: '0' })).toMatchObject({
      statusList: false,
      statusListSize: 1024,
      statusListTtl: 1,
      signingKeyPublishAhead: 0,
    });
  });

  it.each([
    ['STATUS_LIST', 'yes', /^STATUS_LIST must be true or false/],
    ['STATUS_LIST_SIZE', '1000', /^STATUS_LIST_SIZE must be a power of two from 1024 to 16777216/],
    ['STATUS_LIST_SIZE', '512', /^STATUS_LIST_SIZE must be a power of two from 1024 to 16777216/],
    ['STATUS_LIST_SIZE', '33554432', /^STATUS_LIST_SIZE must be a power of two from 1024 to 16777216/],
    ['STATUS_LIST_SIZE', 'big', /^STATUS_LIST_SIZE must be a power of two from 1024 to 16777216/],
    ['STATUS_LIST_TTL', '0', /^STATUS_LIST_TTL must be a whole number of seconds from 1 to 3600/],
    ['STATUS_LIST_TTL', '3601', /^STATUS_LIST_TTL must be a whole number of seconds from 1 to 3600/],
    ['SIGNING_KEY_PUBLISH_AHEAD', '86401', /^SIGNING_KEY_PUBLISH_AHEAD must be a whole number of seconds from 0 to 86400/],
    ['SIGNING_KEY_PUBLISH_AHEAD', '-1', /^SIGNING_KEY_PUBLISH_AHEAD must be a whole number of seconds from 0 to 86400/],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigurationError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('runs one server process by default, one per core with WORKERS=auto, and N with WORKERS=N', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: 'auto' }).workers).toBe(availableParallelism());
    expect(loadConfig({ WORKERS: '3' }).workers).toBe(3);
  });

  it("reads libuv's UV_THREADPOOL_SIZE (4 by default) and refuses one that is not a whole number from 1 to 1024", () => {
    expect(loadConfig({}).threadPoolSize).toBe(4);
    expect(loadConfig({ UV_THREADPOOL_SIZE: '16' }).threadPoolSize).toBe(16);
    expect(() => loadConfig({ UV_THREADPOOL_SIZE: 'many' })).toThrow('UV_THREADPOOL_SIZE must be a whole number from 1 to 1024 (got "many")');
    expect(() => loadConfig({ UV_THREADPOOL_SIZE: '0' })).toThrow(ConfigurationError);
  });

  it('shares DATABASE_POOL_SIZE among the workers: 10 connections per worker by default', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ WORKERS: '3' }).databasePoolSize).toBe(30);
    expect(loadConfig({ WORKERS: '2', DATABASE_POOL_SIZE: '10' }).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: ' 40 ' }).databasePoolSize).toBe(40);
  });

  it('logs JSON lines in production even in a terminal, pretty lines in a terminal otherwise', () => {
    const wasTty = process.stdout.isTTY;
    process.stdout.isTTY = true;
    try {
      expect(loadConfig({ NODE_ENV: 'production' }).logFormat).toBe('json');
      expect(loadConfig({}).logFormat).toBe('pretty');
      expect(loadConfig({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    } finally {
      process.stdout.isTTY = wasTty;
    }
  });

  it('derives the default issuer from PORT and strips a trailing slash from ISSUER', () => {
    expect(loadConfig({ PORT: '8080' }).issuer).toBe('http://localhost:8080');
    expect(loadConfig({ ISSUER: 'https://as.example/tenant/' }).issuer).toBe('https://as.example/tenant');
  });

  it.each([
    ['TOKEN_SIGNING_ALG', { TOKEN_SIGNING_ALG: 'HS256' }],
    ['ACCESS_TOKEN_TTL', { ACCESS_TOKEN_TTL: 'soon' }],
    ['ACCESS_TOKEN_TTL', { ACCESS_TOKEN_TTL: '0' }],
    ['PORT', { PORT: 'not-a-port' }],
    ['PORT', { PORT: '70000' }],
    ['ADMIN_PORT', { ADMIN_PORT: '-1' }],
    ['ISSUER', { ISSUER: 'not a url' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['LOG_FORMAT', { LOG_FORMAT: 'xml' }],
    ['ISSUER', { ISSUER: 'https://as.example/?tenant=1' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'everyone' }],
    ['ADMIN_PORT', { PORT: '4000', ADMIN_PORT: '4000' }],
    ['TOKEN_SIGNING_ALG', { TOKEN_SIGNING_ALG: 'Ed25519' }],
    ['DPOP_NONCE', { DPOP_NONCE: 'yes' }],
    ['JWKS_URI_ALLOW_HTTP', { JWKS_URI_ALLOW_HTTP: '1' }],
    ['CLIENT_ASSERTION_AUDIENCE', { CLIENT_ASSERTION_AUDIENCE: 'token-endpoint' }],
    ['WORKERS', { WORKERS: 'many' }],
    ['WORKERS', { WORKERS: '0' }],
    ['WORKERS', { WORKERS: '1000' }],
    ['WORKERS', { WORKERS: '-2' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: 'plenty' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '4' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '-10' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '20000' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '9', WORKERS: '2' }],
  ])('refuses a bad %s with one line naming it', (variable, environment) => {
    let error: unknown;
    try {
      loadConfig(environment);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain(variable);
    expect((error as Error).message).not.toContain('\n');
  });

  it('never echoes the value of DATABASE_URL', () => {
    const load = () => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db' });
    expect(load).toThrow();
    expect(load).not.toThrow('hunter2');
  });

  it('reads TRUST_PROXY as a hop count or a list', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toEqual(['loopback', '10.0.0.0/8']);
  });

  it('keeps TRUST_PROXY off the admin listener: ADMIN_TRUST_PROXY names its own proxies, in the same syntax', () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).adminTrustProxy).toBe(false);
    expect(loadConfig({ ADMIN_TRUST_PROXY: 'loopback, 10.0.0.0/8' })).toMatchObject({ adminTrustProxy: ['loopback', '10.0.0.0/8'], trustProxy: false });
    expect(loadConfig({ ADMIN_TRUST_PROXY: '2' }).adminTrustProxy).toBe(2);
    expect(() => loadConfig({ ADMIN_TRUST_PROXY: 'the proxy' })).toThrow(/^ADMIN_TRUST_PROXY must be a hop count or a comma-separated list/);
  });

  it('binds the public listener to every interface unless HOST names one, and the admin listener to 127.0.0.1 with the embedded database, else 0.0.0.0', () => {
    expect(loadConfig({})).toMatchObject({ host: undefined, adminHost: '127.0.0.1' });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).adminHost).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '127.0.0.2', ADMIN_HOST: '::1' })).toMatchObject({ host: '127.0.0.2', adminHost: '::1' });
    expect(loadConfig({ ADMIN_HOST: '[::]' }).adminHost).toBe('::');
  });

  it.each([
    ['HOST', 'localhost'],
    ['HOST', '10.0.0.256'],
    ['ADMIN_HOST', 'admin.example'],
    ['ADMIN_HOST', '127.0.0.1:3001'],
  ])('refuses %s=%s with one line naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable} must be the IPv4 or IPv6 address of an interface`));
  });
});
