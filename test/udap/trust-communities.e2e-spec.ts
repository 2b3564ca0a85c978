/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call --
   JSON:API answers are read member by member here (supertest types every body as any). */
import request from 'supertest';
import { getAdmin, JSON_API, JSON_PATCH, patchAdmin } from '../support/admin.js';
import { createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { selfSignedCertificate as certificate } from '../support/udap-anchors.js';
import { createTrustCommunity, patchTrustCommunity, patchUmaClient, postTrustCommunity, type TrustCommunityResource } from '../support/udap-members.js';

// docs/reference/trust-communities.md: UDAP trust communities through the admin interface.
const DAY = 86_400_000;
const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';

let server: TestApp;
let caPem: string;
let secondCaPem: string;
let expiredCaPem: string;
let leafPem: string;

beforeAll(async () => {
  [caPem, secondCaPem, expiredCaPem, leafPem] = await Promise.all([
    certificate('CN=Community A Root', true),
    certificate('CN=Community A Second Root', true),
    certificate('CN=Expired Root', true, Date.now() - DAY),
    certificate('CN=Not a CA', false),
  ]);
  server = await startTestApp();
}, 120_000);

afterAll(async () => {
  await server?.close();
});

let uriCount = 0;
const freshUri = () => `https://community.example/udap/${Date.now()}-${uriCount++}`;

function attributesOf(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Community A', communityUri: freshUri(), anchors: [caPem], scopeCeiling: 'system/Patient.rs system/Observation.rs', ...overrides };
}

/** A client of the community, as UDAP registration stores one (docs/reference/trust-communities.md); answers its row id. */
async function member(communityId: string, allowedScopes = 'system/Patient.rs'): Promise<number> {
  const client = await createClient(server.app, { allowedScopes });
  // TypeORM answers an UPDATE … RETURNING as [rows, count].
  const [rows] = await server.dataSource.query<[{ id: number }[], number]>(
    `UPDATE client SET trust_community_id = $1, udap_issuer = $2, organization = 'CN=Member Clinic,O=Member', registered_via = 'udap'
     WHERE client_id = $3 RETURNING id`,
    [Number(communityId), `https://member.example/${client.clientId}`, client.clientId],
  );
  return rows[0].id;
}

async function created(overrides: Record<string, unknown> = {}): Promise<TrustCommunityResource> {
  return createTrustCommunity(server, attributesOf(overrides));
}

async function tableCounts(): Promise<{ communities: number; events: number }> {
  const [{ communities, events }] = await server.dataSource.query<{ communities: number; events: number }[]>(
    `SELECT (SELECT count(*)::int FROM trust_community) AS communities, (SELECT count(*)::int FROM audit_event) AS events`,
  );
  return { communities, events };
}

async function auditEvents(id: string): Promise<{ actor: string; operation: string; before: unknown; after: unknown }[]> {
  return server.dataSource.query(
    `SELECT actor, operation, before, after FROM audit_event WHERE record_type = 'trust-community' AND record_id = $1 ORDER BY id`,
    [Number(id)],
  );
}

describe('creating a trust community', () => {
  it('stores a community with a CA anchor, answers its defaults and clientCount 0, and audits it', async () => {
    const communityUri = freshUri();
    const response = await postTrustCommunity(server, attributesOf({ communityUri, purposesOfUse: [TREAT] }));
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      type: 'trust-community',
      attributes: {
        name: 'Community A',
        communityUri,
        anchors: [caPem],
        scopeCeiling: 'system/Patient.rs system/Observation.rs',
        purposesOfUse: [TREAT],
        revocationCheck: 'require',
        accessTokenLifetime: 3600,
        enabled: true,
        clientCount: 0,
      },
    });
    const id = response.body.data.id as string;
    const [row] = await server.dataSource.query<{ community_uri: string; anchors: string[] }[]>(
      'SELECT community_uri, anchors FROM trust_community WHERE id = $1',
      [Number(id)],
    );
    expect(row).toEqual({ community_uri: communityUri, anchors: [caPem] });
    const events = await auditEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor: expect.stringMatching(/^admin-token@/) as unknown,
      operation: 'add',
      before: null,
      after: { communityUri, anchors: [caPem] },
    });
  });

  it('takes every attribute given, over JSON Patch as well', async () => {
    const communityUri = freshUri();
    const response = await patchAdmin(server, [
      {
        op: 'add',
        path: '/trust-community',
        value: {
          type: 'trust-community',
          attributes: {
            ...attributesOf({ communityUri }),
            anchors: [caPem, secondCaPem],
            revocationCheck: 'off',
            accessTokenLifetime: 300,
            enabled: false,
            purposesOfUse: [],
          },
        },
      },
    ]);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_PATCH);
    expect(response.body[0].data.attributes).toMatchObject({ anchors: [caPem, secondCaPem], revocationCheck: 'off', accessTokenLifetime: 300, enabled: false });
  });
});

