import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { auth, requiredScopes } from 'express-oauth2-jwt-bearer';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import request from 'supertest';
import { patchAdmin } from '../support/admin.js';
import { basic } from '../support/factories.js';
import { clientKey, dpopProof } from '../support/keys.js';
import { eventually } from '../support/processes.js';
import { accessToken, resourceProof, umaWorld, type UmaWorld } from '../support/uma.js';
import { type TestApp, startTestApp } from '../support/test-app.js';

// Resource servers that verify our tokens locally, configured as
// docs/guides/resource-server-configurations.md says: Auth0's express-oauth2-jwt-bearer (strict,
// audience = the data source's resourceUri, DPoP for bound tokens) followed by the status-list
// check of the example data source, and jose alone with that same check. The server's lists live
// STATUS_LIST_TTL = 1 s, so a revoked or withdrawn token is refused about 2 s later.

type StatusCheck = (claims: JWTPayload) => Promise<string | undefined>;
type StatusListModule = { createStatusListCheck: (options: { issuer: string; keys: ReturnType<typeof createRemoteJWKSet> }) => StatusCheck };

let server: TestApp;
let world: UmaWorld;
let api: Server;
let apiUrl: string;
let createStatusListCheck: StatusListModule['createStatusListCheck'];

/** The guide's express resource server. */
function expressApi(issuer: string, resourceUri: string, readScope: string): express.Express {
  const checkStatus = createStatusListCheck({ issuer, keys: createRemoteJWKSet(new URL(`${issuer}/oauth2/jwks`)) });
  const app = express();
  // Finds the keys through RFC 8414 (/.well-known/oauth-authorization-server); DPoP-bound tokens need a proof.
  app.use(auth({ issuerBaseURL: issuer, audience: resourceUri, strict: true, dpop: { enabled: true, required: false } }));
  app.use((req: Request, res: Response, next: NextFunction) => {
    checkStatus(req.auth!.payload).then((refusal) => {
      if (refusal === undefined) return next();
      res.set('WWW-Authenticate', 'Bearer error="invalid_token"').status(401).json({ error: 'invalid_token', error_description: refusal });
    }, next);
  });
  app.get('/Observation', requiredScopes(readScope), (_req, res) => {
    res.json({ resourceType: 'Bundle', type: 'searchset', total: 0 });
  });
  return app;
}

beforeAll(async () => {
  const moduleUrl = pathToFileURL(join(import.meta.dirname, '../../examples/glucose-data-source/status-list.mjs')).href;
  ({ createStatusListCheck } = (await import(moduleUrl)) as StatusListModule);
  server = await startTestApp({ STATUS_LIST_TTL: '1' });
  world = await umaWorld(server);
  api = expressApi(server.url, world.dataSource.resourceUri, `${world.definitionName}:read`).listen(0, '127.0.0.1');
  await new Promise((resolve) => api.once('listening', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve));
  api?.closeAllConnections();
  await server?.close();
});

const readToken = (dpop?: string) => accessToken(server, world.clientId, world.secret, `${world.definitionName}:read`, dpop);

const observations = (headers: Record<string, string>) => fetch(`${apiUrl}/Observation`, { headers }).then((response) => response.status);

async function revoke(token: string): Promise<void> {
  const response = await request(server.url).post('/oauth2/revoke').set('Authorization', basic(world.clientId, world.secret)).type('form').send({ token });
  expect(response.status).toBe(200);
}

