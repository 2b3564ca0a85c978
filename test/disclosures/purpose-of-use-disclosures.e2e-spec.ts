import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DisclosuresService } from '../../src/disclosures/disclosures.service.js';
import type { Hl7B2b } from '../../src/oauth/hl7-b2b.js';
import { AccessDecisions } from '../../src/tickets/access-decisions.js';
import { freshIds, getAdmin, patchAdmin } from '../support/admin.js';
import { bodyOf, type DisclosureDocument, type DisclosureList, type JsonApiErrors, type TokenBody } from '../support/bodies.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const ETREAT = 'urn:oid:2.16.840.1.113883.5.8#ETREAT';
const HPAYMT = 'urn:oid:2.16.840.1.113883.5.8#HPAYMT';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp();
});

afterAll(() => server.close());

/** A consent world whose purpose covers these purpose-of-use codes. */
async function worldFor(purposesOfUse: string[]): Promise<ConsentGrant> {
  const grant = await consentWorld(server);
  const response = await patchAdmin(server, [
    { op: 'replace', path: `/purpose/${grant.ids.purpose}`, value: { type: 'purpose', attributes: { purposesOfUse } } },
  ]);
  expect(response.status).toBe(200);
  return grant;
}

function organizationUri(): string {
  return `https://org-${freshIds(1)[0]}.example/fhir`;
}

/**
 * What the token endpoint does for a UDAP request once it has checked the `hl7-b2b` extension:
 * the decision with the asserted codes, then the disclosure with the extension. Answers the row's id.
 */
async function discloseUdap(grant: ConsentGrant, extension: Hl7B2b): Promise<string> {
  const decision = await server.app
    .get(AccessDecisions)
    .explain(grant.clientId, { scopes: [`${grant.definitionName}:read`], resources: [], purposesOfUse: extension.purpose_of_use });
  expect(decision?.refusal).toBeUndefined();
  const jti = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  await server.app.get(DisclosuresService).record({
    jti,
    clientKey: grant.client,
    clientId: grant.clientId,
    scope: decision!.scopes.join(' '),
    aud: decision!.verdict.aud!,
    resources: [],
    issuedAt: now,
    expiresAt: now + 600,
    tokenType: 'Bearer',
    chains: decision!.chains,
    defaultAudience: server.config.audience,
    hl7B2b: extension,
  });
  const [{ id }] = await server.dataSource.query<{ id: string }[]>('SELECT id::text AS id FROM disclosure WHERE jti = $1', [jti]);
  return id;
}

async function disclosure(id: string): Promise<DisclosureDocument['data']['attributes']> {
  const response = await getAdmin(server, `/admin/disclosure/${id}`);
  expect(response.status).toBe(200);
  return bodyOf<DisclosureDocument>(response).data.attributes;
}

function list(query: string) {
  return getAdmin(server, `/admin/disclosure?${query}`);
}

describe('a UDAP token disclosure', () => {
  it('keeps the asserted hl7-b2b organization, purposes of use, subject and consent reference', async () => {
    const grant = await worldFor([TREAT]);
    const organization = organizationUri();
    const id = await discloseUdap(grant, {
      version: '1',
      organization_id: organization,
      organization_name: 'General Hospital',
      purpose_of_use: [ETREAT, TREAT],
      subject_name: 'Dr. Jane Smith',
      subject_id: 'urn:oid:2.16.840.1.113883.4.6#1234567890',
      subject_role: 'http://nucc.org/provider-taxonomy#207Q00000X',
      consent_reference: ['https://consent.example/1', 'https://consent.example/2'],
    });
    expect(await disclosure(id)).toMatchObject({
      organizationId: organization,
      organizationName: 'General Hospital',
      purposeOfUse: [ETREAT, TREAT],
      subjectName: 'Dr. Jane Smith',
      subjectId: 'urn:oid:2.16.840.1.113883.4.6#1234567890',
      subjectRole: 'http://nucc.org/provider-taxonomy#207Q00000X',
      consentReference: ['https://consent.example/1', 'https://consent.example/2'],
    });
  });

  it('has null for every member the extension left out', async () => {
    const grant = await worldFor([TREAT]);
    const id = await discloseUdap(grant, { version: '1', organization_id: organizationUri(), purpose_of_use: [TREAT] });
    expect(await disclosure(id)).toMatchObject({ organizationName: null, subjectName: null, subjectId: null, subjectRole: null, consentReference: null });
  });

  it('names in each chain the code its purpose matched', async () => {
    const grant = await worldFor([TREAT]);
    const id = await discloseUdap(grant, { version: '1', organization_id: organizationUri(), purpose_of_use: [ETREAT, TREAT] });
    const { chains } = await disclosure(id);
    expect(chains).toHaveLength(1);
    expect(chains[0].purposeOfUse).toBe(TREAT);
  });
});