describe('refused communities (422 naming the attribute, nothing stored)', () => {
  it.each([
    ['a name that is empty', { name: '' }, 'name'],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, 'name'],
    ['no name', { name: undefined }, 'name'],
    ['an anchor that is not a CA', { anchors: () => [leafPem] }, 'anchors'],
    ['an expired anchor', { anchors: () => [expiredCaPem] }, 'anchors'],
    ['a second anchor that is not a CA', { anchors: () => [caPem, leafPem] }, 'anchors'],
    ['an anchor that is not PEM', { anchors: ['not a certificate'] }, 'anchors'],
    ['empty anchors', { anchors: [] }, 'anchors'],
    ['no anchors', { anchors: undefined }, 'anchors'],
    ['a relative communityUri', { communityUri: '/udap/community' }, 'communityUri'],
    ['a communityUri with white space', { communityUri: 'https://community.example/a b' }, 'communityUri'],
    ['no communityUri', { communityUri: undefined }, 'communityUri'],
    ['an empty scopeCeiling', { scopeCeiling: '' }, 'scopeCeiling'],
    ['a scopeCeiling with a quote', { scopeCeiling: 'system/Patient.rs "x"' }, 'scopeCeiling'],
    ['no scopeCeiling', { scopeCeiling: undefined }, 'scopeCeiling'],
    ['a purpose of use that is not a URI', { purposesOfUse: ['TREAT'] }, 'purposesOfUse'],
    ['an empty purpose of use', { purposesOfUse: [''] }, 'purposesOfUse'],
    ['a purpose of use with white space', { purposesOfUse: ['urn:oid:2.16.840.1.113883.5.8#TRE AT'] }, 'purposesOfUse'],
    ['a purpose of use over 255 characters', { purposesOfUse: [`urn:x:${'a'.repeat(250)}`] }, 'purposesOfUse'],
    ['another revocationCheck', { revocationCheck: 'optional' }, 'revocationCheck'],
    ['an accessTokenLifetime of 0', { accessTokenLifetime: 0 }, 'accessTokenLifetime'],
    ['an accessTokenLifetime of 3601', { accessTokenLifetime: 3601 }, 'accessTokenLifetime'],
    ['an accessTokenLifetime that is not whole', { accessTokenLifetime: 1.5 }, 'accessTokenLifetime'],
  ])('refuses %s', async (_case, overrides, attribute) => {
    const before = await tableCounts();
    const given = Object.fromEntries(
      Object.entries(overrides).map(([name, value]) => [name, typeof value === 'function' ? (value as () => unknown)() : value]),
    );
    const response = await postTrustCommunity(server, attributesOf(given));
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ status: '422', source: { pointer: `/data/attributes/${attribute}` } });
    expect(await tableCounts()).toEqual(before);
  });

  it('names the anchor and its problem', async () => {
    const response = await postTrustCommunity(server, attributesOf({ anchors: [caPem, expiredCaPem] }));
    expect(response.status).toBe(422);
    expect(response.body.errors[0].detail).toBe('anchors[1]: the anchor has expired');
  });

  it.each([
    ['a name that is a number', { name: 7 }, 'name'],
    ['anchors that are a string', { anchors: 'PEM' }, 'anchors'],
    ['purposesOfUse that are a string', { purposesOfUse: TREAT }, 'purposesOfUse'],
    ['an accessTokenLifetime that is a string', { accessTokenLifetime: '300' }, 'accessTokenLifetime'],
    ['enabled that is a string', { enabled: 'yes' }, 'enabled'],
    ['clientCount (read-only)', { clientCount: 3 }, 'clientCount'],
    ['an unknown attribute', { colour: 'red' }, 'colour'],
  ])('answers 400 for %s', async (_case, overrides, attribute) => {
    const before = await tableCounts();
    const response = await postTrustCommunity(server, attributesOf(overrides));
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ status: '400', source: { pointer: `/data/attributes/${attribute}` } });
    expect(await tableCounts()).toEqual(before);
  });

  it('answers 409 naming communityUri for a community URI another community has, and stores nothing', async () => {
    const first = await created();
    const before = await tableCounts();
    const response = await postTrustCommunity(server, attributesOf({ communityUri: first.attributes.communityUri }));
    expect(response.status).toBe(409);
    expect(response.body.errors[0]).toMatchObject({ status: '409', source: { pointer: '/data/attributes/communityUri' } });
    expect(await tableCounts()).toEqual(before);
  });

  it('refuses the whole JSON Patch request when one community breaks a rule', async () => {
    const before = await tableCounts();
    const response = await patchAdmin(server, [
      { op: 'add', path: '/trust-community', value: { type: 'trust-community', attributes: attributesOf() } },
      { op: 'add', path: '/trust-community', value: { type: 'trust-community', attributes: attributesOf({ accessTokenLifetime: 0 }) } },
    ]);
    expect(response.status).toBe(422);
    expect(response.body[1].errors[0].source.pointer).toBe('/1/value/attributes/accessTokenLifetime');
    expect(await tableCounts()).toEqual(before);
  });
});

