import request from 'supertest';
import { add, freshIds, patchAdmin, ref } from '../support/admin.js';
import { consentWorld, enrolDataSource, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, jwtPayload, type TokenBody, type OAuthErrorBody, type JsonApiErrors, type AccessTokenClaims, type ExplainVerdict } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp({ ACCESS_TOKEN_TTL: '3600' });
});

afterAll(() => server.close());

function explain(query: Record<string, string | string[]>, token = server.adminToken) {
  return request(server.adminUrl).get('/admin/explain').query(query).set('Authorization', token).set('ApiVersion', 'v1.0');
}

function ask(grant: Pick<ConsentGrant, 'clientId' | 'secret'>, scope: string, resources: string[] = []) {
  const body = new URLSearchParams([['grant_type', 'client_credentials'], ['scope', scope], ...resources.map((uri): [string, string] => ['resource', uri])]);
  return request(server.url).post('/oauth2/token').set('Authorization', basic(grant.clientId, grant.secret)).type('form').send(body.toString());
}

const claimsOf = (token: string) => jwtPayload<AccessTokenClaims>(token);

/** The token endpoint's refusal and explain's first missing link say the same. */
async function expectRefusedAlike(grant: ConsentGrant, scope: string, error: string, missing: RegExp, resources: string[] = []) {
  const token = await ask(grant, scope, resources);
  expect(token.status).toBe(400);
  expect(bodyOf<OAuthErrorBody>(token).error).toBe(error);
  const verdict = await explain({ client: grant.clientId, scope, ...(resources.length ? { resource: resources } : {}) });
  expect(verdict.status).toBe(200);
  const body = bodyOf<ExplainVerdict>(verdict);
  expect(body).toMatchObject({ client: grant.clientId, granted: false, scope, lifetime: null, aud: null });
  const refused = body.scopes.find((entry) => !entry.granted);
  expect(refused?.missing).toMatch(missing);
  // The token endpoint names the refused scope before its missing link; explain's entry is already that scope's.
  expect(bodyOf<OAuthErrorBody>(token).error_description).toBe(error === 'invalid_scope' ? `${refused?.scope}: ${refused?.missing}` : refused?.missing);
  return body;
}

