import request from 'supertest';
import { JSON_API } from '../support/admin.js';
import { bodyOf, type OAuthErrorBody } from '../support/bodies.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { ASSERTION_TYPE, clientKey, createKeyClient } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Nesting is bounded, as the third probe made the attack: 8,000 nested objects in `jwks` at
 * registration answered 500. A JSON body or a JWT's claims nested deeper than 32 levels is a 400
 * of the endpoint's own format, wherever it is sent, and changes nothing.
 */

let server: TestApp;
let client: TestClient;

beforeAll(async () => {
  server = await startTestApp();
  client = await createClient(server.app);
}, 120_000);

afterAll(() => server?.close());

/** `{"a": … 1 …}` nested `depth` objects deep, as text (JSON.stringify of it would overflow the test's own stack). */
const nestedText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
/** A compact JWS whose payload is `payload` as written; its signature is garbage (refused before any key is tried). */
const compact = (header: Record<string, unknown>, payload: string) =>
  `${base64url(JSON.stringify(header))}.${base64url(payload)}.${base64url('not-a-signature')}`;

async function initialAccessToken(): Promise<string> {
  const response = await request(server.adminUrl)
    .post('/admin/initial-access-token')
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(JSON.stringify({ data: { type: 'initial-access-token', attributes: { name: 'nesting', scopeCeiling: 'read' } } }));
  expect(response.status).toBe(201);
  return bodyOf<{ data: { meta: { token: string } } }>(response).data.meta.token;
}

async function clientCount(): Promise<number> {
  const [{ count }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM client');
  return count;
}

it('answers a registration whose jwks nests 8,000 objects deep 400 invalid_client_metadata, and registers nothing', async () => {
  const token = await initialAccessToken();
  const before = await clientCount();
  const body = `{"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[${nestedText(8_000)}]}}`;
  const response = await request(server.url)
    .post('/oauth2/register')
    .set('Authorization', `Bearer ${token}`)
    .set('Content-Type', 'application/json')
    .send(body);
  expect(response.status).toBe(400);
  expect(bodyOf<OAuthErrorBody>(response)).toMatchObject({
    error: 'invalid_client_metadata',
    error_description: expect.stringMatching(/nested deeper than 32 levels/) as string,
  });
  expect(await clientCount()).toBe(before);
});

it('answers an admin document nested 33 levels deep with a JSON:API 400', async () => {
  const body = `{"data":{"type":"purpose","attributes":{"name":"deep","description":${nestedText(31)}}}}`;
  const response = await request(server.adminUrl).post('/admin/purpose').set('Authorization', server.adminToken).set('Content-Type', JSON_API).send(body);
  expect(response.status).toBe(400);
  expect(response.text).toMatch(/nested deeper than 32 levels/);
});

it('answers a jwksRaw string nested 8,000 levels deep with a 422 naming jwksRaw, never a 500', async () => {
  const jwksRaw = `{"keys":[${nestedText(8_000)}]}`;
  const document = JSON.stringify({
    data: {
      type: 'uma-client',
      attributes: { clientId: 'deep-keys', clientName: 'deep', allowedScopes: 'read', clientAuthenticationType: 'private_key_jwt', jwksRaw },
    },
  });
  const response = await request(server.adminUrl)
    .post('/admin/uma-client')
    .set('Authorization', server.adminToken)
    .set('Content-Type', JSON_API)
    .send(document);
  expect(response.status).toBe(422);
  expect(response.text).toContain('jwksRaw');
});

it('answers a client assertion whose claims nest 100 levels deep 400 invalid_request', async () => {
  const key = await clientKey();
  const clientId = await createKeyClient(server.app, key);
  const assertion = compact({ alg: 'ES256', kid: key.jwk.kid }, `{"iss":"${clientId}","sub":"${clientId}","x":${nestedText(100)}}`);
  const response = await request(server.url)
    .post('/oauth2/token')
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read', client_id: clientId, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion });
  expect(response.status).toBe(400);
  expect(bodyOf<OAuthErrorBody>(response)).toMatchObject({ error: 'invalid_request' });
});

it('answers a DPoP proof whose header nests 100 levels deep 400 invalid_dpop_proof', async () => {
  const header = `{"alg":"ES256","typ":"dpop+jwt","jwk":${nestedText(100)}}`;
  const proof = `${base64url(header)}.${base64url('{"htm":"POST"}')}.${base64url('sig')}`;
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(client.clientId, client.clientSecret))
    .set('DPoP', proof)
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'read' });
  expect(response.status).toBe(400);
  expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_dpop_proof');
});

it('answers a JSON token request nested 33 levels deep 400 invalid_request', async () => {
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(client.clientId, client.clientSecret))
    .set('Content-Type', 'application/json')
    .send(`{"grant_type":"client_credentials","x":${nestedText(33)}}`);
  expect(response.status).toBe(400);
  expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
});
