import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { add, JSON_API, ref } from './admin.js';
import type { TestApp } from './test-app.js';
import { udapJwt, type TestIssued } from './udap-anchors.js';

// UDAP trust communities over the admin JSON:API, and their members' registrations and token
// requests (docs/reference/trust-communities.md), for the suites under test/udap.

/** RFC 7523's client_assertion_type of a UDAP token request. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A trust community's JSON:API resource, as the admin interface answers it. */
export type TrustCommunityResource = { id: string; attributes: Record<string, unknown> };

/** `POST {admin_url}/trust-community` with these attributes (as given: no defaults). */
export function postTrustCommunity(server: TestApp, attributes: Record<string, unknown>) {
  return request(server.adminUrl)
    .post('/admin/trust-community')
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'trust-community', attributes } }));
}

/** `PATCH {admin_url}/trust-community/{id}`, replacing the attributes named. */
export function patchTrustCommunity(server: TestApp, id: string, attributes: Record<string, unknown>) {
  return request(server.adminUrl)
    .patch(`/admin/trust-community/${id}`)
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'trust-community', id, attributes } }));
}

/** Creates a trust community (communityUri `https://community.example/<uuid>` unless given), expecting 201; answers its resource. */
export async function createTrustCommunity(server: TestApp, attributes: Record<string, unknown>): Promise<TrustCommunityResource> {
  const response = await postTrustCommunity(server, { communityUri: `https://community.example/${randomUUID()}`, ...attributes });
  expect(response.status).toBe(201);
  return (response.body as { data: TrustCommunityResource }).data;
}

/** `PATCH {admin_url}/uma-client/{id}`, replacing the attributes named. */
export function patchUmaClient(server: TestApp, id: number, attributes: Record<string, unknown>) {
  return request(server.adminUrl)
    .patch(`/admin/uma-client/${id}`)
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'uma-client', id: String(id), attributes } }));
}

/** What a member's software statement says of it besides its SAN URI. */
export type MemberMetadata = { clientName: string; contacts: string[]; scope: string; grantTypes?: string[] };

/**
 * The claims of a software statement of the member `san` (iss and sub) for the registration
 * endpoint: a fresh jti, valid `lifetime` seconds from now, private_key_jwt, grant_types
 * client_credentials unless given.
 */
export function softwareStatementClaims(server: TestApp, san: string, member: MemberMetadata, lifetime = 60): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: san,
    sub: san,
    aud: `${server.url}/oauth2/register`,
    iat: now,
    exp: now + lifetime,
    jti: randomUUID(),
    client_name: member.clientName,
    contacts: member.contacts,
    grant_types: member.grantTypes ?? ['client_credentials'],
    token_endpoint_auth_method: 'private_key_jwt',
    scope: member.scope,
  };
}

/** The body of a UDAP registration: `claims` signed by `leaf` with `chain` in x5c, and udap 1. */
export async function udapRegistrationBody(
  leaf: TestIssued,
  chain: TestIssued[],
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<{ software_statement: string; udap: string }> {
  return { software_statement: await udapJwt(leaf, chain, claims, header), udap: '1' };
}

/** `POST /oauth2/register` with this JSON body (and an Authorization header when given). */
export function postRegistration(server: TestApp, body: Record<string, unknown>, authorization?: string) {
  const call = request(server.url).post('/oauth2/register').set('Content-Type', 'application/json');
  if (authorization !== undefined) call.set('Authorization', authorization);
  return call.send(JSON.stringify(body));
}

/**
 * Registers the member `san` by UDAP: a software statement of a minute, signed by `leaf` with
 * `chain` (none unless given) in x5c. Answers the response, its status unchecked.
 */
export async function registerUdapMember(server: TestApp, member: MemberMetadata & { leaf: TestIssued; chain?: TestIssued[]; san: string }) {
  return postRegistration(server, await udapRegistrationBody(member.leaf, member.chain ?? [], softwareStatementClaims(server, member.san, member)));
}

/** The row id of the client `clientId` (what the admin interface names it by). */
export async function clientRowId(server: TestApp, clientId: string): Promise<number> {
  const [{ id }] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM client WHERE client_id = $1', [clientId]);
  return id;
}

/** The members of an hl7-b2b extension (version 1) asserting `purposeOfUse` for `organization`; `overrides` add or replace members. */
export function hl7B2b(organization: { id: string; name: string }, purposeOfUse: string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: '1', organization_id: organization.id, organization_name: organization.name, purpose_of_use: purposeOfUse, ...overrides };
}