describe('GET /admin/explain: every missing link, in the order the token endpoint checks them', () => {
  it('1. the scope is not in the allowed scopes', async () => {
    const grant = await consentWorld(server);
    const body = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `uma_protection admin` }));
    expect(body.scopes).toEqual([
      { scope: 'uma_protection', granted: true, allowed: true },
      { scope: 'admin', granted: false, allowed: false, missing: `scope "admin" is not in the allowed scopes of client ${grant.clientId}` },
    ]);
    const token = await ask(grant, 'uma_protection admin');
    expect(bodyOf<OAuthErrorBody>(token).error).toBe('invalid_scope');
    expect(bodyOf<OAuthErrorBody>(token).error_description).toContain('admin');
  });

  // A client can name only defined scopes; a scope or definition removed afterwards leaves the name behind.
  it('2. no resource definition of that name (removed after the client was allowed its scope)', async () => {
    const [definition, scope] = freshIds(2);
    const name = `gone-${definition}`;
    const grant = await consentWorld(server);
    expect(
      (
        await patchAdmin(server, [
          add('resource-definition', { id: definition, attributes: { name } }),
          add('scope', { id: scope, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
          { op: 'replace', path: `/uma-client/${grant.client}`, value: { type: 'uma-client', attributes: { allowedScopes: `${name}:read` } } },
        ])
      ).status,
    ).toBe(200);
    expect(
      (
        await patchAdmin(server, [
          { op: 'remove', path: `/scope/${scope}` },
          { op: 'remove', path: `/resource-definition/${definition}` },
        ])
      ).status,
    ).toBe(200);
    await expectRefusedAlike(grant, `${name}:read`, 'invalid_scope', new RegExp(`no resource definition named "${name}"`));
  });

  it('3. no scope of that name in the definition (removed after the client was allowed it)', async () => {
    const grant = await consentWorld(server);
    const [scope] = freshIds(1);
    expect(
      (
        await patchAdmin(server, [
          add('scope', { id: scope, attributes: { name: 'delete' }, relationships: { resourceDefinition: ref('resource-definition', grant.ids.definition) } }),
          {
            op: 'replace',
            path: `/uma-client/${grant.client}`,
            value: { type: 'uma-client', attributes: { allowedScopes: `${grant.definitionName}:delete` } },
          },
        ])
      ).status,
    ).toBe(200);
    expect((await patchAdmin(server, [{ op: 'remove', path: `/scope/${scope}` }])).status).toBe(200);
    await expectRefusedAlike(grant, `${grant.definitionName}:delete`, 'invalid_scope', /no scope named "delete" in resource definition/);
  });

  it('4. no requested resource of the client for the definition', async () => {
    const grant = await consentWorld(server, { ticket: false });
    await expectRefusedAlike(grant, `${grant.definitionName}:read`, 'invalid_scope', /no requested resource of .* for resource definition/);
  });

  it('5. no requested-resource-scopes record binding the scope', async () => {
    const grant = await consentWorld(server);
    await expectRefusedAlike(
      grant,
      `${grant.definitionName}:write`,
      'invalid_scope',
      new RegExp(`no requested-resource-scopes record binds scope "write" to requested resource ${grant.ids.resource} `),
    );
  });

  it('6. no combination with a capability ticket of the client', async () => {
    const grant = await consentWorld(server);
    expect((await patchAdmin(server, [{ op: 'remove', path: `/requested-resources-capability-tickets/${grant.combination}` }])).status).toBe(200);
    const body = await expectRefusedAlike(grant, `${grant.definitionName}:read`, 'invalid_scope', /no requested-resources-capability-tickets record/);
    expect(body.scopes[0].missing).toBe(
      `no requested-resources-capability-tickets record combines a capability ticket of ${grant.clientId} with requested resource ${grant.ids.resource}`,
    );
  });

  it('7a. a resource that is no enrolled data source', async () => {
    const grant = await consentWorld(server);
    await expectRefusedAlike(grant, `${grant.definitionName}:read`, 'invalid_target', /resource "https:\/\/nowhere.example" is no enrolled data source/, [
      'https://nowhere.example',
    ]);
  });

  it('7b. a resource whose data source does not serve the definition', async () => {
    const grant = await consentWorld(server);
    const [other] = freshIds(1);
    await patchAdmin(server, [add('resource-definition', { id: other, attributes: { name: `weight-${other}` } })]);
    const elsewhere = await enrolDataSource(server, [other]);
    await expectRefusedAlike(grant, `${grant.definitionName}:read`, 'invalid_target', /does not serve resource definition/, [elsewhere.resourceUri]);
  });

  it('reports the earliest missing link when several are missing', async () => {
    const grant = await consentWorld(server, { ticket: false });
    await expectRefusedAlike(grant, `${grant.definitionName}:read`, 'invalid_scope', /no requested resource of/, ['https://nowhere.example']);
  });
});

