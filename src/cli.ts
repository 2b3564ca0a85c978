#!/usr/bin/env node
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import type { AppConfig } from './config/app-config.js';
import { ConfigurationError } from './config/configuration-error.js';
import { loadConfig } from './config/load-config.js';
import { ClientsModule } from './clients/clients.module.js';
import { ClientsService, type IssuedCredentials } from './clients/clients.service.js';
import { RegistrationError } from './clients/client-registration.js';
import { DatabaseModule } from './database/database.module.js';
import { ENTITIES } from './entities.js';
import { openDatabase } from './database/database-runtime.js';
import { KeyEncryption } from './keys/key-encryption.js';
import { SigningKeysService } from './keys/signing-keys.service.js';
import { TicketsModule } from './tickets/tickets.module.js';
import { AccessDecisions } from './tickets/access-decisions.js';
import { isPurposeOfUseCode } from './oauth/purpose-of-use.js';
import { verdictText } from './tickets/verdict-text.js';
import { cliActor } from './audit/audit-trail.js';
import { parseScope } from './oauth/scope.js';
import { OAuthError } from './oauth/oauth-error.js';
import { InitialAccessTokens } from './clients/initial-access-tokens.js';
import { InitialAccessTokenError } from './clients/initial-access-token-rules.js';
import { attributesOf, TrustCommunities } from './udap/trust-communities.js';
import { TrustCommunityError } from './udap/trust-community-rules.js';
import { DataSourceDelegations, DelegationError } from './tickets/data-source-delegations.js';

/** How pg_stat_activity names the CLI's sessions, apart from the server's `authorization-server`. */
const CLI_APPLICATION_NAME = 'authorization-server-cli';

const USAGE = `usage:
  cli client create --client-id ID --name NAME --scopes "a b" [--auth-method client_secret_basic|client_secret_post]
                    [--grant-types "client_credentials refresh_token urn:ietf:params:oauth:grant-type:uma-ticket"] [--redirect-uri URI]... [--secret S] [--json]
                    [--auth-method private_key_jwt --jwks-file F | --jwks-uri U] [--dpop-bound]
                    [--access-token-lifetime SECONDS] [--cert-bound]
                    [--auth-method tls_client_auth --tls-subject-dn DN | --tls-san-dns NAME | --tls-san-uri URI | --tls-san-ip IP | --tls-san-email ADDRESS] [--tls-issuer-dn DN]
                    [--auth-method self_signed_tls_client_auth --jwks-file F | --jwks-uri U]
  cli client rotate-secret ID [--json]
  cli keys rotate [--now]
  cli initial-access-token create --name N --scopes "a b" [--grant-types "client_credentials refresh_token"]
                    [--auth-methods "client_secret_basic private_key_jwt"] [--access-token-lifetime SECONDS]
                    [--max-uses N] [--expires-in SECONDS] [--json]
  cli initial-access-token revoke ID
  cli trust-community create --name N --community-uri U --anchor FILE... [--scopes "a b"] [--purposes "c d"]
                    [--revocation require|off] [--access-token-lifetime SECONDS]
                    [--server-certificate FILE --server-key FILE]
  cli trust-community list [--json]
  cli trust-community remove ID
  cli data-source delegate FROM TO [--scopes "definition:scope …"] [--json]
  cli explain --client-id ID --scope "a b" [--resource URI]... [--purpose-of-use CODE]... [--json]`;

/** A mistake in the command line: exit code 2 and the usage. */
class UsageError extends Error {}

/** A record the command names does not exist: exit code 1, one line. */
class NotFoundError extends Error {}

