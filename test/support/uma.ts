import { createHash } from 'node:crypto';
import request from 'supertest';
import { add, freshIds, patchAdmin, ref } from './admin.js';
import { consentWorld, enrolDataSource, type ConsentGrant } from './consent.js';
import { bodyOf, clientSecretOf, type TokenBody } from './bodies.js';
import { basic } from './factories.js';
import { dpopProof, type ClientKey } from './keys.js';
import type { TestApp } from './test-app.js';

export const UMA_GRANT = 'urn:ietf:params:oauth:grant-type:uma-ticket';

/** The UMA cast: a requesting client with a consent ticket for read, and a data source with its umaClient and a PAT. */
export type UmaWorld = ConsentGrant & {
  rs: { clientId: string; secret: string; id: number };
  dataSource: { id: number; resourceUri: string; pairs: number[] };
  pat: string;
};

/**
 * Through the admin interface: consentWorld's client (registered for the UMA grant unless
 * `grantTypes` says otherwise), a resource server client allowed uma_protection, a data source
 * with that client as its umaClient serving the definition, and a PAT of that client.
 */
export async function umaWorld(server: TestApp, options: { grantTypes?: string; ticket?: boolean; maxPermissionDuration?: number } = {}): Promise<UmaWorld> {
  const consent = await consentWorld(server, {
    grantTypes: options.grantTypes ?? `client_credentials ${UMA_GRANT}`,
    ticket: options.ticket,
    maxPermissionDuration: options.maxPermissionDuration,
  });
  const rs = await protectionClient(server);
  const dataSource = await enrolDataSource(server, [consent.ids.definition], { umaClient: rs.id });
  const pat = await accessToken(server, rs.clientId, rs.secret, 'uma_protection');
  return { ...consent, rs, dataSource, pat };
}

/** A client allowed only uma_protection. */
export async function protectionClient(server: TestApp, options: { dpopBound?: boolean } = {}): Promise<{ clientId: string; secret: string; id: number }> {
  const [id] = freshIds(1);
  const clientId = `glucose-rs-${id}`;
  const response = await patchAdmin(server, [
    add('uma-client', {
      id,
      attributes: { clientId, clientName: 'Glucose API', allowedScopes: 'uma_protection', ...(options.dpopBound ? { dpopBoundAccessTokens: true } : {}) },
    }),
  ]);
  if (response.status !== 200) throw new Error(`client not created: ${JSON.stringify(response.body)}`);
  return { clientId, secret: clientSecretOf(response), id: id };
}

/** Another data source of `umaClient` serving `definition` (its resourceUri). */
export async function secondDataSource(server: TestApp, definition: number, umaClient: number): Promise<string> {
  return (await enrolDataSource(server, [definition], { umaClient })).resourceUri;
}

export async function accessToken(server: TestApp, clientId: string, secret: string, scope: string, dpop?: string): Promise<string> {
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(clientId, secret))
    .set(dpop ? { DPoP: dpop } : {})
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
  if (response.status !== 200) throw new Error(`no token: ${JSON.stringify(response.body)}`);
  return bodyOf<TokenBody>(response).access_token;
}

export function registerResource(server: TestApp, pat: string, description: unknown) {
  return request(server.url)
    .post('/uma/resource_set')
    .set('Authorization', `Bearer ${pat}`)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(description));
}

/** Registers `<definition>` with scopes read and write; its _id. */
export async function registeredResource(server: TestApp, world: UmaWorld, scopes = ['read', 'write']): Promise<string> {
  const response = await registerResource(server, world.pat, { type: world.definitionName, resource_scopes: scopes, name: 'Glucose readings' });
  if (response.status !== 201) throw new Error(`resource not registered: ${JSON.stringify(response.body)}`);
  return bodyOf<{ _id: string }>(response)._id;
}

export function askPermission(server: TestApp, pat: string, body: unknown) {
  return request(server.url).post('/uma/permission').set('Authorization', `Bearer ${pat}`).set('Content-Type', 'application/json').send(JSON.stringify(body));
}

export async function ticketFor(server: TestApp, world: UmaWorld, resourceId: string, scopes = ['read']): Promise<string> {
  const response = await askPermission(server, world.pat, { resource_id: resourceId, resource_scopes: scopes });
  if (response.status !== 201) throw new Error(`no ticket: ${JSON.stringify(response.body)}`);
  return bodyOf<{ ticket: string }>(response).ticket;
}

/** The UMA grant for the world's requesting client. */
export function redeem(
  server: TestApp,
  world: { clientId: string; secret: string },
  parameters: Record<string, string | string[]>,
  headers: Record<string, string> = {},
) {
  return request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(world.clientId, world.secret))
    .set(headers)
    .type('form')
    .send({ grant_type: UMA_GRANT, ...parameters });
}

export function introspectWithPat(server: TestApp, pat: string, token: string) {
  return request(server.url).post('/oauth2/introspect').set('Authorization', `Bearer ${pat}`).type('form').send({ token });
}

/** A DPoP proof for a protected resource request (RFC 9449 §7): htm, htu and ath of the token. */
export function resourceProof(key: ClientKey, method: string, url: string, token: string, claims: Record<string, unknown> = {}): Promise<string> {
  return dpopProof(key, url, { htm: method, ath: createHash('sha256').update(token).digest('base64url'), ...claims });
}

export async function ticketCount(server: TestApp): Promise<number> {
  const [{ count }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM permission_ticket');
  return count;
}

export { ref, patchAdmin };
