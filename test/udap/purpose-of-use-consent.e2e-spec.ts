/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   OAuth and JSON:API answers are read member by member here (supertest types every body as any). */
import { decodeJwt } from 'jose';
import { add, freshIds, getAdmin, patchAdmin, ref } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CrlServer, testLeaf, testRoot, type TestIssued } from '../support/udap-anchors.js';
import {
  clientRowId,
  consentTicketOperations,
  createTrustCommunity,
  hl7B2b,
  postTokenForm,
  registerUdapMember,
  udapClientAssertion,
  udapTokenParameters,
} from '../support/udap-members.js';

// docs/concepts/consent-tickets.md#purpose-of-use and docs/reference/trust-communities.md#token-request:
// a UDAP member's resource scope is covered only by a ticket whose purpose lists a purpose of use
// the request asserts, end to end: registration, token request, token, disclosure.

const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const ETREAT = 'urn:oid:2.16.840.1.113883.5.8#ETREAT';

let server: TestApp;
let crls: CrlServer;
let sanCount = 0;

beforeAll(async () => {
  crls = await CrlServer.start();
  // The test CRLs are served over http on loopback (the guards of jwks_uri, JWKS_URI_ALLOW_HTTP).
  server = await startTestApp({ UDAP: 'true', JWKS_URI_ALLOW_HTTP: 'true' });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await crls?.close();
});

type Member = { clientId: string; row: number; leaf: TestIssued; scope: string };

/**
 * A resource definition with its scope `read`, a community whose ceiling holds it, a member that
 * registered it, and a consent ticket of that member whose purpose lists `purposesOfUse`.
 */
async function memberWithTicket(purposesOfUse: string[]): Promise<Member> {
  const [definition, read, purpose, ticket, resource, binding, combination] = freshIds(7);
  const scope = `lab-results-${definition}:read`;
  // A community of its own (its own root): a registration joins the first community its chain leads to.
  const root = await testRoot(`CN=Purpose Community Root ${definition}`, crls);
  const made = await patchAdmin(server, [
    add('resource-definition', { id: definition, attributes: { name: `lab-results-${definition}` } }),
    add('scope', { id: read, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
  ]);
  expect(made.status).toBe(200);
  await createTrustCommunity(server, { name: 'Purposes', anchors: [root.pem], scopeCeiling: scope, purposesOfUse: [TREAT, ETREAT] });

  const san = `https://lab.example/udap/${Date.now()}-${sanCount++}`;
  const leaf = await testLeaf('CN=Lab Example', san, root);
  const registered = await registerUdapMember(server, { leaf, san, clientName: 'Lab Example', contacts: ['mailto:it@lab.example'], scope });
  expect(registered.body).toHaveProperty('client_id');
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id as string;
  const row = await clientRowId(server, clientId);

  const consent = await patchAdmin(
    server,
    consentTicketOperations(
      { client: row, definition, read, purpose, ticket, resource, binding, combination },
      { purpose: 'Lab results for treatment', ticket: 'Lab results', requestedResourceId: `lab-results-of-patient-${resource}` },
      purposesOfUse,
    ),
  );
  expect(consent.status).toBe(200);
  return { clientId, row, leaf, scope };
}

async function udapTokenRequest(member: Member, purposeOfUse: string[]) {
  const assertion = await udapClientAssertion(server, { leaf: member.leaf, chain: [] }, member.clientId, {
    extensions: { 'hl7-b2b': hl7B2b({ id: 'https://lab.example/organization', name: 'Lab Example' }, purposeOfUse) },
  });
  return postTokenForm(server, udapTokenParameters(assertion, { scope: member.scope }));
}

async function disclosuresOf(member: Member): Promise<Record<string, unknown>[]> {
  const response = await getAdmin(server, `/admin/disclosure?filter[client]=${encodeURIComponent(member.clientId)}`);
  expect(response.status).toBe(200);
  return (response.body.data as { attributes: Record<string, unknown> }[]).map((record) => record.attributes);
}

describe("a UDAP member's resource scope", () => {
  it("is granted when its ticket's purpose lists the asserted purpose of use: permissions name the code, the disclosure the organization", async () => {
    const member = await memberWithTicket([TREAT]);
    const response = await udapTokenRequest(member, [TREAT]);
    expect(response.status).toBe(200);
    const claims = decodeJwt(response.body.access_token as string);
    expect(claims.permissions).toEqual([expect.objectContaining({ purpose_of_use: TREAT })]);
    expect(claims.extensions).toMatchObject({ 'hl7-b2b': { organization_id: 'https://lab.example/organization', purpose_of_use: [TREAT] } });
    const [disclosed] = await disclosuresOf(member);
    expect(disclosed).toMatchObject({
      jti: claims.jti,
      organizationId: 'https://lab.example/organization',
      organizationName: 'Lab Example',
      purposeOfUse: [TREAT],
    });
  });

  it('is refused (invalid_scope naming the purpose of use) when no ticket covers the asserted purpose of use, and nothing is disclosed', async () => {
    const member = await memberWithTicket([TREAT]);
    const response = await udapTokenRequest(member, [ETREAT]);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_scope');
    expect(response.body.error_description).toContain(ETREAT);
    expect(await disclosuresOf(member)).toEqual([]);
  });

  it("is refused when its ticket's purpose lists no purpose of use at all ([] covers no UDAP request)", async () => {
    const member = await memberWithTicket([]);
    const response = await udapTokenRequest(member, [TREAT]);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_scope');
    expect(response.body.error_description).toContain(TREAT);
  });
});