describe('a disclosure of any other token', () => {
  it('has null for every hl7-b2b member', async () => {
    const grant = await worldFor([TREAT]);
    const token = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` });
    expect(token.status).toBe(200);
    expect(bodyOf<TokenBody>(token).access_token).toBeTruthy();
    const [row] = bodyOf<DisclosureList>(await list(`filter[client]=${grant.clientId}`)).data;
    expect(row.attributes).toMatchObject({
      organizationId: null,
      organizationName: null,
      purposeOfUse: null,
      subjectName: null,
      subjectId: null,
      subjectRole: null,
      consentReference: null,
    });
    expect(row.attributes.chains[0]).not.toHaveProperty('purposeOfUse');
  });
});

describe('the disclosure filters of UDAP tokens', () => {
  it('filter[organization] finds exactly the disclosures of that organization', async () => {
    const grant = await worldFor([TREAT, HPAYMT]);
    const [mine, other] = [organizationUri(), organizationUri()];
    const first = await discloseUdap(grant, { version: '1', organization_id: mine, purpose_of_use: [TREAT] });
    await discloseUdap(grant, { version: '1', organization_id: other, purpose_of_use: [TREAT] });
    const body = bodyOf<DisclosureList>(await list(`filter[organization]=${encodeURIComponent(mine)}`));
    expect(body.meta.total).toBe(1);
    expect(body.data.map((row) => row.id)).toEqual([first]);
  });

  it('filter[purposeOfUse] finds the disclosures that asserted the code among others', async () => {
    const grant = await worldFor([TREAT, HPAYMT]);
    const organization = organizationUri();
    const treating = await discloseUdap(grant, { version: '1', organization_id: organization, purpose_of_use: [ETREAT, TREAT] });
    const paying = await discloseUdap(grant, { version: '1', organization_id: organization, purpose_of_use: [HPAYMT] });
    const by = async (code: string) =>
      bodyOf<DisclosureList>(await list(`filter[organization]=${encodeURIComponent(organization)}&filter[purposeOfUse]=${encodeURIComponent(code)}`)).data.map(
        (row) => row.id,
      );
    expect(await by(TREAT)).toEqual([treating]);
    expect(await by(ETREAT)).toEqual([treating]);
    expect(await by(HPAYMT)).toEqual([paying]);
    expect(await by('urn:oid:2.16.840.1.113883.5.8#PUBHLTH')).toEqual([]);
  });

  it('filter[purposeOfUse] alone finds the code across organizations and no other token', async () => {
    const grant = await worldFor([HPAYMT]);
    const code = HPAYMT;
    const id = await discloseUdap(grant, { version: '1', organization_id: organizationUri(), purpose_of_use: [code] });
    const body = bodyOf<DisclosureList>(await list(`filter[client]=${grant.clientId}&filter[purposeOfUse]=${encodeURIComponent(code)}`));
    expect(body.data.map((row) => row.id)).toEqual([id]);
  });

  it.each([
    ['filter[organization]', 'not-a-uri'],
    ['filter[organization]', ''],
    ['filter[purposeOfUse]', 'TREAT'],
    ['filter[purposeOfUse]', `${TREAT}${'X'.repeat(250)}`],
  ])('answers 400 naming %s for the malformed value "%s"', async (parameter, value) => {
    const response = await list(`${parameter}=${encodeURIComponent(value)}`);
    expect(response.status).toBe(400);
    expect(bodyOf<JsonApiErrors>(response).errors[0].detail).toContain(parameter);
  });
});

describe('the CSV export of UDAP token disclosures', () => {
  it('appends the hl7-b2b columns, arrays joined by " | ", formulas defused', async () => {
    const grant = await worldFor([TREAT]);
    const organization = organizationUri();
    const id = await discloseUdap(grant, {
      version: '1',
      organization_id: organization,
      organization_name: 'Hospital, General',
      purpose_of_use: [TREAT, ETREAT],
      subject_name: '=cmd()',
      consent_reference: ['https://consent.example/1', 'https://consent.example/2'],
    });
    const response = await list(`filter[organization]=${encodeURIComponent(organization)}`).set('Accept', 'text/csv');
    expect(response.status).toBe(200);
    const [header, line, end] = response.text.split('\r\n');
    expect(
      header.endsWith(
        ',withdrawnAt,withdrawnBy,organizationId,organizationName,purposeOfUse,subjectName,subjectId,subjectRole,consentReference,actor,parentJti',
      ),
    ).toBe(true);
    expect(line.startsWith(`${id},`)).toBe(true);
    expect(line.endsWith(`,${organization},"Hospital, General",${TREAT} | ${ETREAT},'=cmd(),,,https://consent.example/1 | https://consent.example/2,,`)).toBe(
      true,
    );
    expect(end).toBe('');
  });

  it('leaves the hl7-b2b columns empty for any other token', async () => {
    const grant = await worldFor([TREAT]);
    await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` })
      .expect(200);
    const response = await list(`filter[client]=${grant.clientId}`).set('Accept', 'text/csv');
    const [, line] = response.text.split('\r\n');
    expect(line.endsWith(',,,,,,,,,')).toBe(true);
  });
});

describe('withdrawal of UDAP token disclosures', () => {
  it('withdraws a UDAP token when its purpose no longer lists the matched code, and keeps the other tokens of that ticket', async () => {
    const grant = await worldFor([TREAT]);
    const udap = await discloseUdap(grant, { version: '1', organization_id: organizationUri(), purpose_of_use: [TREAT] });
    await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` })
      .expect(200);
    const response = await patchAdmin(server, [
      { op: 'replace', path: `/purpose/${grant.ids.purpose}`, value: { type: 'purpose', attributes: { purposesOfUse: [HPAYMT] } } },
    ]);
    expect(response.status).toBe(200);
    expect((await disclosure(udap)).withdrawnAt).not.toBeNull();
    const rows = bodyOf<DisclosureList>(await list(`filter[client]=${grant.clientId}`)).data;
    expect(rows.filter((row) => row.attributes.withdrawnAt === null).map((row) => row.attributes.organizationId)).toEqual([null]);
  });

  it('keeps a UDAP token when its purpose is renamed', async () => {
    const grant = await worldFor([TREAT]);
    const udap = await discloseUdap(grant, { version: '1', organization_id: organizationUri(), purpose_of_use: [TREAT] });
    const response = await patchAdmin(server, [
      { op: 'replace', path: `/purpose/${grant.ids.purpose}`, value: { type: 'purpose', attributes: { name: 'Renamed' } } },
    ]);
    expect(response.status).toBe(200);
    expect((await disclosure(udap)).withdrawnAt).toBeNull();
  });
});
