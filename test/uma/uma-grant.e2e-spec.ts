import request from 'supertest';
import { getAdmin, patchAdmin } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { claimsOf, clientKey, dpopProof } from '../support/keys.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  bodyOf,
  stringContaining,
  type IntrospectionBody,
  type OAuthErrorBody,
  type TokenBody,
  type ExplainBody,
  type JwtHeader,
  type PermissionTicketBody,
} from '../support/bodies.js';
import {
  UMA_GRANT,
  askPermission,
  introspectWithPat,
  redeem,
  registeredResource,
  resourceProof,
  secondDataSource,
  ticketCount,
  ticketFor,
  umaWorld,
} from '../support/uma.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

describe('the UMA grant', () => {
  it('redeems a ticket for an RPT: at+jwt, the ticket permissions in UMA shape, aud the data source, no scope or refresh token in the response', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const response = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId) });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const body = bodyOf<TokenBody>(response);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    const header = JSON.parse(Buffer.from(body.access_token.split('.')[0], 'base64url').toString()) as JwtHeader;
    expect(header.typ).toBe('at+jwt');
    const claims = claimsOf(body.access_token);
    expect(claims).toMatchObject({
      iss: server.url,
      sub: world.clientId,
      client_id: world.clientId,
      aud: world.dataSource.resourceUri,
      scope: `${world.definitionName}:read`,
      permissions: [{ resource_id: resourceId, resource_scopes: ['read'], exp: claims.exp }],
    });
    expect(Object.keys((claims.permissions as object[])[0]).sort()).toEqual(['exp', 'resource_id', 'resource_scopes']);
    expect((claims.exp as number) - (claims.iat as number)).toBe(body.expires_in);
    expect(typeof claims.jti).toBe('string');
  });

  it('caps the RPT lifetime by the maxPermissionDuration of the covering requested resource', async () => {
    const world = await umaWorld(server, { maxPermissionDuration: 120 });
    const resourceId = await registeredResource(server, world);
    const response = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId) });
    expect(bodyOf<TokenBody>(response).expires_in).toBe(120);
    const claims = claimsOf(bodyOf<TokenBody>(response).access_token);
    expect((claims.exp as number) - (claims.iat as number)).toBe(120);
  });

  it('answers unauthorized_client for a client without the grant and leaves the ticket usable', async () => {
    const plain = await umaWorld(server, { grantTypes: 'client_credentials' });
    const kept = await ticketFor(server, plain, await registeredResource(server, plain));
    const refused = await redeem(server, plain, { ticket: kept });
    expect(refused.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('unauthorized_client');
    // Register the grant now: the ticket was untouched.
    await patchAdmin(server, [
      { op: 'replace', path: `/uma-client/${plain.client}`, value: { type: 'uma-client', attributes: { grantTypes: `client_credentials ${UMA_GRANT}` } } },
    ]).expect(200);
    const later = await eventually(async () => {
      const response = await redeem(server, plain, { ticket: kept });
      return bodyOf<OAuthErrorBody>(response).error === 'unauthorized_client' ? undefined : response;
    });
    expect(later.status).toBe(200);
  });

  it('answers invalid_request without a ticket', async () => {
    const world = await umaWorld(server);
    const response = await redeem(server, world, {});
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('ticket');
  });

  it('answers invalid_grant for an unknown ticket', async () => {
    const world = await umaWorld(server);
    const response = await redeem(server, world, { ticket: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_grant');
  });

  it('answers invalid_grant to a ticket redeemed twice', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    expect((await redeem(server, world, { ticket })).status).toBe(200);
    const second = await redeem(server, world, { ticket });
    expect(second.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(second).error).toBe('invalid_grant');
  });

  it('lets only one of two simultaneous redemptions of a ticket succeed', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    const answers = await Promise.all([1, 2, 3].map(() => redeem(server, world, { ticket })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400]);
  });

  it('uses a ticket up on every instance: another server process sharing the database refuses it afterwards', async () => {
    const second = await startTestApp();
    try {
      const world = await umaWorld(server);
      const ticket = await ticketFor(server, world, await registeredResource(server, world));
      const [here, there] = await Promise.all([redeem(server, world, { ticket }), redeem(second, world, { ticket })]);
      expect([here.status, there.status].sort()).toEqual([200, 400]);
      expect(bodyOf<OAuthErrorBody>(await redeem(second, world, { ticket })).error).toBe('invalid_grant');
    } finally {
      await second.close();
    }
  });

  it('answers invalid_grant for an expired ticket', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    await server.dataSource.query(`UPDATE permission_ticket SET expires_at = now() - interval '1 second' WHERE client_id = $1`, [world.rs.id]);
    expect(bodyOf<OAuthErrorBody>(await redeem(server, world, { ticket })).error).toBe('invalid_grant');
  });

  it('answers invalid_grant when a resource of the ticket was deleted', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const ticket = await ticketFor(server, world, resourceId);
    expect((await request(server.url).delete(`/uma/resource_set/${resourceId}`).set('Authorization', `Bearer ${world.pat}`)).status).toBe(204);
    const response = await redeem(server, world, { ticket });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_grant');
  });

  it('answers invalid_grant when the resource no longer registers a scope of the ticket', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const ticket = await ticketFor(server, world, resourceId, ['read']);
    await request(server.url)
      .put(`/uma/resource_set/${resourceId}`)
      .set('Authorization', `Bearer ${world.pat}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ type: world.definitionName, resource_scopes: ['write'] }))
      .expect(200);
    expect(bodyOf<OAuthErrorBody>(await redeem(server, world, { ticket })).error).toBe('invalid_grant');
  });

  it('answers invalid_grant when the registering client no longer serves the type, and keeps the ticket', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    await patchAdmin(server, [{ op: 'remove', path: `/data-source-resource-definitions/${world.dataSource.pairs[0]}` }]).expect(200);
    expect(bodyOf<OAuthErrorBody>(await redeem(server, world, { ticket })).error).toBe('invalid_grant');
    expect(await ticketCount(server)).toBeGreaterThan(0);
  });

  it('uses the ticket up even when claims pushing is then refused', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    const pushed = await redeem(server, world, {
      ticket,
      claim_token: 'eyJ...',
      claim_token_format: 'http://openid.net/specs/openid-connect-core-1_0.html#IDToken',
    });
    expect(pushed.status).toBe(400);
    expect(pushed.body).toEqual({ error: 'invalid_request', error_description: stringContaining('claims pushing is not supported') });
    expect(bodyOf<OAuthErrorBody>(await redeem(server, world, { ticket })).error).toBe('invalid_grant');
  });

  it('refuses a pct as claims pushing too', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    expect(bodyOf<OAuthErrorBody>(await redeem(server, world, { ticket, pct: 'x' })).error_description).toContain('claims pushing is not supported');
  });

  it('ignores an rpt parameter: no upgrade', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const first = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId) });
    const second = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId), rpt: bodyOf<TokenBody>(first).access_token });
    expect(second.status).toBe(200);
    expect(bodyOf<TokenBody & Record<string, unknown>>(second).upgraded).toBeUndefined();
    expect(claimsOf(bodyOf<TokenBody>(second).access_token).permissions).toEqual([
      { resource_id: resourceId, resource_scopes: ['read'], exp: claimsOf(bodyOf<TokenBody>(second).access_token).exp },
    ]);
  });

  it('adds a requested scope to the permission of the resource that registered it (and refuses it without a consent ticket)', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const response = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId, []), scope: 'write' });
    // The consent ticket covers read only: write is refused, in explain's words.
    expect(response.status).toBe(403);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('request_denied');
    const explained = await getAdmin(server, `/admin/explain?client=${world.clientId}&scope=${encodeURIComponent(`${world.definitionName}:write`)}`);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(bodyOf<ExplainBody>(explained).scopes[0].missing);
  });

  it('grants a scope added by the scope parameter to an empty permission', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const response = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId, []), scope: 'read' });
    expect(response.status).toBe(200);
    expect(claimsOf(bodyOf<TokenBody>(response).access_token).permissions).toMatchObject([{ resource_id: resourceId, resource_scopes: ['read'] }]);
  });

  it('answers invalid_scope for a requested scope no resource of the ticket registered', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world, ['read']);
    const response = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId), scope: 'write' });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
  });

  it('refuses a permission left with no scope (default deny)', async () => {
    const world = await umaWorld(server);
    const response = await redeem(server, world, { ticket: await ticketFor(server, world, await registeredResource(server, world), []) });
    expect(response.status).toBe(403);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('request_denied');
  });

  it('answers request_denied with the first missing link when the consent link was removed between ticket and redemption', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    await patchAdmin(server, [{ op: 'remove', path: `/requested-resources-capability-tickets/${world.combination}` }]).expect(200);
    const response = await eventually(async () => {
      const answer = await redeem(server, world, { ticket: await ticketFor(server, world, await registeredResource(server, world)) });
      return answer.status === 403 ? answer : undefined;
    }, 2_000);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('request_denied');
    const explained = await getAdmin(server, `/admin/explain?client=${world.clientId}&scope=${encodeURIComponent(`${world.definitionName}:read`)}`);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(bodyOf<ExplainBody>(explained).scopes[0].missing);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toContain('no requested-resources-capability-tickets record combines');
    expect((await redeem(server, world, { ticket })).status).toBe(403);
  });

  it("refuses a scope outside the client's allowed scopes as request_denied, with no partial RPT", async () => {
    const world = await umaWorld(server);
    await patchAdmin(server, [
      { op: 'replace', path: `/uma-client/${world.client}`, value: { type: 'uma-client', attributes: { allowedScopes: `${world.definitionName}:read` } } },
    ]).expect(200);
    const resourceId = await registeredResource(server, world);
    const response = await eventually(async () => {
      const answer = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId, ['read', 'write']) });
      return answer.status === 403 ? answer : undefined;
    }, 2_000);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(
      `scope "${world.definitionName}:write" is not in the allowed scopes of client ${world.clientId}`,
    );
  });

  it('narrows aud to the resource parameter, and refuses a resource that is not a data source of the registering client', async () => {
    const world = await umaWorld(server);
    const other = await secondDataSource(server, world.ids.definition, world.rs.id);
    const resourceId = await registeredResource(server, world);
    const both = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId) });
    expect(claimsOf(bodyOf<TokenBody>(both).access_token).aud).toEqual([world.dataSource.resourceUri, other]);
    const narrowed = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId), resource: other });
    expect(narrowed.status).toBe(200);
    expect(claimsOf(bodyOf<TokenBody>(narrowed).access_token).aud).toBe(other);
    const foreign = await redeem(server, world, { ticket: await ticketFor(server, world, resourceId), resource: 'https://nowhere.example/api' });
    expect(foreign.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(foreign).error).toBe('invalid_target');
  });

  it('binds the RPT to a DPoP proof: token_type DPoP, cnf.jkt, and introspection says so', async () => {
    const world = await umaWorld(server);
    const key = await clientKey('ES256');
    const response = await redeem(
      server,
      world,
      { ticket: await ticketFor(server, world, await registeredResource(server, world)) },
      { DPoP: await dpopProof(key, `${server.url}/oauth2/token`) },
    );
    expect(response.status).toBe(200);
    expect(bodyOf<TokenBody>(response).token_type).toBe('DPoP');
    const claims = claimsOf(bodyOf<TokenBody>(response).access_token);
    expect((claims.cnf as { jkt: string }).jkt).toEqual(expect.any(String));
    const introspected = await introspectWithPat(server, world.pat, bodyOf<TokenBody>(response).access_token);
    expect(introspected.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: claims.cnf });
  });

  it('accepts a JSON body', async () => {
    const world = await umaWorld(server);
    const ticket = await ticketFor(server, world, await registeredResource(server, world));
    const response = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(world.clientId, world.secret))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ grant_type: UMA_GRANT, ticket }));
    expect(response.status).toBe(200);
  });

  it('decides several permissions of one ticket together', async () => {
    const world = await umaWorld(server);
    const first = await registeredResource(server, world);
    const second = await registeredResource(server, world, ['read']);
    const ticket = await askPermission(server, world.pat, [
      { resource_id: first, resource_scopes: ['read'] },
      { resource_id: second, resource_scopes: ['read'] },
    ]);
    const response = await redeem(server, world, { ticket: bodyOf<PermissionTicketBody>(ticket).ticket });
    expect(response.status).toBe(200);
    const claims = claimsOf(bodyOf<TokenBody>(response).access_token);
    expect(claims.scope).toBe(`${world.definitionName}:read`);
    expect((claims.permissions as { resource_id: string }[]).map((permission) => permission.resource_id)).toEqual([first, second]);
  });
});

describe('introspection of an RPT', () => {
  it('answers a data source that presents its PAT: permissions and no scope', async () => {
    const world = await umaWorld(server);
    const resourceId = await registeredResource(server, world);
    const rpt = bodyOf<TokenBody>(await redeem(server, world, { ticket: await ticketFor(server, world, resourceId) })).access_token;
    const response = await introspectWithPat(server, world.pat, rpt);
    expect(response.status).toBe(200);
    const claims = claimsOf(rpt);
    expect(response.body).toEqual({
      active: true,
      iss: server.url,
      sub: world.clientId,
      client_id: world.clientId,
      aud: world.dataSource.resourceUri,
      iat: claims.iat,
      exp: claims.exp,
      jti: claims.jti,
      token_type: 'Bearer',
      permissions: [{ resource_id: resourceId, resource_scopes: ['read'], exp: claims.exp }],
    });
  });

  it("answers the same to the data source's client authenticating with its secret", async () => {
    const world = await umaWorld(server);
    const rpt = bodyOf<TokenBody>(
      await redeem(server, world, { ticket: await ticketFor(server, world, await registeredResource(server, world)) }),
    ).access_token;
    const response = await request(server.url)
      .post('/oauth2/introspect')
      .set('Authorization', basic(world.rs.clientId, world.rs.secret))
      .type('form')
      .send({ token: rpt });
    expect(bodyOf<IntrospectionBody>(response).active).toBe(true);
    expect(bodyOf<IntrospectionBody>(response).scope).toBeUndefined();
    expect(bodyOf<IntrospectionBody>(response).permissions).toHaveLength(1);
  });

  it('answers {"active": false} to a data source not in the RPT\'s aud', async () => {
    const world = await umaWorld(server);
    const rpt = bodyOf<TokenBody>(
      await redeem(server, world, { ticket: await ticketFor(server, world, await registeredResource(server, world)) }),
    ).access_token;
    const stranger = await umaWorld(server);
    const response = await introspectWithPat(server, stranger.pat, rpt);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: false });
  });

  it('still answers scope for a client credentials token', async () => {
    const world = await umaWorld(server);
    const token = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(world.clientId, world.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${world.definitionName}:read` });
    const response = await introspectWithPat(server, world.pat, bodyOf<TokenBody>(token).access_token);
    expect(response.body).toMatchObject({ active: true, scope: `${world.definitionName}:read` });
  });

  it('refuses introspection with a malformed PAT: 401 invalid_token', async () => {
    const world = await umaWorld(server);
    const response = await introspectWithPat(server, 'not-a-token', world.pat);
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_token');
  });

  it("refuses a PAT whose client stopped being a data source's umaClient: 403 insufficient_scope", async () => {
    const world = await umaWorld(server);
    const rpt = bodyOf<TokenBody>(
      await redeem(server, world, { ticket: await ticketFor(server, world, await registeredResource(server, world)) }),
    ).access_token;
    await patchAdmin(server, [
      { op: 'replace', path: `/data-source/${world.dataSource.id}`, value: { type: 'data-source', relationships: { umaClient: { data: null } } } },
    ]).expect(200);
    const response = await eventually(async () => {
      const answer = await introspectWithPat(server, world.pat, rpt);
      return answer.status === 403 ? answer : undefined;
    }, 1_000);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('insufficient_scope');
  });

  it('accepts a DPoP-bound PAT with a proof for the introspection endpoint', async () => {
    const world = await umaWorld(server);
    const key = await clientKey('ES256');
    const pat = bodyOf<TokenBody>(
      await request(server.url)
        .post('/oauth2/token')
        .set('Authorization', basic(world.rs.clientId, world.rs.secret))
        .set('DPoP', await dpopProof(key, `${server.url}/oauth2/token`))
        .type('form')
        .send({ grant_type: 'client_credentials', scope: 'uma_protection' }),
    ).access_token;
    const rpt = bodyOf<TokenBody>(
      await redeem(server, world, { ticket: await ticketFor(server, world, await registeredResource(server, world)) }),
    ).access_token;
    const introspect = async (proof?: string) =>
      request(server.url)
        .post('/oauth2/introspect')
        .set('Authorization', `DPoP ${pat}`)
        .set(proof ? { DPoP: proof } : {})
        .type('form')
        .send({ token: rpt });
    expect((await introspect()).status).toBe(401);
    const answered = await introspect(await resourceProof(key, 'POST', `${server.url}/oauth2/introspect`, pat));
    expect(answered.status).toBe(200);
    expect(bodyOf<IntrospectionBody>(answered).active).toBe(true);
  });
});
