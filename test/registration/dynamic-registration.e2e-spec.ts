/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment --
   RFC 7591/7592 answers are read member by member here (supertest types every body as any). */
import * as oidc from 'openid-client';
import request from 'supertest';
import { clientKey } from '../support/keys.js';
import { JwksServer } from '../support/jwks-server.js';
import { getAdmin, JSON_API } from '../support/admin.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let first: TestApp;
let second: TestApp;
const jwksServer = new JwksServer();
const insecure = { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' as const };

beforeAll(async () => {
  first = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true' });
  second = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true' });
  await jwksServer.start();
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.close(), second?.close(), jwksServer.stop()]);
});

/** An initial access token made over the admin interface; answers its id and the token shown once. */
async function createIat(attributes: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const response = await request(first.adminUrl)
    .post('/admin/initial-access-token')
    .set('Authorization', first.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'initial-access-token', attributes: { name: 'test', scopeCeiling: 'read write', ...attributes } } }));
  expect(response.status).toBe(201);
  return { id: response.body.data.id as string, token: response.body.data.meta.token as string };
}

function register(server: TestApp, token: string | undefined, body: unknown) {
  const call = request(server.url).post('/oauth2/register').set('Content-Type', 'application/json');
  if (token !== undefined) call.set('Authorization', `Bearer ${token}`);
  return call.send(typeof body === 'string' ? body : JSON.stringify(body));
}

const COUNTED = ['client', 'client_metadata', 'redirect_uri', 'client_registration', 'audit_event'];

