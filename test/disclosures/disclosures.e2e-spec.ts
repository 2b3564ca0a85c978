import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DisclosureRetention } from '../../src/disclosures/disclosure-retention.js';
import { DisclosuresService } from '../../src/disclosures/disclosures.service.js';
import { add, freshIds, getAdmin, JSON_API, patchAdmin, ref, remove } from '../support/admin.js';
import {
  bodyOf,
  accessTokenClaims,
  type IntrospectionBody,
  type JsonApiDocument,
  type JsonApiErrors,
  type JsonApiResource,
  type TokenBody,
  type DisclosureDocument,
  type DisclosureList,
} from '../support/bodies.js';
import { consentWorld, enrolDataSource, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let server: TestApp;
/** A second instance on the same database: withdrawal must reach it too. */
let second: TestApp;

beforeAll(async () => {
  server = await startTestApp();
  second = await startTestApp({ ISSUER: server.url });
});

afterAll(() => Promise.all([server.close(), second.close()]));

function ask(grant: Pick<ConsentGrant, 'clientId' | 'secret'>, scope: string, extra: Record<string, string> = {}) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope, ...extra });
}

async function disclosuresOf(clientId: string, query = ''): Promise<request.Response> {
  return getAdmin(server, `/admin/disclosure?filter[client]=${encodeURIComponent(clientId)}${query}`);
}

/** The body of disclosuresOf's answer. */
async function disclosurePage(clientId: string, query = ''): Promise<DisclosureList> {
  return bodyOf<DisclosureList>(await disclosuresOf(clientId, query));
}

/** Introspection on the second instance, by the client itself (it is allowed uma_protection). */
async function activeOnSecond(grant: ConsentGrant, token: string): Promise<boolean> {
  const response = await request(second.url).post('/oauth2/introspect').set('Authorization', basic(grant.clientId, grant.secret)).type('form').send({ token });
  expect(response.status).toBe(200);
  return bodyOf<IntrospectionBody>(response).active;
}

async function issued(grant: ConsentGrant, scope = `${grant.definitionName}:read`): Promise<string> {
  const response = await ask(grant, scope);
  expect(response.status).toBe(200);
  return bodyOf<TokenBody>(response).access_token;
}

/** A second capability ticket of the grant's client combined with the same requested resource. */
async function secondTicket(grant: ConsentGrant): Promise<{ ticket: number; combination: number; ticketId: string }> {
  const [ticket, combination] = freshIds(2);
  const ticketId = `ticket-${ticket}`;
  const response = await patchAdmin(server, [
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId, ticketName: 'Second' },
      relationships: { purpose: ref('purpose', grant.ids.purpose), umaClient: ref('uma-client', grant.client) },
    }),
    add('requested-resources-capability-tickets', {
      id: combination,
      relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', grant.ids.resource) },
    }),
  ]);
  expect(response.status).toBe(200);
  return { ticket, combination, ticketId };
}

const replace = (type: string, id: number, value: Record<string, unknown>) => ({
  op: 'replace',
  path: `/${type}/${id}`,
  value: { type, id: String(id), ...value },
});