describe('express-oauth2-jwt-bearer with the status-list check', () => {
  it('serves a valid token for this data source', async () => {
    expect(await observations({ Authorization: `Bearer ${await readToken()}` })).toBe(200);
  });

  it('refuses a token whose aud is not this data source', async () => {
    const token = await accessToken(server, world.clientId, world.secret, 'uma_protection');
    expect(await observations({ Authorization: `Bearer ${token}` })).toBe(401);
  });

  it('refuses a revoked token once the list’s ttl has passed', async () => {
    const token = await readToken();
    expect(await observations({ Authorization: `Bearer ${token}` })).toBe(200);
    await revoke(token);
    await eventually(async () => ((await observations({ Authorization: `Bearer ${token}` })) === 401 ? true : undefined), 15_000, 250);
  });

  it('refuses a token whose consent was withdrawn once the list’s ttl has passed', async () => {
    const other = await umaWorld(server);
    const app = expressApi(server.url, other.dataSource.resourceUri, `${other.definitionName}:read`);
    const token = await accessToken(server, other.clientId, other.secret, `${other.definitionName}:read`);
    const call = () =>
      request(app)
        .get('/Observation')
        .set('Authorization', `Bearer ${token}`)
        .then((response) => response.status);
    expect(await call()).toBe(200);
    const removed = await patchAdmin(server, [{ op: 'remove', path: `/requested-resources-capability-tickets/${other.combination}` }]);
    expect(removed.status).toBe(200);
    await eventually(async () => ((await call()) === 401 ? true : undefined), 15_000, 250);
  });

  it('serves a DPoP-bound token with a proof of its key', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    const proof = await resourceProof(key, 'GET', `${apiUrl}/Observation`, token);
    expect(await observations({ Authorization: `DPoP ${token}`, DPoP: proof })).toBe(200);
  });

  it('refuses a DPoP-bound token sent as a Bearer token', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    expect(await observations({ Authorization: `Bearer ${token}` })).toBe(401);
  });

  it('refuses a DPoP proof whose ath names another token', async () => {
    const key = await clientKey('ES256');
    const token = await readToken(await dpopProof(key, `${server.url}/oauth2/token`));
    const proof = await resourceProof(key, 'GET', `${apiUrl}/Observation`, 'another token');
    // The library answers a bad proof with 400 (invalid_dpop_proof).
    expect(await observations({ Authorization: `DPoP ${token}`, DPoP: proof })).toBe(400);
  });
});

describe('a key rotation, seen by express-oauth2-jwt-bearer', () => {
  it('keeps serving the tokens issued right after keys rotate, as the new key only signs later', async () => {
    expect(await observations({ Authorization: `Bearer ${await readToken()}` })).toBe(200);
    const rotation = await request(server.adminUrl).post('/admin/keys/rotate').set('Authorization', server.adminToken);
    expect(rotation.status).toBe(201);
    expect(await observations({ Authorization: `Bearer ${await readToken()}` })).toBe(200);
  });
});

describe('jose alone with the example data source’s status-list check', () => {
  const verify = async (token: string) => {
    const keys = createRemoteJWKSet(new URL(`${server.url}/oauth2/jwks`));
    const { payload } = await jwtVerify(token, keys, { issuer: server.url, audience: world.dataSource.resourceUri, typ: 'at+jwt' });
    return { payload, checkStatus: createStatusListCheck({ issuer: server.url, keys }) };
  };

  it('finds a valid token’s entry VALID', async () => {
    const { payload, checkStatus } = await verify(await readToken());
    expect(await checkStatus(payload)).toBeUndefined();
  });

  it('finds a revoked token’s entry INVALID once the list’s ttl has passed', async () => {
    const token = await readToken();
    const { payload, checkStatus } = await verify(token);
    expect(await checkStatus(payload)).toBeUndefined();
    await revoke(token);
    expect(await eventually(async () => await checkStatus(payload), 15_000, 250)).toBe('the token is revoked (status list)');
  });

  it('refuses a token naming a status list outside its issuer', async () => {
    const { payload, checkStatus } = await verify(await readToken());
    const status = { status_list: { idx: 0, uri: 'https://elsewhere.example/oauth2/status/x' } };
    expect(await checkStatus({ ...payload, status })).toBe('the token names a status list not of its issuer');
  });

  it('refuses a token that names no status list', async () => {
    const { payload, checkStatus } = await verify(await readToken());
    expect(await checkStatus({ ...payload, status: undefined })).toBe('the token names no status list');
  });
});
