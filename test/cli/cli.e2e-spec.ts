import request from 'supertest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { basic } from '../support/factories.js';
import { consentWorld, enrolDataSource } from '../support/consent.js';
import { eventually, runCli } from '../support/processes.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { bodyOf, parsedAs, type TokenBody, type ExplainVerdict, type JwksBody, type CliClientJson } from '../support/bodies.js';

let server: TestApp;
const environment = () => ({ DATABASE_URL: testDatabaseUrl() });
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

function askToken(clientId: string, secret: string) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(clientId, secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read' });
}

async function createWithCli(clientId: string, extra: string[] = []): Promise<string> {
  const result = await runCli(
    ['client', 'create', '--client-id', clientId, '--name', 'CLI client', '--scopes', 'read uma_protection', '--json', ...extra],
    environment(),
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return parsedAs<CliClientJson>(result.stdout).client_secret;
}

describe('cli client create', () => {
  it('prints the id and a generated secret as one JSON line, and the client gets tokens', async () => {
    const clientId = uniqueId('cli');
    const result = await runCli(['client', 'create', '--client-id', clientId, '--name', 'CLI', '--scopes', 'read', '--json'], environment());
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const printed = parsedAs<CliClientJson>(result.stdout);
    expect(Object.keys(printed)).toEqual(['client_id', 'client_secret']);
    expect(printed.client_id).toBe(clientId);
    expect(printed.client_secret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect((await askToken(clientId, printed.client_secret)).status).toBe(200);
  });

  it('prints the credentials for a human without --json', async () => {
    const clientId = uniqueId('human');
    const result = await runCli(['client', 'create', '--client-id', clientId, '--name', 'Human', '--scopes', 'read'], environment());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(clientId);
    expect(result.stdout).toMatch(/client_secret:\s+\S{43}/);
  });

  it('registers everything it is given, storing the secret only as a hash', async () => {
    const clientId = uniqueId('full');
    const secret = 'an operator chosen secret!';
    await createWithCli(clientId, [
      '--auth-method',
      'client_secret_post',
      '--grant-types',
      'client_credentials refresh_token',
      '--redirect-uri',
      'https://app.example/callback',
      '--redirect-uri',
      'https://app.example/other',
      '--secret',
      secret,
    ]);
    const [row]: ({ client_secret_hash: string } & Record<string, unknown>)[] = await server.dataSource.query(
      `SELECT m.*, c.client_name FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1`,
      [clientId],
    );
    expect(row).toMatchObject({
      client_authentication_type: 'client_secret_post',
      client_type: 'CONFIDENTIAL',
      grant_types: 'client_credentials refresh_token',
      allowed_scopes: 'read uma_protection',
    });
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.client_secret_hash).toMatch(/^scrypt\$/);
    const uris: { uri: string }[] = await server.dataSource.query(
      'SELECT r.uri FROM redirect_uri r JOIN client c ON c.id = r.client_id WHERE c.client_id = $1 ORDER BY r.uri',
      [clientId],
    );
    expect(uris.map((uri) => uri.uri)).toEqual(['https://app.example/callback', 'https://app.example/other']);
  });

  it.each([
    ['a taken client id', (id: string) => ['client', 'create', '--client-id', id, '--name', 'x', '--scopes', 'read'], 1, /already exists/],
    ['a missing --scopes', (id: string) => ['client', 'create', '--client-id', id, '--name', 'x'], 2, /--scopes is required/],
    [
      'an unknown auth method',
      (id: string) => ['client', 'create', '--client-id', id, '--name', 'x', '--scopes', 'read', '--auth-method', 'client_secret_jwt'],
      1,
      /authentication method/,
    ],
    [
      'an unknown grant type',
      (id: string) => ['client', 'create', '--client-id', id, '--name', 'x', '--scopes', 'read', '--grant-types', 'password'],
      1,
      /grant type "password"/,
    ],
    ['an unknown option', (id: string) => ['client', 'create', '--client-id', id, '--bogus'], 2, /bogus/],
    ['an unknown command', () => ['client', 'delete', 'x'], 2, /unknown command/],
  ])('refuses %s with one line on stderr and a non-zero exit', async (_case, args, code, message) => {
    const taken = uniqueId('taken');
    await createWithCli(taken);
    const result = await runCli(args(taken), environment());
    expect(result.code).toBe(code);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('cli client rotate-secret', () => {
  it('issues a new secret; the old one stops working on a running server within a second', async () => {
    const clientId = uniqueId('rotate');
    const oldSecret = await createWithCli(clientId);
    expect((await askToken(clientId, oldSecret)).status).toBe(200); // now cached as verified
    const result = await runCli(['client', 'rotate-secret', clientId, '--json'], environment());
    expect(result.code).toBe(0);
    const newSecret = parsedAs<CliClientJson>(result.stdout).client_secret;
    expect(newSecret).not.toBe(oldSecret);
    const rotatedAt = Date.now();
    await eventually(async () => ((await askToken(clientId, oldSecret)).status === 401 ? true : undefined), 1_000);
    expect(Date.now() - rotatedAt).toBeLessThan(1_000);
    expect((await askToken(clientId, newSecret)).status).toBe(200);
  });

  it('refuses an unknown client id', async () => {
    const result = await runCli(['client', 'rotate-secret', 'no-such-client'], environment());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no client with id "no-such-client"/);
  });
});

describe('cli keys rotate', () => {
  it('publishes the new key in the JWKS at once and keeps signing with the old one until SIGNING_KEY_PUBLISH_AHEAD has passed', async () => {
    const clientId = uniqueId('ahead');
    const secret = await createWithCli(clientId);
    const oldKid = decodeProtectedHeader(bodyOf<TokenBody>(await askToken(clientId, secret)).access_token).kid;

    const result = await runCli(['keys', 'rotate'], environment());
    expect(result.code).toBe(0);
    const [, kid] = /signing key: (\S+)/.exec(result.stdout) ?? [];
    const [, signsFrom] = /signs new tokens from (\S+)/.exec(result.stdout) ?? [];
    // The default delay: 600 s.
    expect(Date.parse(signsFrom) - Date.now()).toBeGreaterThan(500_000);

    const kids = bodyOf<JwksBody>(await request(server.url).get('/oauth2/jwks')).keys.map((key) => key.kid);
    expect(kids).toEqual(expect.arrayContaining([kid, oldKid]));
    expect(decodeProtectedHeader(bodyOf<TokenBody>(await askToken(clientId, secret)).access_token).kid).toBe(oldKid);
  });

  it('with --now, puts a new key in the JWKS and on new tokens within a second, while old tokens still verify', async () => {
    const clientId = uniqueId('keys');
    const secret = await createWithCli(clientId);
    const before = bodyOf<TokenBody>(await askToken(clientId, secret)).access_token;
    const oldKid = decodeProtectedHeader(before).kid;

    const result = await runCli(['keys', 'rotate', '--now', '--json'], environment());
    expect(result.code).toBe(0);
    const { kid } = parsedAs<{ kid: string }>(result.stdout);
    expect(kid).not.toBe(oldKid);

    const after = await eventually(async () => {
      const token = bodyOf<TokenBody>(await askToken(clientId, secret)).access_token;
      return decodeProtectedHeader(token).kid === kid ? token : undefined;
    }, 1_000);
    const kids = bodyOf<JwksBody>(await request(server.url).get('/oauth2/jwks')).keys.map((key) => key.kid);
    expect(kids).toEqual(expect.arrayContaining([kid, oldKid]));
    const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`));
    await expect(jwtVerify(before, jwks)).resolves.toBeDefined();
    await expect(jwtVerify(after, jwks)).resolves.toBeDefined();
  });
});

describe('cli explain', () => {
  it('prints, with --json, the verdict GET /admin/explain gives', async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const scope = `uma_protection ${grant.definitionName}:read`;
    const result = await runCli(['explain', '--client-id', grant.clientId, '--scope', scope, '--resource', source.resourceUri, '--json'], environment());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = parsedAs<ExplainVerdict>(result.stdout);
    const served = await request(server.adminUrl)
      .get('/admin/explain')
      .query({ client: grant.clientId, scope, resource: source.resourceUri })
      .set('Authorization', server.adminToken);
    expect(printed).toEqual(served.body);
    expect(printed).toMatchObject({ granted: true, aud: source.resourceUri });
  });

  it('prints the first missing link for a person', async () => {
    const grant = await consentWorld(server);
    const result = await runCli(['explain', '--client-id', grant.clientId, '--scope', `${grant.definitionName}:write`], environment());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${grant.clientId} is refused a token`);
    expect(result.stdout).toContain('scope "write" is not bound');
  });

  it('fails with one line for an unknown client, and with the usage without --scope', async () => {
    const unknown = await runCli(['explain', '--client-id', 'nobody-here', '--scope', 'read'], environment());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toEqual(['error: no client has client_id "nobody-here"']);
    const usage = await runCli(['explain', '--client-id', 'nobody-here'], environment());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--scope is required');
  });
});
