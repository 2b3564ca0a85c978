import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import jwt from 'jsonwebtoken';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { consentWorld } from '../support/consent.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  bodyOf,
  type IntrospectionBody,
  type JsonApiDocument,
  type JsonApiResource,
  type OAuthErrorBody,
  type TokenBody,
  type RefreshableTokenBody,
} from '../support/bodies.js';

let server: TestApp;
let resourceServer: TestClient;

beforeAll(async () => {
  server = await startTestApp();
  resourceServer = await createClient(server.app, { allowedScopes: 'uma_protection' });
});

afterAll(() => server.close());

function post(target: TestApp, path: string, client: TestClient, form: Record<string, string>) {
  return request(target.url).post(path).set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send(form);
}
const tokenFor = async <T extends TokenBody = TokenBody>(client: TestClient, scope = 'read', target = server) =>
  bodyOf<T>(await post(target, '/oauth2/token', client, { grant_type: 'client_credentials', scope }));
const introspect = (token: string, target = server, caller = resourceServer) => post(target, '/oauth2/introspect', caller, { token });
const revoke = (client: TestClient, token: string, target = server) => post(target, '/oauth2/revoke', client, { token });

describe('POST /oauth2/introspect (RFC 7662)', () => {
  it('describes an active access token', async () => {
    const client = await createClient(server.app);
    const { access_token } = await tokenFor(client, 'read write');
    const response = await introspect(access_token);
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const claims = jwt.decode(access_token) as Record<string, unknown>;
    expect(response.body).toEqual({
      active: true,
      scope: 'read write',
      client_id: client.clientId,
      sub: client.clientId,
      aud: server.url,
      iss: server.url,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      token_type: 'Bearer',
    });
  });

  it('includes the permissions of a ticket-backed token', async () => {
    const grant = await consentWorld(server);
    const issued = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` });
    const response = await introspect(bodyOf<TokenBody>(issued).access_token);
    expect(bodyOf<IntrospectionBody>(response).permissions).toEqual([
      expect.objectContaining({ resource_id: grant.resourceId, resource_type: grant.definitionName, resource_scopes: ['read'], ticket_id: grant.ticketId }),
    ]);
  });

  it.each([
    ['a malformed token', 'not-a-jwt'],
    ['an unknown opaque token', 'x'.repeat(43)],
    [
      'a token signed by someone else',
      jwt.sign({ iss: 'http://evil', sub: 'c', client_id: 'c', jti: 'j', scope: 'read' }, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, {
        algorithm: 'RS256',
        header: { alg: 'RS256', typ: 'at+jwt', kid: 'evil' },
        expiresIn: 60,
      }),
    ],
  ])('answers {"active": false} for %s', async (_case, token) => {
    const response = await introspect(token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: false });
  });

  it('answers {"active": false} for an expired token', async () => {
    const shortLived = await startTestApp({ ACCESS_TOKEN_TTL: '1' });
    try {
      const client = await createClient(shortLived.app);
      const { access_token } = await tokenFor(client, 'read', shortLived);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await introspect(access_token, shortLived)).body).toEqual({ active: false });
    } finally {
      await shortLived.close();
    }
  });

  it('answers {"active": false} to a caller without the uma_protection scope for another client\'s token', async () => {
    const caller = await createClient(server.app, { allowedScopes: 'read' });
    const { access_token } = await tokenFor(await createClient(server.app));
    const response = await introspect(access_token, server, caller);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: false });
  });

  it('refuses an unauthenticated caller with 401 invalid_client', async () => {
    const response = await request(server.url).post('/oauth2/introspect').type('form').send({ token: 'x' });
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_client');
  });

  it('answers 400 invalid_request without a token parameter', async () => {
    expect(bodyOf<OAuthErrorBody>(await post(server, '/oauth2/introspect', resourceServer, {})).error).toBe('invalid_request');
  });
});

describe('POST /oauth2/revoke (RFC 7009)', () => {
  it('revokes an own access token: 200, then inactive at introspection', async () => {
    const client = await createClient(server.app);
    const { access_token } = await tokenFor(client);
    const response = await revoke(client, access_token);
    expect(response.status).toBe(200);
    expect((await introspect(access_token)).body).toEqual({ active: false });
  });

  it('answers 200 for an unknown token', async () => {
    const client = await createClient(server.app);
    expect((await revoke(client, 'never-issued')).status).toBe(200);
  });

  it("does not revoke another client's token", async () => {
    const owner = await createClient(server.app);
    const other = await createClient(server.app);
    const { access_token } = await tokenFor(owner);
    const response = await revoke(other, access_token);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('unauthorized_client');
    expect(bodyOf<IntrospectionBody>(await introspect(access_token)).active).toBe(true);
  });

  it('is seen by introspection on a second instance within a second', async () => {
    // Instances behind one load balancer share one ISSUER (docs/reference/configuration.md).
    const second = await startTestApp({ ISSUER: server.url });
    try {
      const client = await createClient(server.app);
      const { access_token } = await tokenFor(client);
      expect(bodyOf<IntrospectionBody>(await introspect(access_token, second)).active).toBe(true);
      await revoke(client, access_token);
      const revokedAt = Date.now();
      // The second instance learns of it through the change feed (docs/reference/token-endpoint.md#revocations-from-memory).
      await eventually(async () => (((await introspect(access_token, second)).body as IntrospectionBody).active === false ? true : undefined), 1_000, 20);
      expect(Date.now() - revokedAt).toBeLessThan(1_000);
      expect((await introspect(access_token, second)).body).toEqual({ active: false });
    } finally {
      await second.close();
    }
  });

  it("ends a deleted client's plain-scope tokens at introspection on a second instance within a second", async () => {
    const second = await startTestApp({ ISSUER: server.url });
    try {
      const client = await createClient(server.app);
      const { access_token } = await tokenFor(client);
      expect(bodyOf<IntrospectionBody>(await introspect(access_token, second)).active).toBe(true);
      const [{ id }] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [client.clientId]);
      const removed = await request(server.adminUrl).delete(`/admin/uma-client/${id}`).set('Authorization', server.adminToken);
      expect(removed.status).toBe(204);
      const removedAt = Date.now();
      await eventually(async () => (((await introspect(access_token, second)).body as IntrospectionBody).active === false ? true : undefined), 1_000, 20);
      expect(Date.now() - removedAt).toBeLessThan(1_000);
      // A client created again under the same id (a second later: iat counts whole seconds) does not bring the old tokens back.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await createClient(server.app, { clientId: client.clientId });
      expect((await introspect(access_token, second)).body).toEqual({ active: false });
      expect((await introspect(access_token)).body).toEqual({ active: false });
    } finally {
      await second.close();
    }
  });

  it('purges revocations of tokens that have expired', async () => {
    const { revokeTokens } = await import('../../src/revocation/revoked-tokens.js');
    await revokeTokens(server.dataSource, [{ jti: 'long-gone', clientId: 'c', expiresAt: new Date(Date.now() - 60_000), statusListId: null, statusIdx: null }]);
    await post(server, '/oauth2/revoke', resourceServer, { token: 'trigger' });
    const { TokenLifecycleService } = await import('../../src/tokens/token-lifecycle.service.js');
    await server.app.get(TokenLifecycleService).purge();
    expect(await server.dataSource.query(`SELECT 1 FROM revoked_token WHERE jti = 'long-gone'`)).toEqual([]);
  });
});

describe('refresh tokens', () => {
  let client: TestClient;

  beforeAll(async () => {
    client = await createClient(server.app, { grantTypes: 'client_credentials refresh_token', allowedScopes: 'read write uma_protection' });
  });

  const refresh = (refreshToken: string, extra: Record<string, string> = {}, as = client) =>
    post(server, '/oauth2/token', as, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });

  it('are issued with client credentials to a client registered for them, and stored only hashed', async () => {
    const issued = await tokenFor<RefreshableTokenBody>(client, 'read write');
    expect(issued.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await server.dataSource.query<{ token_hash: string }[]>('SELECT token_hash FROM refresh_token');
    expect(JSON.stringify(rows)).not.toContain(issued.refresh_token);
  });

  it('rotate: a refresh gives a new access token and a new refresh token', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client, 'read write');
    const response = await refresh(first.refresh_token);
    expect(response.status).toBe(200);
    const body = bodyOf<RefreshableTokenBody>(response);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read write', expires_in: 3600 });
    expect(body.refresh_token).not.toBe(first.refresh_token);
    expect(bodyOf<IntrospectionBody>(await introspect(body.access_token)).active).toBe(true);
  });

  it('may narrow the scope but not widen it', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client, 'read');
    expect(bodyOf<OAuthErrorBody>(await refresh(first.refresh_token, { scope: 'read write' })).error).toBe('invalid_scope');
    const second = await tokenFor<RefreshableTokenBody>(client, 'read write');
    expect(bodyOf<TokenBody>(await refresh(second.refresh_token, { scope: 'read' })).scope).toBe('read');
  });

  it('a refused wider scope leaves the refresh token usable', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client, 'read');
    expect(bodyOf<OAuthErrorBody>(await refresh(first.refresh_token, { scope: 'read write' })).error).toBe('invalid_scope');
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('a resource no data source answers to is invalid_target and leaves the refresh token usable', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client);
    const refused = await refresh(first.refresh_token, { resource: 'https://nowhere.example/api' });
    expect(refused.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('invalid_target');
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('reuse of a rotated refresh token is invalid_grant and revokes the whole family', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client);
    const rotated = await refresh(first.refresh_token);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(reuse).error).toBe('invalid_grant');
    const afterTheft = await refresh(bodyOf<RefreshableTokenBody>(rotated).refresh_token);
    expect(bodyOf<OAuthErrorBody>(afterTheft).error).toBe('invalid_grant');
  });

  it("is invalid_grant for another client's refresh token", async () => {
    const other = await createClient(server.app, { grantTypes: 'client_credentials refresh_token' });
    const first = await tokenFor<RefreshableTokenBody>(client);
    expect(bodyOf<OAuthErrorBody>(await refresh(first.refresh_token, {}, other)).error).toBe('invalid_grant');
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('is re-checked against the current allowed scopes', async () => {
    const narrowed = await createClient(server.app, { grantTypes: 'client_credentials refresh_token', allowedScopes: 'read write' });
    const first = await tokenFor<RefreshableTokenBody>(narrowed, 'read write');
    await server.dataSource.query(
      `UPDATE client_metadata SET allowed_scopes = 'read' FROM client WHERE client.metadata_id = client_metadata.id AND client.client_id = $1`,
      [narrowed.clientId],
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const response = await refresh(first.refresh_token, {}, narrowed);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
  });

  it('is re-checked against the current consent tickets', async () => {
    const grant = await consentWorld(server, { grantTypes: 'client_credentials refresh_token' });
    const holder = { clientId: grant.clientId, clientSecret: grant.secret };
    const first = await tokenFor<RefreshableTokenBody>(holder, `${grant.definitionName}:read`);
    expect(first.refresh_token).toBeDefined();
    await request(server.adminUrl)
      .patch('/admin')
      .set('Authorization', server.adminToken)
      .set('Content-Type', 'application/vnd.api+json; ext=jsonpatch')
      .send(JSON.stringify([{ op: 'remove', path: `/requested-resources-capability-tickets/${grant.combination}` }]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const response = await refresh(first.refresh_token, {}, holder);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
  });

  it('can be revoked, after which it is refused', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client);
    expect((await revoke(client, first.refresh_token)).status).toBe(200);
    expect(bodyOf<OAuthErrorBody>(await refresh(first.refresh_token)).error).toBe('invalid_grant');
  });

  it('shows at introspection as a refresh token while unused', async () => {
    const first = await tokenFor<RefreshableTokenBody>(client);
    const response = await introspect(first.refresh_token, server, client);
    expect(response.body).toMatchObject({ active: true, token_type: 'refresh_token', client_id: client.clientId, scope: 'read' });
  });
});

describe('key rotation through the admin interface', () => {
  it('publishes a new key that signs new tokens, while tokens signed before still verify', async () => {
    const client = await createClient(server.app);
    const before = (await tokenFor(client)).access_token;
    const rotation = await request(server.adminUrl).post('/admin/keys/rotate?now=true').set('Authorization', server.adminToken);
    expect(rotation.status).toBe(201);
    const key = bodyOf<JsonApiDocument<JsonApiResource>>(rotation).data;
    const kid = key.id;
    expect(key.attributes.d).toBeUndefined();
    const after = (await tokenFor(client)).access_token;
    expect(decodeProtectedHeader(after).kid).toBe(kid);
    expect(decodeProtectedHeader(before).kid).not.toBe(kid);
    const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`));
    await expect(jwtVerify(before, jwks)).resolves.toBeDefined();
    await expect(jwtVerify(after, jwks)).resolves.toBeDefined();
    expect(bodyOf<IntrospectionBody>(await introspect(before)).active).toBe(true);
    const audit = await server.dataSource.query<{ operation: string }[]>(
      `SELECT operation FROM audit_event WHERE record_type = 'signing-key' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit).toEqual([{ operation: 'rotate' }]);
  });
});