describe('the disclosure of a resource-scope token', () => {
  it('is committed with copies of the token and the chain that covered it before the token is answered', async () => {
    const grant = await consentWorld(server);
    const response = await ask(grant, `${grant.definitionName}:read`);
    expect(response.status).toBe(200);
    const token = bodyOf<TokenBody>(response).access_token;
    const claims = accessTokenClaims(token);
    const list = await disclosuresOf(grant.clientId);
    expect(list.status).toBe(200);
    const listed = bodyOf<DisclosureList>(list);
    expect(listed.meta.total).toBe(1);
    const [row] = listed.data;
    expect(row.type).toBe('disclosure');
    expect(row.id).toMatch(/^[1-9]\d*$/);
    expect(row.attributes).toEqual({
      jti: claims.jti,
      clientId: grant.clientId,
      scope: `${grant.definitionName}:read`,
      aud: claims.aud,
      issuedAt: new Date(claims.iat * 1000).toISOString().replace('.000Z', 'Z'),
      expiresAt: new Date(claims.exp * 1000).toISOString().replace('.000Z', 'Z'),
      tokenType: 'Bearer',
      jkt: null,
      requestId: response.headers['x-request-id'],
      chains: [
        {
          scope: `${grant.definitionName}:read`,
          capabilityTicket: { id: String(grant.ids.ticket), ticketId: grant.ticketId },
          requestedResource: { id: String(grant.ids.resource), requestedResourceId: grant.resourceId },
          requestedResourceScopes: { id: String(grant.ids.binding) },
          requestedResourcesCapabilityTickets: { id: String(grant.combination) },
          purpose: { id: String(grant.ids.purpose), name: 'Your doctor follows your glucose' },
        },
      ],
      withdrawnAt: null,
      withdrawnBy: null,
      // A UDAP token's hl7-b2b members: null for every other token.
      organizationId: null,
      organizationName: null,
      purposeOfUse: null,
      subjectName: null,
      subjectId: null,
      subjectRole: null,
      consentReference: null,
      actor: null,
      parentJti: null,
    });
    const one = await getAdmin(server, `/admin/disclosure/${row.id}`);
    expect(one.status).toBe(200);
    expect(bodyOf<DisclosureDocument>(one).data).toEqual(row);
    // Nothing secret: not the token, not the secret.
    const [stored] = await server.dataSource.query<{ text: string }[]>('SELECT row_to_json(d)::text AS text FROM disclosure d WHERE id = $1', [row.id]);
    expect(stored.text).not.toContain(token.split('.')[2]);
    expect(stored.text).not.toContain(grant.secret);
  });

  it('lists one chain per covering combination', async () => {
    const grant = await consentWorld(server);
    const other = await secondTicket(grant);
    await issued(grant);
    const [row] = (await disclosurePage(grant.clientId)).data;
    expect(row.attributes.chains.map((chain) => chain.capabilityTicket.ticketId)).toEqual([grant.ticketId, other.ticketId]);
  });

  it('stores the chains once for the tokens that share them, and again when a purpose is renamed', async () => {
    const grant = await consentWorld(server);
    await issued(grant);
    await issued(grant);
    const basesOf = async () =>
      (
        await server.dataSource.query<{ bases: number }[]>('SELECT count(DISTINCT basis)::int AS bases FROM disclosure WHERE client_id = $1', [grant.clientId])
      )[0].bases;
    expect(await basesOf()).toBe(1);
    expect((await patchAdmin(server, [replace('purpose', grant.ids.purpose, { attributes: { name: 'Renamed purpose' } })])).status).toBe(200);
    await issued(grant);
    expect(await basesOf()).toBe(2);
    const names = (await disclosurePage(grant.clientId)).data.map((row) => row.attributes.chains[0].purpose.name);
    expect(names).toEqual(['Renamed purpose', 'Your doctor follows your glucose', 'Your doctor follows your glucose']);
  });

  it('records nothing for a plain-scope token or a refused request', async () => {
    const grant = await consentWorld(server);
    expect((await ask(grant, 'uma_protection')).status).toBe(200);
    expect((await ask(grant, `${grant.definitionName}:write`)).status).toBe(400);
    expect((await disclosurePage(grant.clientId)).meta.total).toBe(0);
  });

  it('counts the rows it committed on /metrics', async () => {
    const grant = await consentWorld(server);
    const metric = async () => Number(/^disclosures_recorded_total (\d+)/m.exec((await getAdmin(server, '/metrics')).text)?.[1] ?? 'NaN');
    const before = await metric();
    await issued(grant);
    expect(await metric()).toBe(before + 1);
  });
});