describe('replacing and removing', () => {
  it('replaces only the attributes named, audits before and after, and counts the version', async () => {
    const community = await created();
    const response = await patchTrustCommunity(server, community.id, { anchors: [secondCaPem], enabled: false, purposesOfUse: [TREAT] });
    expect(response.status).toBe(200);
    expect(response.body.data.attributes).toMatchObject({
      name: 'Community A',
      communityUri: community.attributes.communityUri,
      anchors: [secondCaPem],
      enabled: false,
      purposesOfUse: [TREAT],
    });
    expect(response.body.data.meta.version).toBe(2);
    const [, replaced] = await auditEvents(community.id);
    expect(replaced).toMatchObject({ operation: 'replace', before: { anchors: [caPem], enabled: true }, after: { anchors: [secondCaPem], enabled: false } });
  });

  it('refuses a replace that breaks a rule, or takes another community URI, and changes nothing', async () => {
    const community = await created();
    const other = await created();
    for (const [attributes, status, attribute] of [
      [{ anchors: [expiredCaPem] }, 422, 'anchors'],
      [{ accessTokenLifetime: 3601 }, 422, 'accessTokenLifetime'],
      [{ name: null }, 400, 'name'],
      [{ communityUri: other.attributes.communityUri }, 409, 'communityUri'],
    ] as const) {
      const response = await patchTrustCommunity(server, community.id, attributes);
      expect([attribute, response.status]).toEqual([attribute, status]);
      expect(response.body.errors[0].source.pointer).toBe(`/data/attributes/${attribute}`);
    }
    const [row] = await server.dataSource.query<{ version: number; anchors: string[] }[]>('SELECT version, anchors FROM trust_community WHERE id = $1', [
      Number(community.id),
    ]);
    expect(row).toEqual({ version: 1, anchors: [caPem] });
  });

  it('counts the clients registered through a community', async () => {
    const community = await created();
    await member(community.id);
    await member(community.id);
    const response = await getAdmin(server, `/admin/trust-community/${community.id}`);
    expect(response.body.data.attributes.clientCount).toBe(2);
  });

  it('refuses to remove a community that still has a client (409), and keeps it', async () => {
    const community = await created();
    await member(community.id);
    const response = await request(server.adminUrl).delete(`/admin/trust-community/${community.id}`).set('Authorization', server.adminToken);
    expect(response.status).toBe(409);
    expect(response.body.errors[0].detail).toContain('still has a client');
    expect(await server.dataSource.query('SELECT id FROM trust_community WHERE id = $1', [Number(community.id)])).toHaveLength(1);
  });

  it('removes a community without clients and audits what it was', async () => {
    const community = await created();
    const response = await request(server.adminUrl).delete(`/admin/trust-community/${community.id}`).set('Authorization', server.adminToken);
    expect(response.status).toBe(204);
    expect(await server.dataSource.query('SELECT id FROM trust_community WHERE id = $1', [Number(community.id)])).toEqual([]);
    const [, removed] = await auditEvents(community.id);
    expect(removed).toMatchObject({ operation: 'remove', before: { communityUri: community.attributes.communityUri }, after: null });
  });

  it('answers 404 for a community that does not exist', async () => {
    const response = await request(server.adminUrl).delete('/admin/trust-community/2147483000').set('Authorization', server.adminToken);
    expect(response.status).toBe(404);
  });
});