async function counts(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of COUNTED) {
    const [{ count }] = await first.dataSource.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM "${table}"`);
    result[table] = count;
  }
  const uses = await first.dataSource.query<{ uses: number }[]>('SELECT coalesce(sum(uses), 0)::int AS uses FROM initial_access_token');
  result.iatUses = uses[0].uses;
  return result;
}

describe('registering with openid-client', () => {
  it('registers a client_secret_post client and gets a token with it', async () => {
    const iat = await createIat();
    const configuration = await oidc.dynamicClientRegistration(
      new URL(first.url),
      { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post', scope: 'read' },
      undefined,
      { initialAccessToken: iat.token, ...insecure },
    );
    expect(configuration.clientMetadata().client_id).toMatch(/^dcr-[A-Za-z0-9_-]{22}$/);
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(tokens.access_token).toBeTruthy();
  });

  it('registers a client_secret_basic client and gets a token with it', async () => {
    const iat = await createIat();
    const configuration = await oidc.dynamicClientRegistration(new URL(first.url), { scope: 'read write' }, undefined, {
      initialAccessToken: iat.token,
      ...insecure,
    });
    const metadata = configuration.clientMetadata();
    expect(metadata.token_endpoint_auth_method).toBe('client_secret_basic');
    const basic = new oidc.Configuration(configuration.serverMetadata(), metadata.client_id, undefined, oidc.ClientSecretBasic(metadata.client_secret));
    oidc.allowInsecureRequests(basic);
    const tokens = await oidc.clientCredentialsGrant(basic, { scope: 'write' });
    expect(tokens.scope).toBe('write');
  });

  it('registers a private_key_jwt client with jwks and gets a token with an assertion', async () => {
    const key = await clientKey('ES256');
    const iat = await createIat();
    const configuration = await oidc.dynamicClientRegistration(
      new URL(first.url),
      { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] }, scope: 'read' },
      oidc.PrivateKeyJwt(key.privateKey),
      { initialAccessToken: iat.token, ...insecure },
    );
    expect(configuration.clientMetadata().client_secret).toBeUndefined();
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(tokens.access_token).toBeTruthy();
  });

  it('registers a private_key_jwt client with jwks_uri (a SMART backend service) and gets a token with an assertion', async () => {
    const key = await clientKey('RS256');
    const jwksUri = jwksServer.serve(jwksServer.nextPath(), { keys: [key.jwk] });
    const iat = await createIat({ accessTokenLifetime: 300 });
    const configuration = await oidc.dynamicClientRegistration(
      new URL(first.url),
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri, grant_types: ['client_credentials'], scope: 'read' },
      oidc.PrivateKeyJwt(key.privateKey),
      { initialAccessToken: iat.token, ...insecure },
    );
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope: 'read' });
    expect(tokens.expires_in).toBe(300);
  });
});

describe('POST /oauth2/register', () => {
  it('answers 201 with every registered value, the secret and the registration access token, no-store and Location', async () => {
    const iat = await createIat();
    const response = await register(first, iat.token, {
      client_name: 'Ward 4 glucose gateway',
      scope: 'read',
      contacts: ['ops@ward4.example'],
      software_id: 'gw-7',
      software_version: '2.1.0',
      client_id: 'ignored',
      unknown_member: 'ignored',
    });
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    expect(response.headers.location).toBe(`${first.url}/oauth2/register/${response.body.client_id}`);
    expect(response.body).toEqual({
      client_id: expect.stringMatching(/^dcr-/),
      client_id_issued_at: expect.any(Number),
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
      registration_access_token: expect.any(String),
      registration_client_uri: response.headers.location,
      client_name: 'Ward 4 glucose gateway',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: 'read',
      contacts: ['ops@ward4.example'],
      software_id: 'gw-7',
      software_version: '2.1.0',
      dpop_bound_access_tokens: false,
      tls_client_certificate_bound_access_tokens: false,
    });
  });

  it('gives the ceiling as the default scope and the client_id as the default name', async () => {
    const iat = await createIat({ scopeCeiling: 'read write' });
    const response = await register(first, iat.token, {});
    expect(response.body.scope).toBe('read write');
    expect(response.body.client_name).toBe(response.body.client_id);
  });

  it('the registered client works on the other instance within a second', async () => {
    const iat = await createIat();
    const { body } = await register(first, iat.token, { token_endpoint_auth_method: 'client_secret_post', scope: 'read' });
    await eventually(async () => {
      const token = await request(second.url)
        .post('/oauth2/token')
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: body.client_id, client_secret: body.client_secret, scope: 'read' });
      return token.status === 200 ? true : undefined;
    }, 2_000);
  });

  it('is listed by the admin interface as registered dynamically, with its initial access token, and audited as dcr:iat', async () => {
    const iat = await createIat();
    const { body } = await register(first, iat.token, { software_id: 'gw-8' });
    const listed = await getAdmin(first, `/admin/uma-client?filter[registeredVia]=dcr&filter[clientId]=${body.client_id}`);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].attributes).toMatchObject({ registeredVia: 'dcr', softwareId: 'gw-8', registrationManagement: true });
    expect(listed.body.data[0].relationships.initialAccessToken.data).toEqual({ type: 'initial-access-token', id: iat.id });
    const byIat = await getAdmin(first, `/admin/uma-client?filter[initialAccessToken]=${iat.id}`);
    const byIatClients = byIat.body.data as { attributes: { clientId: string } }[];
    expect(byIatClients.map((client) => client.attributes.clientId)).toEqual([body.client_id]);
    const [event] = await first.dataSource.query<{ actor: string; after: Record<string, unknown> }[]>(
      `SELECT actor, after FROM audit_event WHERE record_type = 'uma-client' AND after->>'clientId' = $1`,
      [body.client_id],
    );
    expect(event.actor).toBe(`dcr:iat:${iat.id}@127.0.0.1`);
    expect(JSON.stringify(event)).not.toContain(body.client_secret);
    expect(JSON.stringify(event)).not.toContain(iat.token);
  });

  it('counts uses of the initial access token and answers 401 once it is used up', async () => {
    const iat = await createIat({ maxUses: 1 });
    expect((await register(first, iat.token, {})).status).toBe(201);
    const spent = await register(second, iat.token, {});
    expect(spent.status).toBe(401);
    expect(spent.body.error).toBe('invalid_token');
    expect(spent.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('never exceeds maxUses with two instances registering at once', async () => {
    const iat = await createIat({ maxUses: 3 });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => register(index % 2 ? first : second, iat.token, {})));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(5);
    const [row] = await first.dataSource.query<{ uses: number }[]>('SELECT uses FROM initial_access_token WHERE id = $1', [iat.id]);
    expect(row.uses).toBe(3);
  });

  it('registers nothing with an initial access token removed on the other instance, and keeps its clients', async () => {
    const iat = await createIat({ maxUses: 5 });
    const { body } = await register(first, iat.token, { scope: 'read', token_endpoint_auth_method: 'client_secret_post' });
    const removed = await request(second.adminUrl).delete(`/admin/initial-access-token/${iat.id}`).set('Authorization', second.adminToken);
    expect(removed.status).toBe(204);
    expect((await register(first, iat.token, {})).status).toBe(401);
    const token = await request(first.url)
      .post('/oauth2/token')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: body.client_id, client_secret: body.client_secret, scope: 'read' });
    expect(token.status).toBe(200);
    const client = await getAdmin(first, `/admin/uma-client?filter[clientId]=${body.client_id}`);
    expect(client.body.data[0].relationships.initialAccessToken.data).toBeNull();
  });

  it('registers nothing with an expired initial access token', async () => {
    const iat = await createIat();
    await first.dataSource.query(`UPDATE initial_access_token SET expires_at = now() - interval '1 second' WHERE id = $1`, [iat.id]);
    expect((await register(second, iat.token, {})).status).toBe(401);
  });
});

describe('refusals of POST /oauth2/register store nothing and use nothing', () => {
  let iat: { id: string; token: string };
  beforeAll(async () => {
    iat = await createIat({ maxUses: 100, authMethods: 'client_secret_basic private_key_jwt', grantTypes: 'client_credentials refresh_token' });
  });

  const cases: [string, () => { token?: string; body: unknown; contentType?: string }, number, string][] = [
    ['no Authorization header', () => ({ body: {} }), 401, 'invalid_token'],
    ['an unknown initial access token', () => ({ token: 'A'.repeat(43), body: {} }), 401, 'invalid_token'],
    ['a body that is not an object', () => ({ token: iat.token, body: '[1]' }), 400, 'invalid_client_metadata'],
    ['a body that is not JSON', () => ({ token: iat.token, body: '{"scope":' }), 400, 'invalid_client_metadata'],
    ['another media type', () => ({ token: iat.token, body: 'scope=read', contentType: 'application/x-www-form-urlencoded' }), 400, 'invalid_client_metadata'],
    ['a NUL character', () => ({ token: iat.token, body: '{"client_name":"a\\u0000b"}' }), 400, 'invalid_client_metadata'],
    ['a wrong JSON type', () => ({ token: iat.token, body: { contacts: 'ops@example' } }), 400, 'invalid_client_metadata'],
    ['an over-long client_name', () => ({ token: iat.token, body: { client_name: 'x'.repeat(256) } }), 400, 'invalid_client_metadata'],
    ['a scope outside the ceiling', () => ({ token: iat.token, body: { scope: 'read admin' } }), 400, 'invalid_client_metadata'],
    [
      'a grant type outside the ceiling',
      () => ({ token: iat.token, body: { grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:uma-ticket'] } }),
      400,
      'invalid_client_metadata',
    ],
    ['grant types without client_credentials', () => ({ token: iat.token, body: { grant_types: ['refresh_token'] } }), 400, 'invalid_client_metadata'],
    [
      'an auth method outside the ceiling',
      () => ({ token: iat.token, body: { token_endpoint_auth_method: 'client_secret_post' } }),
      400,
      'invalid_client_metadata',
    ],
    [
      'tls_client_auth while mutual TLS is off',
      () => ({ token: iat.token, body: { token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_san_dns: 'a.example' } }),
      400,
      'invalid_client_metadata',
    ],
    [
      'certificate-bound tokens while mutual TLS is off',
      () => ({ token: iat.token, body: { tls_client_certificate_bound_access_tokens: true } }),
      400,
      'invalid_client_metadata',
    ],
    [
      'a tls_client_auth member for a secret client',
      () => ({ token: iat.token, body: { tls_client_auth_san_dns: 'a.example' } }),
      400,
      'invalid_client_metadata',
    ],
    ['response types', () => ({ token: iat.token, body: { response_types: ['code'] } }), 400, 'invalid_client_metadata'],
    ['private_key_jwt without keys', () => ({ token: iat.token, body: { token_endpoint_auth_method: 'private_key_jwt' } }), 400, 'invalid_client_metadata'],
    [
      'both jwks and jwks_uri',
      () => ({ token: iat.token, body: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] }, jwks_uri: 'https://a.example/jwks' } }),
      400,
      'invalid_client_metadata',
    ],
    ['keys for a secret client', () => ({ token: iat.token, body: { jwks_uri: 'https://a.example/jwks' } }), 400, 'invalid_client_metadata'],
    [
      'a JWKS with a private key',
      () => ({ token: iat.token, body: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'oct', k: 'AAAA' }] } } }),
      400,
      'invalid_client_metadata',
    ],
    [
      'both bindings',
      () => ({ token: iat.token, body: { dpop_bound_access_tokens: true, tls_client_certificate_bound_access_tokens: true } }),
      400,
      'invalid_client_metadata',
    ],
    ['an http redirect URI', () => ({ token: iat.token, body: { redirect_uris: ['http://a.example/cb'] } }), 400, 'invalid_redirect_uri'],
    ['a redirect URI with a fragment', () => ({ token: iat.token, body: { redirect_uris: ['https://a.example/cb#x'] } }), 400, 'invalid_redirect_uri'],
    [
      'a software statement without trusted publishers',
      () => ({ token: iat.token, body: { software_statement: 'a.b.c' } }),
      400,
      'unapproved_software_statement',
    ],
    ['a body over 64 KiB', () => ({ token: iat.token, body: { client_name: 'x', padding: 'y'.repeat(70_000) } }), 413, 'invalid_client_metadata'],
  ];

  it.each(cases)('%s', async (_name, make, status, error) => {
    const before = await counts();
    const { token, body, contentType } = make();
    const call = request(first.url)
      .post('/oauth2/register')
      .set('Content-Type', contentType ?? 'application/json');
    if (token !== undefined) call.set('Authorization', `Bearer ${token}`);
    const response = await call.send(typeof body === 'string' ? body : JSON.stringify(body));
    expect(response.status).toBe(status);
    expect(response.body.error).toBe(error);
    expect(response.body.error_description).toBeTruthy();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(await counts()).toEqual(before);
  });

  it('challenges a request without a bearer token with the realm', async () => {
    const response = await register(first, undefined, {});
    expect(response.headers['www-authenticate']).toBe('Bearer realm="oauth2"');
  });

  it('names the member that holds a NUL character', async () => {
    const response = await register(first, iat.token, '{"client_name":"a\\u0000b"}');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_client_metadata', error_description: 'client_name: must not contain a NUL character' });
  });

  it('names the member and the ceiling in the description', async () => {
    const response = await register(first, iat.token, { scope: 'write admin' });
    expect(response.body.error_description).toBe("scope: admin is outside this initial access token's ceiling");
  });

  it('answers 405 with Allow to other methods', async () => {
    const response = await request(first.url).get('/oauth2/register');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });
});

describe('RFC 7592 management', () => {
  async function registered(body: Record<string, unknown> = {}) {
    const iat = await createIat({ scopeCeiling: 'read write' });
    const response = await register(first, iat.token, { scope: 'read write', token_endpoint_auth_method: 'client_secret_post', ...body });
    expect(response.status).toBe(201);
    return response.body as Record<string, string>;
  }
  const manage = (server: TestApp, clientId: string, token?: string) => {
    const path = `/oauth2/register/${clientId}`;
    const withToken = <T extends request.Test>(call: T) => (token === undefined ? call : call.set('Authorization', `Bearer ${token}`));
    return {
      get: () => withToken(request(server.url).get(path)),
      put: (body: unknown) => withToken(request(server.url).put(path).set('Content-Type', 'application/json')).send(JSON.stringify(body)),
      delete: () => withToken(request(server.url).delete(path)),
    };
  };

  it('reads the registration on the other instance, without the secret', async () => {
    const client = await registered();
    const response = await manage(second, client.client_id, client.registration_access_token).get();
    expect(response.status).toBe(200);
    expect(response.body.client_id).toBe(client.client_id);
    expect(response.body.client_secret).toBeUndefined();
    expect(response.body.scope).toBe('read write');
  });

  it('updates on the other instance, replacing the registration access token', async () => {
    const client = await registered();
    const updated = await manage(second, client.client_id, client.registration_access_token).put({
      client_id: client.client_id,
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'read',
      client_name: 'renamed',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ scope: 'read', client_name: 'renamed' });
    expect(updated.body.registration_access_token).not.toBe(client.registration_access_token);
    expect((await manage(first, client.client_id, client.registration_access_token).get()).status).toBe(401);
    expect((await manage(first, client.client_id, updated.body.registration_access_token).get()).status).toBe(200);
    const [event] = await first.dataSource.query<{ actor: string }[]>(
      `SELECT actor FROM audit_event WHERE record_type = 'uma-client' AND operation = 'replace' AND after->>'clientId' = $1`,
      [client.client_id],
    );
    expect(event.actor).toBe(`dcr:rat:${client.client_id}@127.0.0.1`);
  });

  it('refuses an update that changes the method, sends server members or a scope beyond the recorded ceiling, changing nothing', async () => {
    const client = await registered();
    const handle = manage(first, client.client_id, client.registration_access_token);
    const base = { client_id: client.client_id, token_endpoint_auth_method: 'client_secret_post' };
    for (const body of [
      { ...base, token_endpoint_auth_method: 'client_secret_basic' },
      { ...base, registration_access_token: 'x' },
      { ...base, scope: 'admin' },
      { ...base, client_id: 'other' },
      { ...base, client_secret: 'not-the-current-secret' },
    ]) {
      const response = await handle.put(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_client_metadata');
    }
    expect((await handle.get()).body.scope).toBe('read write');
  });

  it('deletes on the other instance: the secret and the registration access token stop working', async () => {
    const client = await registered();
    const deleted = await manage(second, client.client_id, client.registration_access_token).delete();
    expect(deleted.status).toBe(204);
    await eventually(async () => {
      const token = await request(first.url)
        .post('/oauth2/token')
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'read' });
      return token.status === 401 ? true : undefined;
    }, 2_000);
    expect((await manage(first, client.client_id, client.registration_access_token).get()).status).toBe(401);
    const [event] = await first.dataSource.query<{ actor: string }[]>(
      `SELECT actor FROM audit_event WHERE record_type = 'uma-client' AND operation = 'remove' AND before->>'clientId' = $1`,
      [client.client_id],
    );
    expect(event.actor).toBe(`dcr:rat:${client.client_id}@127.0.0.1`);
  });

  /** An administrator's PATCH of the client's attributes (as the console and the CLI make it). */
  async function administratorSets(clientId: string, attributes: Record<string, unknown>): Promise<void> {
    const [{ id }] = await first.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [clientId]);
    const response = await request(first.adminUrl)
      .patch(`/admin/uma-client/${id}`)
      .set('Authorization', first.adminToken)
      .set('Content-Type', JSON_API)
      .send(JSON.stringify({ data: { type: 'uma-client', id: String(id), attributes } }));
    expect(response.status).toBe(200);
  }

  async function stored(clientId: string) {
    const [row] = await first.dataSource.query<{ allowed_scopes: string; grant_types: string; dpop: boolean; lifetime: number | null }[]>(
      `SELECT m.allowed_scopes, m.grant_types, m.dpop_bound_access_tokens AS dpop, m.access_token_lifetime AS lifetime
         FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1`,
      [clientId],
    );
    return row;
  }

  it('refuses an update asking a scope beyond the allowedScopes an administrator narrowed, naming scope, and changes nothing', async () => {
    const client = await registered();
    await administratorSets(client.client_id, { allowedScopes: 'read' });
    const handle = manage(first, client.client_id, client.registration_access_token);
    const response = await handle.put({ client_id: client.client_id, token_endpoint_auth_method: 'client_secret_post', scope: 'read write' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_client_metadata');
    expect(response.body.error_description).toMatch(/^scope: write is outside the scopes an administrator set/);
    expect((await stored(client.client_id)).allowed_scopes).toBe('read');
    // The token was not used up: the next update within the ceiling goes through, and keeps the narrowed scope by default.
    const within = await handle.put({ client_id: client.client_id, token_endpoint_auth_method: 'client_secret_post', client_name: 'renamed' });
    expect(within.status).toBe(200);
    expect(within.body.scope).toBe('read');
  });

  it('refuses an update asking a grant type an administrator removed, naming grant_types', async () => {
    const iat = await createIat({ grantTypes: 'client_credentials refresh_token' });
    const created = await register(first, iat.token, {
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials', 'refresh_token'],
    });
    expect(created.status).toBe(201);
    await administratorSets(created.body.client_id, { grantTypes: 'client_credentials' });
    const response = await manage(first, created.body.client_id, created.body.registration_access_token).put({
      client_id: created.body.client_id,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials', 'refresh_token'],
    });
    expect(response.status).toBe(400);
    expect(response.body.error_description).toMatch(/^grant_types: refresh_token is outside the grant types an administrator set/);
    expect((await stored(created.body.client_id)).grant_types).toBe('client_credentials');
  });

  it('keeps DPoP binding an administrator required: an update turning it off is refused naming the member, one leaving it out keeps it', async () => {
    const client = await registered();
    await administratorSets(client.client_id, { dpopBoundAccessTokens: true });
    const handle = manage(first, client.client_id, client.registration_access_token);
    const off = await handle.put({ client_id: client.client_id, token_endpoint_auth_method: 'client_secret_post', dpop_bound_access_tokens: false });
    expect(off.status).toBe(400);
    expect(off.body.error_description).toMatch(/^dpop_bound_access_tokens: must stay true/);
    const omitted = await handle.put({ client_id: client.client_id, token_endpoint_auth_method: 'client_secret_post' });
    expect(omitted.status).toBe(200);
    expect(omitted.body.dpop_bound_access_tokens).toBe(true);
    expect((await stored(client.client_id)).dpop).toBe(true);
  });

  it("keeps the token lifetime an administrator set through the client's updates", async () => {
    const client = await registered();
    await administratorSets(client.client_id, { accessTokenLifetime: 600 });
    const updated = await manage(first, client.client_id, client.registration_access_token).put({
      client_id: client.client_id,
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(updated.status).toBe(200);
    expect((await stored(client.client_id)).lifetime).toBe(600);
  });

  it('lets a frozen client read but not update or delete', async () => {
    const client = await registered();
    const [{ id }] = await first.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [client.client_id]);
    const frozen = await request(first.adminUrl)
      .patch(`/admin/uma-client/${id}`)
      .set('Authorization', first.adminToken)
      .set('Content-Type', JSON_API)
      .send(JSON.stringify({ data: { type: 'uma-client', id: String(id), attributes: { registrationManagement: false } } }));
    expect(frozen.status).toBe(200);
    const handle = manage(first, client.client_id, client.registration_access_token);
    expect((await handle.get()).status).toBe(200);
    const put = await handle.put({ client_id: client.client_id, token_endpoint_auth_method: 'client_secret_post' });
    expect(put.status).toBe(403);
    expect(put.body.error).toBe('access_denied');
    expect((await handle.delete()).status).toBe(403);
  });

  it("answers 401 to no token, another client's token and an unknown client, never saying which", async () => {
    const one = await registered();
    const other = await registered();
    const none = await manage(first, one.client_id).get();
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="oauth2"');
    const crossed = await manage(first, one.client_id, other.registration_access_token).get();
    const unknown = await manage(first, 'dcr-unknown', one.registration_access_token).get();
    expect([crossed.status, unknown.status]).toEqual([401, 401]);
    expect(crossed.body).toEqual(unknown.body);
  });

  it('answers 405 with Allow to other methods', async () => {
    const response = await request(first.url).patch('/oauth2/register/dcr-x');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, PUT, DELETE');
  });
});

describe('discovery', () => {
  it('advertises registration_endpoint in the RFC 8414, UMA and SMART documents', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/uma2-configuration', '/.well-known/smart-configuration']) {
      const response = await request(first.url).get(path);
      expect(response.body.registration_endpoint).toBe(`${first.url}/oauth2/register`);
    }
  });

  it('does not answer on the admin listener', async () => {
    expect((await request(first.adminUrl).post('/oauth2/register').send({})).status).toBe(404);
  });
});

describe('initial-access-token over the admin interface', () => {
  it('shows the token once and stores only its hash', async () => {
    const iat = await createIat();
    const read = await getAdmin(first, `/admin/initial-access-token/${iat.id}`);
    expect(JSON.stringify(read.body)).not.toContain(iat.token);
    expect(read.body.data.attributes).toMatchObject({ name: 'test', scopeCeiling: 'read write', grantTypes: 'client_credentials', maxUses: 1, uses: 0 });
    const [row] = await first.dataSource.query<{ token_hash: string }[]>('SELECT token_hash FROM initial_access_token WHERE id = $1', [iat.id]);
    expect(row.token_hash).not.toBe(iat.token);
  });

  it.each([
    [{ maxUses: 0 }, 422, 'maxUses'],
    [{ maxUses: 100_001 }, 422, 'maxUses'],
    [{ expiresAt: new Date(Date.now() + 91 * 86_400_000).toISOString() }, 422, 'expiresAt'],
    [{ expiresAt: 'tomorrow' }, 422, 'expiresAt'],
    [{ grantTypes: 'refresh_token' }, 422, 'grantTypes'],
    [{ authMethods: 'tls_client_auth' }, 422, 'authMethods'],
    [{ accessTokenLifetime: 86_401 }, 422, 'accessTokenLifetime'],
    [{ uses: 3 }, 400, 'uses'],
    [{ scopeCeiling: undefined }, 422, 'scopeCeiling'],
    [{ name: undefined }, 422, 'name'],
  ])('refuses %j with %i naming the attribute', async (attributes, status, member) => {
    const response = await request(first.adminUrl)
      .post('/admin/initial-access-token')
      .set('Authorization', first.adminToken)
      .set('Content-Type', JSON_API)
      .send(JSON.stringify({ data: { type: 'initial-access-token', attributes: { name: 'bad', scopeCeiling: 'read', ...attributes } } }));
    expect(response.status).toBe(status);
    expect(response.body.errors[0].source.pointer).toBe(`/data/attributes/${member}`);
  });

  it('replaces only name, maxUses and expiresAt', async () => {
    const iat = await createIat();
    const patch = (attributes: Record<string, unknown>) =>
      request(first.adminUrl)
        .patch(`/admin/initial-access-token/${iat.id}`)
        .set('Authorization', first.adminToken)
        .set('Content-Type', JSON_API)
        .send(JSON.stringify({ data: { type: 'initial-access-token', id: iat.id, attributes } }));
    expect((await patch({ name: 'renamed', maxUses: 5 })).body.data.attributes).toMatchObject({ name: 'renamed', maxUses: 5 });
    expect((await patch({ scopeCeiling: 'write' })).status).toBe(400);
  });
});