describe('reading disclosures', () => {
  it('answers newest first, paged, with meta.total and links, and filters by ticket, requested resource, time and activity', async () => {
    const grant = await consentWorld(server);
    const first = accessTokenClaims(await issued(grant));
    const other = await secondTicket(grant);
    const second = accessTokenClaims(await issued(grant));
    const page = await disclosurePage(grant.clientId, '&page[size]=1');
    expect(page.meta.total).toBe(2);
    expect(page.data.map((row) => row.attributes.jti)).toEqual([second.jti]);
    expect(page.links.next).toContain('page[number]=2');
    expect(page.links.next).toContain(`filter[client]=${grant.clientId}`);
    const byTicket = await disclosurePage(grant.clientId, `&filter[capabilityTicket]=${other.ticket}`);
    expect(byTicket.data.map((row) => row.attributes.jti)).toEqual([second.jti]);
    const byResource = await disclosurePage(grant.clientId, `&filter[requestedResource]=${grant.ids.resource}`);
    expect(byResource.meta.total).toBe(2);
    expect((await disclosurePage(grant.clientId, '&filter[active]=true')).meta.total).toBe(2);
    expect((await disclosurePage(grant.clientId, '&filter[active]=false')).meta.total).toBe(0);
    const until = new Date((first.iat - 1) * 1000).toISOString();
    expect((await disclosurePage(grant.clientId, `&filter[until]=${until}`)).meta.total).toBe(0);
    const since = encodeURIComponent(new Date(first.iat * 1000).toISOString().replace('Z', '+00:00'));
    expect((await disclosurePage(grant.clientId, `&filter[since]=${since}`)).meta.total).toBe(2);
  });

  it.each([
    ['filter[clientId]=x', 'filter[clientId]'],
    ['filter[since]=yesterday', 'filter[since]'],
    ['filter[active]=yes', 'filter[active]'],
    ['filter[capabilityTicket]=abc', 'filter[capabilityTicket]'],
  ])('refuses %s with a 400 naming the parameter', async (query, name) => {
    const response = await getAdmin(server, `/admin/disclosure?${query}`);
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].detail).toContain(name);
  });

  it('answers 404 for an unknown id and 401 without the admin token', async () => {
    expect((await getAdmin(server, '/admin/disclosure/9223372036854775807')).status).toBe(404);
    expect((await request(server.adminUrl).get('/admin/disclosure')).status).toBe(401);
  });

  it('exports every matching row as RFC 4180 CSV, columns in order, cells safe from formula injection', async () => {
    const [purposeId] = freshIds(1);
    const grant = await consentWorld(server);
    // A purpose text a spreadsheet would run as a formula.
    expect((await patchAdmin(server, [replace('purpose', grant.ids.purpose, { attributes: { name: '=HYPERLINK("x"), or not' } })])).status).toBe(200);
    expect(purposeId).toBeGreaterThan(0);
    const claims = accessTokenClaims(await issued(grant));
    const response = await getAdmin(server, `/admin/disclosure?filter[client]=${grant.clientId}`).set('Accept', 'text/csv');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="disclosures.csv"');
    const lines = response.text.split('\r\n');
    expect(lines[0]).toBe(
      'id,jti,clientId,scope,aud,issuedAt,expiresAt,tokenType,jkt,requestId,ticketIds,requestedResourceIds,purposes,withdrawnAt,withdrawnBy,' +
        'organizationId,organizationName,purposeOfUse,subjectName,subjectId,subjectRole,consentReference,actor,parentJti',
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(lines[1]).toContain(`,${claims.jti},${grant.clientId},`);
    expect(lines[1]).toContain(`,Bearer,,`);
    expect(lines[1]).toContain(`,${grant.ticketId},${grant.resourceId},"'=HYPERLINK(""x""), or not",,`);
  });
});

