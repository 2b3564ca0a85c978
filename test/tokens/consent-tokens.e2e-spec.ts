import request from 'supertest';
import { add, freshIds, patchAdmin } from '../support/admin.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, accessTokenClaims, clientSecretOf, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp({ ACCESS_TOKEN_TTL: '3600' });
});

afterAll(() => server.close());

type Grant = ConsentGrant;
const consentWorldOn = (options: Parameters<typeof consentWorld>[1] = {}) => consentWorld(server, options);

function ask(target: TestApp, grant: Pick<Grant, 'clientId' | 'secret'>, scope: string) {
  return request(target.url)
    .post('/oauth2/token')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
}

const claimsOf = (token: string) => accessTokenClaims(token);

describe('resource scopes and consent tickets', () => {
  it('grants a resource scope covered by a consent ticket of the client', async () => {
    const grant = await consentWorldOn();
    const response = await ask(server, grant, `${grant.definitionName}:read`);
    expect(response.status).toBe(200);
    expect(bodyOf<TokenBody>(response).scope).toBe(`${grant.definitionName}:read`);
  });

  it('names the resource type when the client holds no ticket for it', async () => {
    const grant = await consentWorldOn({ ticket: false });
    const response = await ask(server, grant, `${grant.definitionName}:read`);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain(`no consent ticket of this client covers resource type "${grant.definitionName}"`);
  });

  it('names the scope when the ticket does not bind it', async () => {
    const grant = await consentWorldOn();
    const response = await ask(server, grant, `${grant.definitionName}:write`);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('scope "write" is not bound');
  });

  it('refuses a client that is allowed the scope but only another client holds the ticket', async () => {
    const holder = await consentWorldOn();
    const [other] = freshIds(1);
    const created = await patchAdmin(server, [
      add('uma-client', { id: other, attributes: { clientId: `other-${other}`, clientName: 'o', allowedScopes: `${holder.definitionName}:read` } }),
    ]);
    const response = await ask(server, { clientId: `other-${other}`, secret: clientSecretOf(created) }, `${holder.definitionName}:read`);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
    expect((await ask(server, holder, `${holder.definitionName}:read`)).status).toBe(200);
  });

  it('refuses a covered resource scope that is not in the allowed scopes', async () => {
    const grant = await consentWorldOn();
    await patchAdmin(server, [
      { op: 'replace', path: `/uma-client/${grant.client}`, value: { type: 'uma-client', attributes: { allowedScopes: 'uma_protection' } } },
    ]);
    await eventually(
      async () => (bodyOf<OAuthErrorBody>(await ask(server, grant, `${grant.definitionName}:read`)).error === 'invalid_scope' ? true : undefined),
      1_000,
    );
  });

  it('caps the lifetime at the maxPermissionDuration of the covering requested resource', async () => {
    const grant = await consentWorldOn({ maxPermissionDuration: 900 });
    const response = await ask(server, grant, `uma_protection ${grant.definitionName}:read`);
    expect(bodyOf<TokenBody>(response).expires_in).toBe(900);
    const claims = claimsOf(bodyOf<TokenBody>(response).access_token);
    expect(claims.exp - claims.iat).toBe(900);
  });

  it('keeps ACCESS_TOKEN_TTL when it is the shorter', async () => {
    const grant = await consentWorldOn({ maxPermissionDuration: 86_400 });
    expect(bodyOf<TokenBody>(await ask(server, grant, `${grant.definitionName}:read`)).expires_in).toBe(3600);
  });

  it('puts a permissions claim in the UMA RPT shape into the token', async () => {
    const grant = await consentWorldOn({ maxPermissionDuration: 1800 });
    const response = await ask(server, grant, `uma_protection ${grant.definitionName}:read`);
    const claims = claimsOf(bodyOf<TokenBody>(response).access_token);
    expect(claims.permissions).toEqual([
      {
        resource_id: grant.resourceId,
        resource_type: grant.definitionName,
        resource_scopes: ['read'],
        ticket_id: grant.ticketId,
        purpose: 'Your doctor follows your glucose',
        exp: claims.exp,
      },
    ]);
    expect(claims.scope).toBe(`uma_protection ${grant.definitionName}:read`);
  });

  it('has no permissions claim for plain scopes', async () => {
    const grant = await consentWorldOn();
    const response = await ask(server, grant, 'uma_protection');
    expect(claimsOf(bodyOf<TokenBody>(response).access_token).permissions).toBeUndefined();
  });

  it('stops granting within a second of the combination being removed, on every instance', async () => {
    const grant = await consentWorldOn();
    const second = await startTestApp();
    try {
      expect((await ask(server, grant, `${grant.definitionName}:read`)).status).toBe(200);
      expect((await ask(second, grant, `${grant.definitionName}:read`)).status).toBe(200);
      const removal = await patchAdmin(server, [{ op: 'remove', path: `/requested-resources-capability-tickets/${grant.combination}` }]);
      expect(removal.status).toBe(200);
      const removedAt = Date.now();
      for (const instance of [server, second]) {
        await eventually(async () => ((await ask(instance, grant, `${grant.definitionName}:read`)).status === 400 ? true : undefined), 1_000, 20);
      }
      expect(Date.now() - removedAt).toBeLessThan(1_000);
    } finally {
      await second.close();
    }
  });
});
