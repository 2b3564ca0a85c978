import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { calculateJwkThumbprint } from 'jose';
import { runCli } from '../support/processes.js';
import { ASSERTION_TYPE, assertion, claimsOf, clientKey, dpopProof } from '../support/keys.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../support/test-app.js';
import { bodyOf, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';

let server: TestApp;
const environment = () => ({ DATABASE_URL: testDatabaseUrl() });
const uniqueId = (prefix: string) => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
const folder = mkdtempSync(join(tmpdir(), 'jwks-'));

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

function jwksFile(content: unknown): string {
  const file = join(folder, `${uniqueId('jwks')}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('cli client create --auth-method private_key_jwt', () => {
  it('registers a DPoP-bound client from a JWKS file, prints no secret, and the client gets a bound token', async () => {
    const key = await clientKey('ES256');
    const clientId = uniqueId('cli-key');
    const result = await runCli(
      [
        'client',
        'create',
        '--client-id',
        clientId,
        '--name',
        'Key',
        '--scopes',
        'read',
        '--auth-method',
        'private_key_jwt',
        '--jwks-file',
        jwksFile({ keys: [key.jwk] }),
        '--dpop-bound',
        '--json',
      ],
      environment(),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ client_id: clientId });
    const form = { grant_type: 'client_credentials', scope: 'read', client_assertion_type: ASSERTION_TYPE };
    const unbound = await request(server.url)
      .post('/oauth2/token')
      .type('form')
      .send({ ...form, client_assertion: await assertion(key, clientId, server.url) });
    expect(bodyOf<OAuthErrorBody>(unbound).error).toBe('invalid_dpop_proof');
    const bound = await request(server.url)
      .post('/oauth2/token')
      .set('DPoP', await dpopProof(key, `${server.url}/oauth2/token`))
      .type('form')
      .send({ ...form, client_assertion: await assertion(key, clientId, server.url) });
    expect(bound.status).toBe(200);
    expect(claimsOf(bodyOf<TokenBody>(bound).access_token).cnf).toEqual({ jkt: await calculateJwkThumbprint(key.jwk) });
  });

  it('refuses a JWKS file holding a private key with one line on stderr', async () => {
    const key = await clientKey('ES256');
    const { exportJWK } = await import('jose');
    const result = await runCli(
      [
        'client',
        'create',
        '--client-id',
        uniqueId('cli-bad'),
        '--name',
        'Bad',
        '--scopes',
        'read',
        '--auth-method',
        'private_key_jwt',
        '--jwks-file',
        jwksFile({ keys: [await exportJWK(key.privateKey)] }),
      ],
      environment(),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: jwksRaw: key 0 has the private member "d"/);
  });

  it('refuses a private_key_jwt client without keys', async () => {
    const result = await runCli(
      ['client', 'create', '--client-id', uniqueId('cli-none'), '--name', 'None', '--scopes', 'read', '--auth-method', 'private_key_jwt'],
      environment(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/needs its public keys/);
  });

  it('refuses to rotate the secret of a private_key_jwt client', async () => {
    const clientId = uniqueId('cli-rotate');
    await runCli(
      [
        'client',
        'create',
        '--client-id',
        clientId,
        '--name',
        'Key',
        '--scopes',
        'read',
        '--auth-method',
        'private_key_jwt',
        '--jwks-uri',
        'https://client.example/jwks.json',
      ],
      environment(),
    );
    const result = await runCli(['client', 'rotate-secret', clientId], environment());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/private_key_jwt and has no secret to rotate/);
  });
});

describe('cli client create --access-token-lifetime', () => {
  it('registers a backend client whose tokens live 300 s', async () => {
    const key = await clientKey('RS384');
    const clientId = uniqueId('cli-backend');
    const result = await runCli(
      [
        'client',
        'create',
        '--client-id',
        clientId,
        '--name',
        'Backend',
        '--scopes',
        'read',
        '--auth-method',
        'private_key_jwt',
        '--jwks-file',
        jwksFile({ keys: [key.jwk] }),
        '--access-token-lifetime',
        '300',
        '--json',
      ],
      environment(),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const response = await request(server.url)
      .post('/oauth2/token')
      .type('form')
      .send({
        grant_type: 'client_credentials',
        scope: 'read',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(key, clientId, `${server.url}/oauth2/token`),
      });
    expect(response.status).toBe(200);
    expect(bodyOf<TokenBody>(response).expires_in).toBe(300);
  });

  it.each([
    ['0', 1, /accessTokenLifetime must be a whole number of seconds from 1 to 86400/],
    ['86401', 1, /from 1 to 86400/],
    ['soon', 2, /--access-token-lifetime must be a whole number/],
  ])('refuses %s with one line on stderr', async (value, code, message) => {
    const result = await runCli(
      ['client', 'create', '--client-id', uniqueId('cli-life'), '--name', 'L', '--scopes', 'read', '--access-token-lifetime', value],
      environment(),
    );
    expect(result.code).toBe(code);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
