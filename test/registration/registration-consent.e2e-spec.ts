import { getListFromStatusListJWT, getStatusListFromJWT } from '@sd-jwt/jwt-status-list';
import request from 'supertest';
import { add, freshIds, getAdmin, JSON_API, patchAdmin, ref } from '../support/admin.js';
import { bodyOf, type IntrospectionBody, type TokenBody } from '../support/bodies.js';
import { consentWorld, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A dynamically registered client under a consent ticket an administrator wrote
// (docs/guides/dynamic-registration.md#managing-the-registration): what its own update and delete
// do to the tokens it was given.

type Registered = { client_id: string; client_secret: string; registration_access_token: string; error?: string; error_description?: string };

let server: TestApp;
/** A second instance on the same database, for the management calls made elsewhere. */
let other: TestApp;
/** A client allowed uma_protection, which introspects the tokens. */
let introspector: ConsentGrant;

beforeAll(async () => {
  server = await startTestApp();
  other = await startTestApp();
  introspector = await consentWorld(server, { ticket: false });
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.close(), other?.close()]);
});

/** A client registered with scope `<definition>:read read`, and a ticket covering `<definition>:read` written for it. */
async function registeredUnderTicket(): Promise<{ world: ConsentGrant; registered: Registered; scope: string; chain: string[] }> {
  const world = await consentWorld(server, { ticket: false });
  const scope = `${world.definitionName}:read`;
  const iat = await request(server.adminUrl)
    .post('/admin/initial-access-token')
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'initial-access-token', attributes: { name: 'consent', scopeCeiling: `${scope} read` } } }));
  const token = bodyOf<{ data: { meta: { token: string } } }>(iat).data.meta.token;
  const response = await request(server.url)
    .post('/oauth2/register')
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${token}`)
    .send(JSON.stringify({ scope: `${scope} read` }));
  expect(response.status).toBe(201);
  const registered = bodyOf<Registered>(response);
  const listed = await getAdmin(server, `/admin/uma-client?filter[clientId]=${registered.client_id}`);
  const client = bodyOf<{ data: { id: string }[] }>(listed).data[0].id;
  const [ticket, resource, binding, combination] = freshIds(4);
  const written = await patchAdmin(server, [
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId: `ticket-${ticket}`, ticketName: 'Glucose' },
      relationships: { purpose: ref('purpose', world.ids.purpose), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource', {
      id: resource,
      attributes: { maxPermissionDuration: 3600, requestedResourceId: `patient-${resource}` },
      relationships: { resourceDefinition: ref('resource-definition', world.ids.definition), umaClient: ref('uma-client', client) },
    }),
    add('requested-resource-scopes', {
      id: binding,
      relationships: {
        scope: ref('scope', world.ids.read),
        purpose: ref('purpose', world.ids.purpose),
        requestedResource: ref('requested-resource', resource),
      },
    }),
    add('requested-resources-capability-tickets', {
      id: combination,
      relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) },
    }),
  ]);
  expect(written.status).toBe(200);
  // The ticket's chain, in an order the admin interface can remove it in.
  const chain = [
    `/requested-resources-capability-tickets/${combination}`,
    `/requested-resource-scopes/${binding}`,
    `/requested-resource/${resource}`,
    `/capability-ticket/${ticket}`,
  ];
  return { world, registered, scope, chain };
}

async function tokenFor(registered: Registered, scope: string) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(registered.client_id, registered.client_secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
}

async function active(accessToken: string): Promise<boolean> {
  const response = await request(server.url)
    .post('/oauth2/introspect')
    .set('Authorization', basic(introspector.clientId, introspector.secret))
    .type('form')
    .send({ token: accessToken });
  return bodyOf<IntrospectionBody>(response).active;
}

it('gets a resource-scope token once an administrator wrote the ticket', async () => {
  const { registered, scope } = await registeredUnderTicket();
  const response = await tokenFor(registered, scope);
  expect(response.status).toBe(200);
  expect(await active(bodyOf<TokenBody>(response).access_token)).toBe(true);
});

it('withdraws the tokens of a scope its own update drops', async () => {
  const { registered, scope } = await registeredUnderTicket();
  const issued = bodyOf<TokenBody>(await tokenFor(registered, scope)).access_token;
  const updated = await request(server.url)
    .put(`/oauth2/register/${registered.client_id}`)
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${registered.registration_access_token}`)
    .send(JSON.stringify({ client_id: registered.client_id, scope: 'read' }));
  expect(updated.status).toBe(200);
  await eventually(async () => ((await active(issued)) ? undefined : true));
  expect((await tokenFor(registered, scope)).status).toBe(400);
});

it('refuses its own delete with 409 while a ticket still names it, removing nothing', async () => {
  const { registered, scope } = await registeredUnderTicket();
  const issued = bodyOf<TokenBody>(await tokenFor(registered, scope)).access_token;
  const refused = await request(server.url)
    .delete(`/oauth2/register/${registered.client_id}`)
    .set('Authorization', `Bearer ${registered.registration_access_token}`);
  expect(refused.status).toBe(409);
  const body = bodyOf<Registered>(refused);
  expect(body.error).toBe('invalid_request');
  expect(body.error_description).toMatch(/capability-ticket|ticket/);
  expect(await active(issued)).toBe(true);
  expect((await tokenFor(registered, scope)).status).toBe(200);
});

it('deletes itself on another instance once an administrator removed its ticket: 401 at the token endpoint, its resource-scope token inactive with status 1', async () => {
  const { registered, scope, chain } = await registeredUnderTicket();
  const issued = bodyOf<TokenBody>(await tokenFor(registered, scope)).access_token;
  const removed = await patchAdmin(
    server,
    chain.map((path) => ({ op: 'remove', path })),
  );
  expect(removed.status).toBe(200);
  const deleted = await request(other.url)
    .delete(`/oauth2/register/${registered.client_id}`)
    .set('Authorization', `Bearer ${registered.registration_access_token}`);
  expect(deleted.status).toBe(204);
  await eventually(async () => ((await tokenFor(registered, 'read')).status === 401 ? true : undefined), 2_000);
  expect(await active(issued)).toBe(false);
  const { idx, uri } = getStatusListFromJWT(issued);
  const list = await request(server.url).get(new URL(uri).pathname).set('Accept', 'application/statuslist+jwt');
  expect(list.status).toBe(200);
  expect(getListFromStatusListJWT(list.text).getStatus(idx)).toBe(1);
});