/** The operator's modules without HTTP: the same services and database the server uses. */
@Module({})
class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [DatabaseModule.forRoot(config, ENTITIES, CLI_APPLICATION_NAME), ClientsModule, TicketsModule],
      providers: [SigningKeysService, InitialAccessTokens, TrustCommunities],
    };
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'client-id': { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'auth-method': { type: 'string' },
      'grant-types': { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      secret: { type: 'string' },
      scope: { type: 'string' },
      resource: { type: 'string', multiple: true },
      'jwks-file': { type: 'string' },
      'jwks-uri': { type: 'string' },
      'dpop-bound': { type: 'boolean', default: false },
      'access-token-lifetime': { type: 'string' },
      'auth-methods': { type: 'string' },
      'max-uses': { type: 'string' },
      'expires-in': { type: 'string' },
      'tls-subject-dn': { type: 'string' },
      'tls-san-dns': { type: 'string' },
      'tls-san-uri': { type: 'string' },
      'tls-san-ip': { type: 'string' },
      'tls-san-email': { type: 'string' },
      'tls-issuer-dn': { type: 'string' },
      'cert-bound': { type: 'boolean', default: false },
      'community-uri': { type: 'string' },
      anchor: { type: 'string', multiple: true },
      'server-certificate': { type: 'string' },
      'server-key': { type: 'string' },
      purposes: { type: 'string' },
      'purpose-of-use': { type: 'string', multiple: true },
      revocation: { type: 'string' },
      json: { type: 'boolean', default: false },
      now: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const command = positionals.slice(0, 2).join(' ');
  const config = loadConfig(process.env, { forCli: true });
  const run = async (work: (app: INestApplicationContext) => Promise<void>) => {
    const database = await openDatabase(config);
    const app = await NestFactory.createApplicationContext(CliModule.forRoot({ ...config, databaseUrl: database.url }), { logger: false });
    try {
      await work(app);
    } finally {
      await app.close();
      await database.stop();
    }
  };
  switch (command) {
    case 'client create': {
      if (positionals.length !== 2) throw new UsageError('client create takes no positional arguments');
      const clientId = required(values['client-id'], '--client-id');
      const clientName = required(values.name, '--name');
      const allowedScopes = required(values.scopes, '--scopes');
      const jwksRaw = values['jwks-file'] === undefined ? undefined : readJwksFile(values['jwks-file']);
      const accessTokenLifetime = lifetimeOf(values['access-token-lifetime']);
      return run(async (app) => {
        const issued = await app.get(ClientsService).create(
          {
            clientId,
            clientName,
            allowedScopes,
            authenticationType: values['auth-method'],
            grantTypes: values['grant-types'],
            redirectUris: values['redirect-uri'],
            clientSecret: values.secret,
            jwksRaw,
            jwksUri: values['jwks-uri'],
            dpopBound: values['dpop-bound'],
            accessTokenLifetime,
            origin: { registeredVia: 'cli' },
            tlsClientAuthSubjectDn: values['tls-subject-dn'],
            tlsClientAuthSanDns: values['tls-san-dns'],
            tlsClientAuthSanUri: values['tls-san-uri'],
            tlsClientAuthSanIp: values['tls-san-ip'],
            tlsClientAuthSanEmail: values['tls-san-email'],
            tlsClientAuthIssuerDn: values['tls-issuer-dn'],
            certificateBound: values['cert-bound'],
          },
          { actor: cliActor() },
        );
        printCredentials(issued, values.json, values['auth-method']);
      });
    }
    case 'client rotate-secret': {
      if (positionals.length !== 3) throw new UsageError('client rotate-secret takes exactly one client id');
      return run(async (app) => printCredentials(await app.get(ClientsService).rotateSecret(positionals[2], { actor: cliActor() }), values.json));
    }
    case 'keys rotate': {
      if (positionals.length !== 2) throw new UsageError('keys rotate takes no arguments');
      return run(async (app) => {
        const { kid, signsFrom } = await app.get(SigningKeysService).rotate(undefined, cliActor(), { now: values.now });
        const at = signsFrom.toISOString().replace(/\.\d{3}Z$/, 'Z');
        process.stdout.write(
          values.json
            ? JSON.stringify({ kid, alg: config.tokenSigningAlg, signs_from: at }) + '\n'
            : `new ${config.tokenSigningAlg} signing key: ${kid}\npublished in the JWKS now; signs new tokens from ${at}${values.now ? ' (at once)' : ''}\n`,
        );
      });
    }
    case 'initial-access-token create': {
      if (positionals.length !== 2) throw new UsageError('initial-access-token create takes no positional arguments');
      const name = required(values.name, '--name');
      const scopes = required(values.scopes, '--scopes');
      const accessTokenLifetime = lifetimeOf(values['access-token-lifetime']);
      const maxUses = wholeNumberOf(values['max-uses'], '--max-uses');
      const expiresInSeconds = wholeNumberOf(values['expires-in'], '--expires-in');
      return run(async (app) => {
        const issued = await app
          .get(InitialAccessTokens)
          .create(
            { name, scopes, grantTypes: values['grant-types'], authMethods: values['auth-methods'], accessTokenLifetime, maxUses, expiresInSeconds },
            cliActor(),
          );
        process.stdout.write(
          values.json
            ? JSON.stringify({ id: String(issued.id), token: issued.token, expires_at: issued.expiresAt.toISOString() }) + '\n'
            : `id:         ${issued.id}\ntoken:      ${issued.token}\nexpires at: ${issued.expiresAt.toISOString()}\n` +
                'The token is shown only this once and stored only as a hash: hand it to the client now.\n',
        );
      });
    }
    case 'initial-access-token revoke': {
      if (positionals.length !== 3 || !/^\d{1,10}$/.test(positionals[2])) throw new UsageError('initial-access-token revoke takes exactly one numeric id');
      return run(async (app) => {
        if (!(await app.get(InitialAccessTokens).revoke(Number(positionals[2]), cliActor()))) {
          throw new NotFoundError(`no initial access token with id ${positionals[2]}`);
        }
        process.stdout.write(`initial access token ${positionals[2]} revoked: it registers nothing more; its clients stay\n`);
      });
    }
    case 'trust-community create': {
      if (positionals.length !== 2) throw new UsageError('trust-community create takes no positional arguments');
      const name = required(values.name, '--name');
      const communityUri = required(values['community-uri'], '--community-uri');
      if (!values.anchor || values.anchor.length === 0) throw new UsageError('--anchor is required');
      const anchors = values.anchor.flatMap(readAnchorFile);
      const purposesOfUse = values.purposes === undefined ? undefined : values.purposes.split(/\s+/).filter(Boolean);
      const accessTokenLifetime = lifetimeOf(values['access-token-lifetime']);
      const serverCertificate = values['server-certificate'] === undefined ? undefined : readTextFile(values['server-certificate'], '--server-certificate');
      const serverKey = values['server-key'] === undefined ? undefined : readTextFile(values['server-key'], '--server-key');
      const keyEncryption = new KeyEncryption(config.keyEncryptionSecret);
      return run(async (app) => {
        const id = await app.get(TrustCommunities).create(
          {
            name,
            communityUri,
            anchors,
            scopes: values.scopes,
            purposesOfUse,
            revocationCheck: values.revocation,
            accessTokenLifetime,
            serverCertificate,
            serverKey,
          },
          cliActor(),
          { issuer: config.issuer, seal: (pem) => keyEncryption.seal(pem) },
        );
        process.stdout.write(values.json ? JSON.stringify({ id: String(id) }) + '\n' : `trust community ${id} created: ${communityUri}\n`);
      });
    }
    case 'trust-community list': {
      if (positionals.length !== 2) throw new UsageError('trust-community list takes no positional arguments');
      return run(async (app) => {
        const rows = await app.get(TrustCommunities).list();
        if (values.json) {
          const listed = rows.map((row) => ({ id: String(row.id), ...attributesOf(row), clientCount: row.client_count }));
          process.stdout.write(JSON.stringify(listed) + '\n');
          return;
        }
        for (const row of rows) {
          const state = row.enabled ? 'enabled' : 'disabled';
          process.stdout.write(
            `${row.id}\t${row.community_uri}\t${row.name}\t${state}\t${row.anchors.length} anchor(s)\t${row.client_count} client(s)\tscopes: ${row.scope_ceiling}\n`,
          );
        }
      });
    }
    case 'trust-community remove': {
      if (positionals.length !== 3 || !/^\d{1,10}$/.test(positionals[2])) throw new UsageError('trust-community remove takes exactly one numeric id');
      return run(async (app) => {
        if (!(await app.get(TrustCommunities).remove(Number(positionals[2]), cliActor()))) {
          throw new NotFoundError(`no trust community with id ${positionals[2]}`);
        }
        process.stdout.write(`trust community ${positionals[2]} removed\n`);
      });
    }
    case 'data-source delegate': {
      if (positionals.length !== 4) throw new UsageError('data-source delegate takes two data sources: FROM TO (each an id or a resourceUri)');
      const [from, to] = positionals.slice(2);
      const scopes = values.scopes === undefined ? [] : values.scopes.split(' ').filter(Boolean);
      return run(async (app) => {
        const created = await app.get(DataSourceDelegations).create(from, to, scopes, cliActor());
        process.stdout.write(
          values.json
            ? JSON.stringify({ id: String(created.id) }) + '\n'
            : `delegation ${created.id}: data source ${created.from} may ask data source ${created.to} on a client's behalf, for ${scopes.length > 0 ? scopes.join(' ') : 'every scope it serves'}\n`,
        );
      });
    }
    case 'explain': {
      if (positionals.length !== 1) throw new UsageError('explain takes no positional arguments');
      const clientId = required(values['client-id'], '--client-id');
      const scopes = scopesOf(required(values.scope, '--scope'));
      const resources = (values.resource ?? []).filter((resource) => resource !== '');
      const purposesOfUse = values['purpose-of-use']?.filter((code) => code !== '');
      for (const code of purposesOfUse ?? []) {
        if (!isPurposeOfUseCode(code))
          throw new UsageError(`--purpose-of-use "${code}" is not a purpose-of-use code such as urn:oid:2.16.840.1.113883.5.8#TREAT`);
      }
      return run(async (app) => {
        const request = { scopes, resources, ...(purposesOfUse && purposesOfUse.length > 0 ? { purposesOfUse } : {}) };
        const decision = await app.get(AccessDecisions).explain(clientId, request);
        if (!decision) throw new NotFoundError(`no client has client_id "${clientId}"`);
        process.stdout.write(values.json ? JSON.stringify(decision.verdict) + '\n' : verdictText(decision.verdict));
      });
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** `--access-token-lifetime N`: whole seconds; the range (1 to 86400) is the registration's rule. */
function lifetimeOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError('--access-token-lifetime must be a whole number of seconds');
  return Number(value);
}

function wholeNumberOf(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${flag} must be a whole number`);
  return Number(value);
}

function scopesOf(value: string): string[] {
  try {
    return parseScope(value);
  } catch (error) {
    if (error instanceof OAuthError) throw new UsageError(`--scope: ${error.description}`);
    throw error;
  }
}

function readJwksFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--jwks-file: cannot read ${file} (${(error as { code?: string }).code ?? 'unreadable'})`);
  }
}

/** `--server-certificate FILE`, `--server-key FILE`: the file's text (the rules check it). */
function readTextFile(file: string, option: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${option}: cannot read ${file} (${(error as { code?: string }).code ?? 'unreadable'})`);
  }
}

/** `--anchor FILE`: each PEM certificate in the file is one anchor (the rules check each). */
function readAnchorFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--anchor: cannot read ${file} (${(error as { code?: string }).code ?? 'unreadable'})`);
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  if (!certificates) throw new UsageError(`--anchor: ${file} holds no PEM certificate`);
  return certificates.map((pem) => pem + '\n');
}