/**
 * A client assertion of `clientId` (iss and sub) for the token endpoint, valid a minute, with a
 * fresh jti, signed by `signer.leaf` with `signer.chain` in x5c; `claims` add or replace claims
 * (the extensions, say).
 */
export function udapClientAssertion(
  server: TestApp,
  signer: { leaf: TestIssued; chain: TestIssued[] },
  clientId: string,
  claims: Record<string, unknown>,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return udapJwt(signer.leaf, signer.chain, {
    iss: clientId,
    sub: clientId,
    aud: `${server.url}/oauth2/token`,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
    ...claims,
  });
}

/** The form of a UDAP token request: client_credentials for `scope` (and `resource` when given), udap 1, the client assertion; `extra` adds or replaces parameters. */
export function udapTokenParameters(
  clientAssertion: string,
  asked: { scope: string; resource?: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    grant_type: 'client_credentials',
    scope: asked.scope,
    ...(asked.resource === undefined ? {} : { resource: asked.resource }),
    udap: '1',
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: clientAssertion,
    ...extra,
  };
}

/** `POST /oauth2/token` with these form parameters (and an Authorization header when given). */
export function postTokenForm(server: TestApp, parameters: Record<string, string>, authorization?: string) {
  const call = request(server.url).post('/oauth2/token').type('form');
  if (authorization !== undefined) call.set('Authorization', authorization);
  return call.send(new URLSearchParams(parameters).toString());
}

/** Record ids of a consent ticket's records, and of the client row, definition and scope it names. */
export type TicketIds = {
  client: number;
  definition: number;
  read: number;
  purpose: number;
  ticket: number;
  resource: number;
  binding: number;
  combination: number;
};

/**
 * The admin operations of a consent ticket of the client row `ids.client`: a purpose named
 * `names.purpose` listing `purposesOfUse`, the ticket, and a requested resource of
 * `ids.definition` (7200 s) whose scope `ids.read` the purpose covers.
 */
export function consentTicketOperations(ids: TicketIds, names: { purpose: string; ticket: string; requestedResourceId: string }, purposesOfUse: string[]) {
  return [
    add('purpose', { id: ids.purpose, attributes: { name: names.purpose, purposesOfUse } }),
    add('capability-ticket', {
      id: ids.ticket,
      attributes: { ticketId: `ticket-${ids.ticket}`, ticketName: names.ticket },
      relationships: { purpose: ref('purpose', ids.purpose), umaClient: ref('uma-client', ids.client) },
    }),
    add('requested-resource', {
      id: ids.resource,
      attributes: { maxPermissionDuration: 7200, requestedResourceId: names.requestedResourceId },
      relationships: { resourceDefinition: ref('resource-definition', ids.definition), umaClient: ref('uma-client', ids.client) },
    }),
    add('requested-resource-scopes', {
      id: ids.binding,
      relationships: { scope: ref('scope', ids.read), purpose: ref('purpose', ids.purpose), requestedResource: ref('requested-resource', ids.resource) },
    }),
    add('requested-resources-capability-tickets', {
      id: ids.combination,
      relationships: { capabilityTicket: ref('capability-ticket', ids.ticket), requestedResource: ref('requested-resource', ids.resource) },
    }),
  ];
}