describe('reading communities', () => {
  it('filters by name, communityUri and enabled, and sorts', async () => {
    const name = `Filtered ${Date.now()}`;
    const a = await created({ name, enabled: true });
    const b = await created({ name, enabled: false });
    const byName = await getAdmin(server, `/admin/trust-community?filter[name]=${encodeURIComponent(name)}&sort=-id`);
    expect(byName.status).toBe(200);
    expect(byName.body.data.map((record: { id: string }) => record.id)).toEqual([b.id, a.id]);
    const byUri = await getAdmin(server, `/admin/trust-community?filter[communityUri]=${encodeURIComponent(String(a.attributes.communityUri))}`);
    expect(byUri.body.data.map((record: { id: string }) => record.id)).toEqual([a.id]);
    const disabled = await getAdmin(server, `/admin/trust-community?filter[name]=${encodeURIComponent(name)}&filter[enabled]=false`);
    expect(disabled.body.data.map((record: { id: string }) => record.id)).toEqual([b.id]);
    const one = await getAdmin(server, `/admin/trust-community/${a.id}`);
    expect(one.body.data.attributes.clientCount).toBe(0);
  });

  it('answers 400 for a filter on an attribute that has none', async () => {
    const response = await getAdmin(server, '/admin/trust-community?filter[anchors]=x');
    expect(response.status).toBe(400);
  });
});

describe("a community's clients in the admin interface", () => {
  it('shows registeredVia udap, udapIssuer, organization and the trustCommunity relationship', async () => {
    const community = await created();
    const id = await member(community.id);
    const response = await getAdmin(server, `/admin/uma-client/${id}`);
    expect(response.body.data.attributes).toMatchObject({ registeredVia: 'udap', organization: 'CN=Member Clinic,O=Member' });
    expect(response.body.data.attributes.udapIssuer).toMatch(/^https:\/\/member\.example\//);
    expect(response.body.data.relationships.trustCommunity).toEqual({ data: { type: 'trust-community', id: community.id } });
  });

  it("lists a community's clients with filter[trustCommunity]", async () => {
    const community = await created();
    const id = await member(community.id);
    const response = await getAdmin(server, `/admin/uma-client?filter[trustCommunity]=${community.id}`);
    expect(response.body.data.map((client: { id: string }) => client.id)).toEqual([String(id)]);
  });

  it("lets an administrator narrow a client's allowedScopes within the ceiling", async () => {
    const community = await created();
    const id = await member(community.id, 'system/Patient.rs system/Observation.rs');
    const response = await patchUmaClient(server, id, { allowedScopes: 'system/Observation.rs' });
    expect(response.status).toBe(200);
    expect(response.body.data.attributes.allowedScopes).toBe('system/Observation.rs');
  });

  it("refuses to widen a client's allowedScopes past its community's ceiling (422 naming the scope), and changes nothing", async () => {
    const community = await created();
    const id = await member(community.id);
    const response = await patchUmaClient(server, id, { allowedScopes: 'system/Patient.rs system/Encounter.rs' });
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/allowedScopes' } });
    expect(response.body.errors[0].detail).toContain('system/Encounter.rs is outside the scopeCeiling');
    const [row] = await server.dataSource.query<{ allowed_scopes: string }[]>(
      'SELECT m.allowed_scopes FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.id = $1',
      [id],
    );
    expect(row.allowed_scopes).toBe('system/Patient.rs');
  });

  it('refuses a write of udapIssuer, organization or the trustCommunity relationship (400)', async () => {
    const community = await created();
    const id = await member(community.id);
    expect((await patchUmaClient(server, id, { udapIssuer: 'https://other.example/' })).status).toBe(400);
    expect((await patchUmaClient(server, id, { organization: 'CN=Other' })).status).toBe(400);
    const relationship = await request(server.adminUrl)
      .patch(`/admin/uma-client/${id}`)
      .set('Authorization', server.adminToken)
      .set('Content-Type', JSON_API)
      .send(JSON.stringify({ data: { type: 'uma-client', id: String(id), relationships: { trustCommunity: { data: null } } } }));
    expect(relationship.status).toBe(400);
  });
});