describe('disclosures are read-only', () => {
  it.each([
    [[add('disclosure', { attributes: { jti: 'x' } })]],
    [[replace('disclosure', 1, { attributes: { jti: 'x' } })]],
    [[{ op: 'remove', path: '/disclosure/99999999999' }]],
  ])('refuses a JSON Patch operation on disclosure with 403 read_only', async (operations) => {
    const [{ count: before }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM disclosure');
    const response = await patchAdmin(server, operations);
    expect(response.status).toBe(403);
    expect(bodyOf<JsonApiErrors[]>(response)[0].errors[0].code).toBe('read_only');
    const [{ count: after }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM disclosure');
    expect(after).toBe(before);
  });

  it.each([
    ['post', '/admin/disclosure'],
    ['patch', '/admin/disclosure/1'],
    ['delete', '/admin/disclosure/1'],
  ] as const)('answers %s %s with 405 and Allow: GET', async (method, path) => {
    const admin = request(server.adminUrl);
    const response = await admin[method](path).set('Authorization', server.adminToken).set('Content-Type', JSON_API).send('{"data":{"type":"disclosure"}}');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
    expect(bodyOf<JsonApiErrors>(response).errors[0].status).toBe('405');
  });
});

describe('withdrawal', () => {
  const expectWithdrawnBy = async (grant: ConsentGrant, jti: string, recordType: string, recordId: number) => {
    const [row] = (await disclosurePage(grant.clientId)).data.filter((entry) => entry.attributes.jti === jti);
    expect(row.attributes.withdrawnAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const event = await getAdmin(server, `/admin/audit-event/${row.attributes.withdrawnBy}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(event).data.attributes).toMatchObject({ recordType, recordId: String(recordId), withdrawnTokens: 1 });
  };

  it('withdraws the token when its combination is removed: inactive on another instance, the row says by which change', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    expect(await activeOnSecond(grant, token)).toBe(true);
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
    await expectWithdrawnBy(grant, accessTokenClaims(token).jti, 'requested-resources-capability-tickets', grant.combination);
    expect((await disclosurePage(grant.clientId, '&filter[active]=false')).meta.total).toBe(1);
  });

  it('names the first operation of the request that removed what the token rested on', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    const response = await patchAdmin(server, [
      remove('requested-resources-capability-tickets', grant.combination),
      remove('requested-resource-scopes', grant.ids.binding),
    ]);
    expect(response.status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
    await expectWithdrawnBy(grant, accessTokenClaims(token).jti, 'requested-resources-capability-tickets', grant.combination);
  });

  it('withdraws when the requested-resource-scopes binding is removed', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    expect((await patchAdmin(server, [remove('requested-resource-scopes', grant.ids.binding)])).status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
  });

  it('withdraws when allowedScopes is replaced without the scope, not when it is widened', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    const wider = await patchAdmin(server, [
      replace('uma-client', grant.client, { attributes: { allowedScopes: `${grant.definitionName}:read ${grant.definitionName}:write uma_protection extra` } }),
    ]);
    expect(wider.status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(true);
    const narrower = await patchAdmin(server, [replace('uma-client', grant.client, { attributes: { allowedScopes: 'uma_protection' } })]);
    expect(narrower.status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
    await expectWithdrawnBy(grant, accessTokenClaims(token).jti, 'uma-client', grant.client);
  });

  it('withdraws a token whose aud names a data source when that data source stops serving the definition', async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const token = await issued(grant);
    expect(accessTokenClaims(token).aud).toBe(source.resourceUri);
    expect((await patchAdmin(server, [remove('data-source-resource-definitions', source.pairs[0])])).status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
  });

  it("names the removal of the data source's pair, not of the data source, when one request removes the pair and then the data source", async () => {
    const grant = await consentWorld(server);
    const source = await enrolDataSource(server, [grant.ids.definition]);
    const token = await issued(grant);
    expect(accessTokenClaims(token).aud).toBe(source.resourceUri);
    const response = await patchAdmin(server, [remove('data-source-resource-definitions', source.pairs[0]), remove('data-source', source.id)]);
    expect(response.status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
    await expectWithdrawnBy(grant, accessTokenClaims(token).jti, 'data-source-resource-definitions', source.pairs[0]);
  });

  it('keeps a token another chain still covers, and keeps its chains as issued', async () => {
    const grant = await consentWorld(server);
    const other = await secondTicket(grant);
    const token = await issued(grant);
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(true);
    const [row] = (await disclosurePage(grant.clientId)).data;
    expect(row.attributes.withdrawnAt).toBeNull();
    expect(row.attributes.chains).toHaveLength(2);
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', other.combination)])).status).toBe(200);
    expect(await activeOnSecond(grant, token)).toBe(false);
  });

  it('withdraws nothing for renames, a new lifetime, a new ticket or a refused request', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    const changes = [
      [replace('purpose', grant.ids.purpose, { attributes: { name: 'Renamed purpose' } })],
      [replace('capability-ticket', grant.ids.ticket, { attributes: { ticketName: 'Renamed ticket' } })],
      [replace('requested-resource', grant.ids.resource, { attributes: { maxPermissionDuration: 60 } })],
    ];
    for (const change of changes) expect((await patchAdmin(server, change)).status).toBe(200);
    await secondTicket(grant);
    const refused = await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination), remove('purpose', 2147483000)]);
    expect(refused.status).toBe(404);
    expect(await activeOnSecond(grant, token)).toBe(true);
    const [row] = (await disclosurePage(grant.clientId)).data;
    expect(row.attributes.withdrawnAt).toBeNull();
    expect(row.attributes.chains[0].purpose.name).toBe('Your doctor follows your glucose');
  });

  it('counts withdrawn tokens on /metrics', async () => {
    const grant = await consentWorld(server);
    const metric = async () => Number(/^tokens_withdrawn_total (\d+)/m.exec((await getAdmin(server, '/metrics')).text)?.[1] ?? '0');
    await issued(grant);
    await issued(grant);
    const before = await metric();
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    expect(await metric()).toBe(before + 2);
  });
});

describe('a change whose instance stopped before withdrawing', () => {
  it('has its tokens withdrawn by another instance, and its pending note removed', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    // What a crash right after the change's commit leaves: the change, its audit event and the
    // pending note, committed together, and nobody to sweep for it.
    const auditEventId = await server.dataSource.transaction(async (manager) => {
      await manager.query('DELETE FROM requested_resources_capability_tickets WHERE id = $1', [grant.combination]);
      const [{ id }] = await manager.query<{ id: number }[]>(
        `INSERT INTO audit_event (actor, operation, record_type, record_id, before, after)
         VALUES ('admin', 'remove', 'requested-resources-capability-tickets', $1, '{}', NULL) RETURNING id`,
        [grant.combination],
      );
      await manager.query(`INSERT INTO pending_withdrawal (audit_event_id, created_at) VALUES ($1, now() - interval '10 seconds')`, [id]);
      return id;
    });
    await eventually(async () => ((await activeOnSecond(grant, token)) ? undefined : true), 12_000, 200);
    const [row] = (await disclosurePage(grant.clientId)).data.filter((entry) => entry.attributes.jti === accessTokenClaims(token).jti);
    expect(row.attributes.withdrawnBy).toBe(String(auditEventId));
    await eventually(async () => {
      const pending: unknown[] = await server.dataSource.query('SELECT 1 FROM pending_withdrawal WHERE audit_event_id = $1', [auditEventId]);
      return pending.length === 0 ? true : undefined;
    });
  });

  it('leaves no pending note once a change through the admin interface has run its sweeps', async () => {
    const grant = await consentWorld(server);
    await issued(grant);
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    const [{ id }] = await server.dataSource.query<{ id: number }[]>(
      `SELECT id FROM audit_event WHERE record_type = 'requested-resources-capability-tickets' AND record_id = $1 AND operation = 'remove'`,
      [grant.combination],
    );
    const noted: unknown[] = await server.dataSource.query('SELECT 1 FROM pending_withdrawal WHERE audit_event_id = $1', [id]);
    expect(noted).toHaveLength(1);
    await eventually(async () => {
      const pending: unknown[] = await server.dataSource.query('SELECT 1 FROM pending_withdrawal WHERE audit_event_id = $1', [id]);
      return pending.length === 0 ? true : undefined;
    });
  });
});

describe('a token issued by an instance that had not yet heard of the change', () => {
  it('is withdrawn too, within two seconds of the change', async () => {
    const grant = await consentWorld(server);
    const token = await issued(grant);
    const [row] = (await disclosurePage(grant.clientId)).data;
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    // What a lagging instance would commit now: a row resting on the combination just removed.
    const late = { ...row.attributes, jti: randomUUID() };
    await server.app.get(DisclosuresService).record({
      jti: late.jti,
      clientKey: grant.client,
      clientId: grant.clientId,
      scope: late.scope,
      aud: late.aud,
      resources: [],
      issuedAt: Math.floor(Date.now() / 1000),
      expiresAt: Math.floor(Date.now() / 1000) + 600,
      tokenType: 'Bearer',
      chains: late.chains,
      defaultAudience: server.config.audience,
    });
    expect(await activeOnSecond(grant, token)).toBe(false);
    const withdrawn = await eventually(
      async () => {
        const [found] = (await disclosurePage(grant.clientId)).data.filter((entry) => entry.attributes.jti === late.jti);
        return found?.attributes.withdrawnAt ? found : undefined;
      },
      2_500,
      100,
    );
    const original = bodyOf<DisclosureDocument>(await getAdmin(server, `/admin/disclosure/${row.id}`)).data;
    expect(original.attributes.withdrawnBy).not.toBeNull();
    expect(withdrawn.attributes.withdrawnBy).toBe(original.attributes.withdrawnBy);
  });
});

describe('retention', () => {
  it('deletes disclosures whose token expired more than DISCLOSURE_RETENTION_DAYS ago and the bases they alone named, and keeps the rest', async () => {
    const grant = await consentWorld(server);
    await issued(grant);
    const service = server.app.get(DisclosuresService);
    const old = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    const chains = (await disclosurePage(grant.clientId)).data[0].attributes.chains;
    await service.record({
      jti: old,
      clientKey: grant.client,
      clientId: grant.clientId,
      scope: `${grant.definitionName}:read`,
      // Another audience: a basis of its own, which goes with its last disclosure.
      aud: 'https://retired-source.example',
      resources: [],
      issuedAt: now - 2191 * 86_400 - 60,
      expiresAt: now - 2191 * 86_400,
      tokenType: 'Bearer',
      chains,
      defaultAudience: server.config.audience,
    });
    expect((await disclosurePage(grant.clientId)).meta.total).toBe(2);
    expect(await server.app.get(DisclosureRetention).prune()).toBeGreaterThanOrEqual(1);
    const left = (await disclosurePage(grant.clientId)).data.map((entry) => entry.attributes.jti);
    expect(left).toHaveLength(1);
    expect(left).not.toContain(old);
    const basis: unknown[] = await server.dataSource.query(
      'SELECT 1 FROM disclosure_basis b WHERE NOT EXISTS (SELECT 1 FROM disclosure d WHERE d.basis = b.key)',
    );
    expect(basis).toEqual([]);
    expect((await disclosurePage(grant.clientId)).data[0].attributes.chains).toEqual(chains);
  });
});
