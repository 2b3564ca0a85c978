/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   OAuth and JSON:API answers are read member by member here (supertest types every body as any). */
import { decodeJwt } from 'jose';
import request from 'supertest';
import { add, freshIds, getAdmin, patchAdmin, ref } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { clientSecretOf } from '../support/bodies.js';
import { enrolDataSource } from '../support/consent.js';
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

// docs/guides/token-exchange.md#consent-decided-again: a UDAP member's token, exchanged by the data
// source it was meant for, keeps its purpose of use: the next hop is decided and accounted for it.

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const ORGANIZATION = 'https://clinic.example/Organization/7';

let server: TestApp;
let crls: CrlServer;

beforeAll(async () => {
  crls = await CrlServer.start();
  // The test CRLs are served over http on loopback (the guards of jwks_uri, JWKS_URI_ALLOW_HTTP).
  server = await startTestApp({ UDAP: 'true', JWKS_URI_ALLOW_HTTP: 'true' });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await crls?.close();
});

/** A member registered in a community of its own whose ticket's purpose covers `purposesOfUse`, and two data sources A→B serving its definition. */
async function world(purposesOfUse: string[]) {
  const [definition, read, purpose, ticket, resource, binding, combination, actor, delegation] = freshIds(9);
  const scope = `referrals-${definition}:read`;
  expect(
    (
      await patchAdmin(server, [
        add('resource-definition', { id: definition, attributes: { name: `referrals-${definition}` } }),
        add('scope', { id: read, attributes: { name: 'read' }, relationships: { resourceDefinition: ref('resource-definition', definition) } }),
      ])
    ).status,
  ).toBe(200);
  const root = await testRoot(`CN=Exchange Community Root ${definition}`, crls);
  await createTrustCommunity(server, { name: 'Exchange', anchors: [root.pem], scopeCeiling: scope, purposesOfUse: [TREAT] });
  const san = `https://clinic.example/udap/${definition}`;
  const leaf = await testLeaf('CN=Clinic Example', san, root);
  const registered = await registerUdapMember(server, { leaf, san, clientName: 'Clinic Example', contacts: ['mailto:it@clinic.example'], scope });
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id as string;
  const row = await clientRowId(server, clientId);

  const actorMade = await patchAdmin(server, [
    add('uma-client', {
      id: actor,
      attributes: {
        clientId: `udap-exchange-actor-${actor}`,
        clientName: 'Facade',
        allowedScopes: 'uma_protection',
        grantTypes: `client_credentials ${EXCHANGE}`,
      },
    }),
  ]);
  expect(actorMade.status).toBe(200);
  const actorCredentials = { clientId: `udap-exchange-actor-${actor}`, secret: clientSecretOf(actorMade) };
  const a = await enrolDataSource(server, [definition], { umaClient: actor });
  const b = await enrolDataSource(server, [definition]);
  const consent = await patchAdmin(server, [
    ...consentTicketOperations(
      { client: row, definition, read, purpose, ticket, resource, binding, combination },
      { purpose: 'Referrals for treatment', ticket: 'Referrals', requestedResourceId: `referrals-${resource}` },
      purposesOfUse,
    ),
    add('data-source-delegation', { id: delegation, relationships: { from: ref('data-source', a.id), to: ref('data-source', b.id) } }),
  ]);
  expect(consent.status).toBe(200);
  return { clientId, leaf, scope, a, b, actor: actorCredentials };
}

async function memberToken(member: { clientId: string; leaf: TestIssued; scope: string }, resource: string): Promise<string> {
  const assertion = await udapClientAssertion(server, { leaf: member.leaf, chain: [] }, member.clientId, {
    extensions: { 'hl7-b2b': hl7B2b({ id: ORGANIZATION, name: 'Clinic Example' }, [TREAT]) },
  });
  const response = await postTokenForm(server, udapTokenParameters(assertion, { scope: member.scope, resource }));
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

describe("a UDAP member's token exchanged by a data source", () => {
  it('keeps its purpose of use and organization: the new token, its permissions and its disclosure name them', async () => {
    const member = await world([TREAT]);
    const subjectToken = await memberToken(member, member.a.resourceUri);
    const response = await request(server.url)
      .post('/oauth2/token')
      .set('Authorization', basic(member.actor.clientId, member.actor.secret))
      .type('form')
      .send(
        new URLSearchParams({
          grant_type: EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          resource: member.b.resourceUri,
        }).toString(),
      );
    expect(response.status).toBe(200);
    const claims = decodeJwt(response.body.access_token as string);
    expect(claims).toMatchObject({ sub: member.clientId, aud: member.b.resourceUri, act: { sub: member.actor.clientId } });
    expect(claims.extensions).toMatchObject({ 'hl7-b2b': { organization_id: ORGANIZATION, purpose_of_use: [TREAT] } });
    expect(claims.permissions).toEqual([expect.objectContaining({ purpose_of_use: TREAT })]);
    const disclosed = await getAdmin(server, `/admin/disclosure?filter[parentJti]=${decodeJwt(subjectToken).jti as string}`);
    const rows = (disclosed.body.data as { attributes: Record<string, unknown> }[]).map((record) => record.attributes);
    expect(rows).toEqual([expect.objectContaining({ organizationId: ORGANIZATION, purposeOfUse: [TREAT], actor: [member.actor.clientId] })]);
  });
});
