import request from 'supertest';
import { add, freshIds, getAdmin, patchAdmin, ref, rowCounts } from '../support/admin.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { bodyOf, type ExplainVerdict, type JsonApiError, type JsonApiErrors, type PatchResult } from '../support/bodies.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const ETREAT = 'urn:oid:2.16.840.1.113883.5.8#ETREAT';
const HPAYMT = 'urn:oid:2.16.840.1.113883.5.8#HPAYMT';

type PurposeDocument = { data: { id: string; attributes: { name: string; purposesOfUse: string[] } } };

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

function explain(query: Record<string, string | string[]>) {
  return request(server.adminUrl).get('/admin/explain').query(query).set('Authorization', server.adminToken).set('ApiVersion', 'v1.0');
}

/** The first error of a refused JSON Patch request's first operation. */
function patchError(response: { body: unknown }): JsonApiError {
  const error = bodyOf<PatchResult[]>(response)[0].errors?.[0];
  if (!error) throw new Error(`no error in ${JSON.stringify(response.body)}`);
  return error;
}

async function purposeOf(id: number): Promise<PurposeDocument['data']['attributes']> {
  const response = await getAdmin(server, `/admin/purpose/${id}`).set('ApiVersion', 'v1.0');
  expect(response.status).toBe(200);
  return bodyOf<PurposeDocument>(response).data.attributes;
}

async function setPurposesOfUse(grant: ConsentGrant, purposesOfUse: string[]): Promise<void> {
  const response = await patchAdmin(server, [
    { op: 'replace', path: `/purpose/${grant.ids.purpose}`, value: { type: 'purpose', attributes: { purposesOfUse } } },
  ]);
  expect(response.status).toBe(200);
}

describe('the purposesOfUse attribute of a purpose', () => {
  it('is an empty list when a purpose is made without it', async () => {
    const [id] = freshIds(1);
    expect((await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Follow-up' } })])).status).toBe(200);
    expect(await purposeOf(id)).toEqual({ name: 'Follow-up', purposesOfUse: [] });
  });

  it('keeps the codes given, in order, each once', async () => {
    const [id] = freshIds(1);
    const response = await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Care', purposesOfUse: [TREAT, ETREAT, TREAT] } })]);
    expect(response.status).toBe(200);
    expect((await purposeOf(id)).purposesOfUse).toEqual([TREAT, ETREAT]);
  });

  it('is replaced by a replace operation and left alone by one that does not name it', async () => {
    const [id] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Care', purposesOfUse: [TREAT] } })]);
    await patchAdmin(server, [{ op: 'replace', path: `/purpose/${id}`, value: { type: 'purpose', attributes: { name: 'Care again' } } }]);
    expect(await purposeOf(id)).toEqual({ name: 'Care again', purposesOfUse: [TREAT] });
    await patchAdmin(server, [{ op: 'replace', path: `/purpose/${id}`, value: { type: 'purpose', attributes: { purposesOfUse: [HPAYMT] } } }]);
    expect((await purposeOf(id)).purposesOfUse).toEqual([HPAYMT]);
  });

  it('is refused with 422 naming the attribute and the item when a code is not in the URI form, storing nothing', async () => {
    const [id] = freshIds(1);
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Care', purposesOfUse: [TREAT, 'TREAT'] } })]);
    expect(response.status).toBe(422);
    const error = patchError(response);
    expect(error.detail).toContain('purposesOfUse');
    expect(error.detail).toContain('urn:oid:2.16.840.1.113883.5.8#TREAT');
    expect(error.source?.pointer).toBe('/0/value/attributes/purposesOfUse/1');
    expect(await rowCounts(server)).toEqual(before);
  });

  it('is refused with 422 for an empty code', async () => {
    const [id] = freshIds(1);
    const response = await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Care', purposesOfUse: [''] } })]);
    expect(response.status).toBe(422);
    expect(patchError(response).detail).toContain('purposesOfUse');
  });

  it.each([
    ['a string instead of an array', TREAT],
    ['a number in the array', [TREAT, 7]],
    ['null', null],
  ])('is refused with 400 naming the attribute for %s', async (_, purposesOfUse) => {
    const [id] = freshIds(1);
    const before = await rowCounts(server);
    const response = await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Care', purposesOfUse } })]);
    expect(response.status).toBe(400);
    expect(patchError(response).detail).toContain('purposesOfUse');
    expect(await rowCounts(server)).toEqual(before);
  });

  it('is refused with 400 for a code longer than 255 characters', async () => {
    const [id] = freshIds(1);
    const response = await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Care', purposesOfUse: [`${TREAT}${'X'.repeat(250)}`] } })]);
    expect(response.status).toBe(400);
    expect(patchError(response).detail).toContain('purposesOfUse');
  });

  it('is not a filter member of the purpose collection (arrays are not filtered)', async () => {
    const response = await getAdmin(server, `/admin/purpose?filter[purposesOfUse]=${encodeURIComponent(TREAT)}`).set('ApiVersion', 'v1.0');
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].source?.parameter).toBe('filter[purposesOfUse]');
  });

  it('is recorded in the audit event of the change', async () => {
    const [id] = freshIds(1);
    await patchAdmin(server, [add('purpose', { id, attributes: { name: 'Audited', purposesOfUse: [TREAT] } })]);
    const [row] = await server.dataSource.query<{ after: { purposesOfUse: string[] } }[]>(
      `SELECT after FROM audit_event WHERE record_type = 'purpose' AND record_id = $1 ORDER BY id DESC LIMIT 1`,
      [id],
    );
    expect(row.after.purposesOfUse).toEqual([TREAT]);
  });
});