describe('GET /admin/explain: a granted request', () => {
  it('shows the covering records, and the lifetime and aud a real token then carries', async () => {
    const grant = await consentWorld(server, { maxPermissionDuration: 1200 });
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const scope = `uma_protection ${grant.definitionName}:read`;
    const verdict = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope }));
    expect(verdict).toEqual({
      client: grant.clientId,
      granted: true,
      scope,
      lifetime: 1200,
      aud: source.resourceUri,
      scopes: [
        { scope: 'uma_protection', granted: true, allowed: true },
        {
          scope: `${grant.definitionName}:read`,
          granted: true,
          allowed: true,
          covering: [
            {
              requestedResource: { id: String(grant.ids.resource), requestedResourceId: grant.resourceId, maxPermissionDuration: 1200 },
              capabilityTicket: { id: String(grant.ids.ticket), ticketId: grant.ticketId, ticketName: 'Glucose' },
              purpose: { id: String(grant.ids.purpose), name: 'Your doctor follows your glucose' },
              requestedResourceScopes: [String(grant.ids.binding)],
              requestedResourcesCapabilityTickets: [String(grant.combination)],
            },
          ],
        },
      ],
    });
    const claims = claimsOf(bodyOf<TokenBody>(await ask(grant, scope)).access_token);
    expect(claims.exp - claims.iat).toBe(verdict.lifetime);
    expect(claims.aud).toEqual(verdict.aud);
  });

  it('lists every combination of a covering requested resource, the first ticket speaking for it', async () => {
    const grant = await consentWorld(server);
    const [ticket, combination] = freshIds(2);
    const added = await patchAdmin(server, [
      add('capability-ticket', {
        id: ticket,
        attributes: { ticketId: `ticket-${ticket}`, ticketName: 'Second' },
        relationships: { purpose: ref('purpose', grant.ids.purpose), umaClient: ref('uma-client', grant.client) },
      }),
      add('requested-resources-capability-tickets', {
        id: combination,
        relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', grant.ids.resource) },
      }),
    ]);
    expect(added.status).toBe(200);
    const [covering] = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read` })).scopes[0].covering!;
    expect(covering.requestedResourcesCapabilityTickets).toEqual([String(grant.combination), String(combination)]);
    expect(covering.capabilityTicket.ticketId).toBe(grant.ticketId);
  });

  it('gives the issuer as aud when no data source serves the definition, as the token does', async () => {
    const grant = await consentWorld(server);
    const verdict = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read` }));
    expect(verdict.aud).toBe(server.url);
    expect(verdict.lifetime).toBe(3600);
    expect(claimsOf(bodyOf<TokenBody>(await ask(grant, `${grant.definitionName}:read`)).access_token).aud).toBe(server.url);
  });

  it('answers application/json, never cached', async () => {
    const grant = await consentWorld(server);
    const response = await explain({ client: grant.clientId, scope: 'uma_protection' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

describe('GET /admin/explain: nothing stored, nothing counted', () => {
  async function everyTableCount(): Promise<Record<string, number>> {
    const tables: { table_name: string }[] = await server.dataSource.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    const counts: Record<string, number> = {};
    for (const { table_name: table } of tables) {
      const [{ count }]: { count: number }[] = await server.dataSource.query(`SELECT count(*)::int AS count FROM "${table}"`);
      counts[table] = count;
    }
    return counts;
  }

  it('leaves the row count of every table as it was, granted or refused', async () => {
    const grant = await consentWorld(server);
    const before = await everyTableCount();
    expect(bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read` })).granted).toBe(true);
    expect(bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:write` })).granted).toBe(false);
    expect((await explain({ client: 'nobody-at-all', scope: 'read' })).status).toBe(404);
    // Pending withdrawals are a work queue that every instance empties in the background (notes of
    // earlier tests' changes may go meanwhile): explain may only leave it as short or shorter.
    const { pending_withdrawal: pendingAfter, ...after } = await everyTableCount();
    const { pending_withdrawal: pendingBefore, ...rest } = before;
    expect(after).toEqual(rest);
    expect(pendingAfter).toBeLessThanOrEqual(pendingBefore);
  });

  it('counts no token request and no cache lookup in the metrics', async () => {
    const grant = await consentWorld(server);
    const scrape = async () =>
      (await request(server.adminUrl).get('/metrics').set('Authorization', server.adminToken)).text
        .split('\n')
        .filter((line) => /^(oauth_|cache_lookups_total)/.test(line))
        .join('\n');
    expect((await ask(grant, `${grant.definitionName}:read`)).status).toBe(200);
    const before = await scrape();
    expect(before).toContain('cache_lookups_total{cache="consent_coverage"');
    await explain({ client: grant.clientId, scope: `${grant.definitionName}:read` });
    await explain({ client: grant.clientId, scope: 'admin' });
    expect(await scrape()).toBe(before);
  });
});

describe('GET /admin/explain: refused requests', () => {
  it('answers 404 with a JSON:API error document for an unknown client', async () => {
    const response = await explain({ client: 'no-such-client', scope: 'read' });
    expect(response.status).toBe(404);
    expect(bodyOf<JsonApiErrors>(response).errors[0]).toMatchObject({ status: '404' });
  });

  it.each([
    ['a missing client', { scope: 'read' }],
    ['a missing scope', { client: 'x' }],
    ['an empty scope', { client: 'x', scope: '' }],
    ['a malformed scope', { client: 'x', scope: 'a  b' }],
    ['a client given twice', { client: ['x', 'y'], scope: 'read' }],
    ['a NUL character in the client', { client: 'x\u0000y', scope: 'read' }],
    ['a NUL character in a resource', { client: 'x', scope: 'read', resource: 'https://a.example/\u0000' }],
    ['eleven resources', { client: 'x', scope: 'read', resource: Array.from({ length: 11 }, (_, index) => `https://r${index}.example`) }],
  ])('answers 400 for %s', async (_, query) => {
    const response = await explain(query);
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].status).toBe('400');
  });

  it('answers 401 without the admin token, and 400 for another ApiVersion', async () => {
    expect((await explain({ client: 'x', scope: 'read' }, 'wrong-token')).status).toBe(401);
    const versioned = await request(server.adminUrl)
      .get('/admin/explain')
      .query({ client: 'x', scope: 'read' })
      .set('Authorization', server.adminToken)
      .set('ApiVersion', 'v2.0');
    expect(versioned.status).toBe(400);
  });

  it('is not served on the public port', async () => {
    expect((await request(server.url).get('/admin/explain').query({ client: 'x', scope: 'read' })).status).toBe(404);
  });
});
