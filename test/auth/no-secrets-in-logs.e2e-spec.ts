import { Writable } from 'node:stream';
import request from 'supertest';
import { JSON_PATCH } from '../support/admin.js';
import { consentWorld } from '../support/consent.js';
import { basic, createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type TokenBody } from '../support/bodies.js';

describe('no secret in any log line (as docs/operations/security.md#secrets-never-logged says)', () => {
  it('holds over a full scenario: clients, tickets, tokens, errors, refresh, revoke, introspection, key rotation', async () => {
    const lines: string[] = [];
    const logs = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    // trace: the most verbose level, so that nothing is held back from the scan.
    const server: TestApp = await startTestApp({ LOG_LEVEL: 'trace' }, { logs });
    const secrets: string[] = [server.adminToken];
    try {
      const token = (client: { clientId: string; clientSecret: string }, form: Record<string, string>) =>
        request(server.url).post('/oauth2/token').set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send(form);

      const refresher = await createClient(server.app, { grantTypes: 'client_credentials refresh_token', allowedScopes: 'read uma_protection' });
      secrets.push(refresher.clientSecret, basic(refresher.clientId, refresher.clientSecret).slice(6));
      const first = bodyOf<Required<TokenBody>>(await token(refresher, { grant_type: 'client_credentials', scope: 'read uma_protection' }));
      secrets.push(first.access_token, first.refresh_token);
      const second = bodyOf<Required<TokenBody>>(await token(refresher, { grant_type: 'refresh_token', refresh_token: first.refresh_token }));
      secrets.push(second.access_token, second.refresh_token);
      await token(refresher, { grant_type: 'refresh_token', refresh_token: first.refresh_token }); // reuse: invalid_grant
      await request(server.url)
        .post('/oauth2/introspect')
        .set('Authorization', basic(refresher.clientId, refresher.clientSecret))
        .type('form')
        .send({ token: second.access_token });
      await request(server.url)
        .post('/oauth2/revoke')
        .set('Authorization', basic(refresher.clientId, refresher.clientSecret))
        .type('form')
        .send({ token: second.access_token });

      const wrongSecret = 'a-wrong-secret-that-must-not-be-logged';
      secrets.push(wrongSecret);
      await token({ clientId: refresher.clientId, clientSecret: wrongSecret }, { grant_type: 'client_credentials', scope: 'read' });
      await request(server.url)
        .post('/oauth2/token')
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: refresher.clientId, client_secret: wrongSecret });
      await request(server.url).post('/oauth2/token').set('Content-Type', 'application/json').send(`{"client_secret":"${wrongSecret}",`);

      const grant = await consentWorld(server);
      secrets.push(grant.secret);
      const ticketed = bodyOf<TokenBody>(
        await token({ clientId: grant.clientId, clientSecret: grant.secret }, { grant_type: 'client_credentials', scope: `${grant.definitionName}:read` }),
      );
      secrets.push(ticketed.access_token);

      const chosen = 'an-admin-chosen-client-secret-0123';
      secrets.push(chosen);
      await request(server.adminUrl)
        .patch('/admin')
        .set('Authorization', server.adminToken)
        .set('Content-Type', JSON_PATCH)
        .send(
          JSON.stringify([
            {
              op: 'add',
              path: '/uma-client',
              value: { type: 'uma-client', attributes: { clientId: `logged-${Date.now()}`, clientName: 'x', allowedScopes: 'read', clientSecret: chosen } },
            },
          ]),
        );
      await request(server.adminUrl).get('/admin/uma-client').set('Authorization', `Bearer ${server.adminToken}x`);
      await request(server.adminUrl).post('/admin/keys/rotate').set('Authorization', server.adminToken);
    } finally {
      await server.close();
    }
    const everything = lines.join('\n');
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(secret).toBeTruthy();
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toMatch(/scrypt\$|PRIVATE KEY|enc:v1:/);
  });
});