describe('GET /admin/explain with purposeOfUse', () => {
  it('names the matching chain and the code its purpose matched', async () => {
    const grant = await consentWorld(server);
    await setPurposesOfUse(grant, [HPAYMT, TREAT]);
    const response = await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: [ETREAT, TREAT] });
    expect(response.status).toBe(200);
    const body = bodyOf<ExplainVerdict & { purposesOfUse: string[] }>(response);
    expect(body.granted).toBe(true);
    expect(body.purposesOfUse).toEqual([ETREAT, TREAT]);
    expect(body.scopes[0].covering).toEqual([
      expect.objectContaining({ capabilityTicket: expect.objectContaining({ ticketId: grant.ticketId }) as unknown, purposeOfUse: TREAT }) as unknown,
    ]);
  });

  it('says the purpose of use is the missing link when no ticket purpose lists an asserted code', async () => {
    const grant = await consentWorld(server);
    await setPurposesOfUse(grant, [TREAT]);
    const body = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: HPAYMT }));
    expect(body.granted).toBe(false);
    expect(body.scopes[0]).toMatchObject({ granted: false, covering: [] });
    expect(body.scopes[0].missing).toBe(
      `no capability ticket of ${grant.clientId} combined with requested resource ${grant.ids.resource} has a purpose whose purposesOfUse holds "${HPAYMT}": no consent ticket covers purpose of use "${HPAYMT}"`,
    );
  });

  it('refuses every asserted code when the purpose lists none', async () => {
    const grant = await consentWorld(server);
    const body = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: TREAT }));
    expect(body.granted).toBe(false);
    expect(body.scopes[0].missing).toContain('purpose of use');
  });

  it('grants as before without purposeOfUse, naming no purpose of use', async () => {
    const grant = await consentWorld(server);
    const body = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read` }));
    expect(body.granted).toBe(true);
    expect(body).not.toHaveProperty('purposesOfUse');
    expect(body.scopes[0].covering?.[0]).not.toHaveProperty('purposeOfUse');
  });

  it('names an earlier missing link before the purpose of use', async () => {
    const grant = await consentWorld(server, { ticket: false });
    const body = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: TREAT }));
    expect(body.scopes[0].missing).toMatch(/^no requested resource of /);
  });

  it('answers 400 naming the parameter for a code that is not in the URI form', async () => {
    const grant = await consentWorld(server);
    const response = await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: 'TREAT' });
    expect(response.status).toBe(400);
    const [error] = bodyOf<JsonApiErrors>(response).errors;
    expect(error.source?.parameter).toBe('purposeOfUse');
    expect(error.detail).toContain('"TREAT"');
  });

  it('answers 400 for more than 100 codes', async () => {
    const grant = await consentWorld(server);
    const codes = Array.from({ length: 101 }, (_, index) => `${TREAT}${index}`);
    const response = await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: codes });
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].source?.parameter).toBe('purposeOfUse');
  });

  it('leaves a ticket of another purpose out of the covering list', async () => {
    const grant = await consentWorld(server);
    await setPurposesOfUse(grant, [TREAT]);
    const [purpose, ticket, combination] = freshIds(3);
    const added = await patchAdmin(server, [
      add('purpose', { id: purpose, attributes: { name: 'Billing', purposesOfUse: [HPAYMT] } }),
      add('capability-ticket', {
        id: ticket,
        attributes: { ticketId: `billing-${ticket}`, ticketName: 'Billing' },
        relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', grant.client) },
      }),
      add('requested-resources-capability-tickets', {
        id: combination,
        relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', grant.ids.resource) },
      }),
    ]);
    expect(added.status).toBe(200);
    const body = bodyOf<ExplainVerdict>(await explain({ client: grant.clientId, scope: `${grant.definitionName}:read`, purposeOfUse: HPAYMT }));
    expect(body.granted).toBe(true);
    expect(body.scopes[0].covering).toEqual([
      expect.objectContaining({
        capabilityTicket: expect.objectContaining({ ticketId: `billing-${ticket}` }) as unknown,
        requestedResourcesCapabilityTickets: [String(combination)],
        purposeOfUse: HPAYMT,
      }) as unknown,
    ]);
  });
});