function printCredentials(issued: IssuedCredentials, json: boolean, method = 'private_key_jwt'): void {
  if (issued.clientSecret === undefined) {
    // private_key_jwt and the certificate methods: the client holds its own keys, there is no secret to show.
    process.stdout.write(
      json ? JSON.stringify({ client_id: issued.clientId }) + '\n' : `client_id:     ${issued.clientId}\nauthenticates with ${method} (no secret)\n`,
    );
    return;
  }
  if (json) {
    process.stdout.write(JSON.stringify({ client_id: issued.clientId, client_secret: issued.clientSecret }) + '\n');
    return;
  }
  process.stdout.write(
    `client_id:     ${issued.clientId}\nclient_secret: ${issued.clientSecret}\n` +
      'The secret is shown only this once and stored only as a hash: keep it now.\n',
  );
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const known =
      error instanceof UsageError ||
      error instanceof RegistrationError ||
      error instanceof InitialAccessTokenError ||
      error instanceof TrustCommunityError ||
      error instanceof DelegationError ||
      error instanceof ConfigurationError ||
      error instanceof NotFoundError;
    const argumentError = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const usage = error instanceof UsageError || argumentError;
    const text = known || argumentError ? message : `cannot complete the command: ${message}`;
    process.stderr.write(`error: ${text}${usage ? ' (see --help)' : ''}\n`);
    process.exit(usage ? 2 : 1);
  },
);
