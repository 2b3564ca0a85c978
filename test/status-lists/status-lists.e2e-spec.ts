import { jest } from '@jest/globals';
import { gunzipSync, inflateSync } from 'node:zlib';
import request from 'supertest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { getListFromStatusListJWT, getStatusListFromJWT } from '@sd-jwt/jwt-status-list';
import { patchAdmin } from '../support/admin.js';
import { consentWorld } from '../support/consent.js';
import { basic, createClient, type TestClient } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { freshDatabase, startTestApp, type TestApp } from '../support/test-app.js';
import { StatusIndexAllocator } from '../../src/status-lists/status-index-allocator.js';
import { StatusListRetirement } from '../../src/status-lists/status-list-retirement.js';
import { bodyOf, jwtPayload, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';

type StatusClaim = { status?: { status_list: { idx: number; uri: string } } };
type ListClaims = { iss: string; sub: string; iat: number; exp: number; ttl: number; status_list: { bits: number; lst: string; aggregation_uri: string } };

const LIST_TYPE = 'application/statuslist+jwt';

async function issue(server: TestApp, client: TestClient, scope = 'read'): Promise<string> {
  const response = await fetch(`${server.url}/oauth2/token`, {
    method: 'POST',
    headers: { Authorization: basic(client.clientId, client.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  if (response.status !== 200) throw new Error(`token refused: ${response.status} ${await response.text()}`);
  return ((await response.json()) as TokenBody).access_token;
}

/** The token's `status_list` reference, read by the independent library. */
function entryOf(token: string): { idx: number; uri: string } {
  return getStatusListFromJWT(token);
}

/** The list behind `uri`, fetched from `server` (another instance may serve it), verified with jose against that server's JWKS. */
async function fetchList(server: TestApp, uri: string): Promise<{ jwt: string; claims: ListClaims }> {
  const path = new URL(uri).pathname;
  const response = await request(server.url).get(path).set('Accept', LIST_TYPE);
  expect(response.status).toBe(200);
  const jwt = response.text;
  const jwks = createLocalJWKSet(bodyOf<JSONWebKeySet>(await request(server.url).get('/oauth2/jwks')));
  const { payload } = await jwtVerify(jwt, jwks, { typ: 'statuslist+jwt', issuer: server.config.issuer });
  return { jwt, claims: payload as unknown as ListClaims };
}

async function statusOn(server: TestApp, token: string): Promise<number> {
  const { idx, uri } = entryOf(token);
  return getListFromStatusListJWT((await fetchList(server, uri)).jwt).getStatus(idx);
}

function revoke(server: TestApp, client: TestClient, token: string) {
  return request(server.url).post('/oauth2/revoke').set('Authorization', basic(client.clientId, client.clientSecret)).type('form').send({ token });
}

describe('token status lists on one database, two instances', () => {
  let first: TestApp;
  let second: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    first = await startTestApp();
    // The same issuer, as instances behind one load balancer.
    second = await startTestApp({ ISSUER: first.url });
    client = await createClient(first.app, { allowedScopes: 'read uma_protection' });
  });

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  it('puts a status claim naming a list under the issuer and an integer index in every access token', async () => {
    const claims = jwtPayload<StatusClaim>(await issue(first, client));
    expect(claims.status).toEqual({
      status_list: { idx: expect.any(Number) as number, uri: expect.stringMatching(/^.+\/oauth2\/status\/[A-Za-z0-9_-]{22}$/) as string },
    });
    expect(Number.isInteger(claims.status!.status_list.idx)).toBe(true);
    expect(claims.status!.status_list.uri.startsWith(`${first.url}/oauth2/status/`)).toBe(true);
  });

  it('serves the list as a statuslist+jwt signed with the access-token key, whose sub is the tokens’ uri', async () => {
    const token = await issue(first, client);
    const { uri, idx } = entryOf(token);
    const { jwt, claims } = await fetchList(first, uri);
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: first.config.tokenSigningAlg, kid: decodeProtectedHeader(token).kid, typ: 'statuslist+jwt' });
    expect(claims.sub).toBe(uri);
    expect(claims.iss).toBe(first.url);
    expect(claims.ttl).toBe(60);
    expect(claims.exp - claims.iat).toBe(300);
    expect(claims.status_list.bits).toBe(1);
    expect(claims.status_list.aggregation_uri).toBe(`${first.url}/oauth2/status`);
    expect(getListFromStatusListJWT(jwt).getStatus(idx)).toBe(0);
  });

  it('sets the entry of a revoked token, on another instance too, and no other entry', async () => {
    const token = await issue(first, client);
    const { idx, uri } = entryOf(token);
    expect(await statusOn(second, token)).toBe(0);
    expect((await revoke(first, client, token)).status).toBe(200);
    await eventually(async () => ((await statusOn(second, token)) === 1 ? true : undefined));
    // Bit order checked independently: byte idx/8, bit idx mod 8 from the least significant bit.
    const bytes = inflateSync(Buffer.from((await fetchList(second, uri)).claims.status_list.lst, 'base64url'));
    expect((bytes[idx >> 3] >> (idx & 7)) & 1).toBe(1);
    const list = getListFromStatusListJWT((await fetchList(second, uri)).jwt);
    expect(await statusOn(first, await issue(first, client))).toBe(0);
    expect(list.getStatus(idx)).toBe(1);
  });

  it('sets the entry of a token whose consent is withdrawn, on another instance', async () => {
    const grant = await consentWorld(first);
    const response = await request(first.url)
      .post('/oauth2/token')
      .auth(grant.clientId, grant.secret)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: `${grant.definitionName}:read` });
    expect(response.status).toBe(200);
    const token = bodyOf<TokenBody>(response).access_token;
    expect(await statusOn(second, token)).toBe(0);
    const removed = await patchAdmin(first, [{ op: 'remove', path: `/requested-resources-capability-tickets/${grant.combination}` }]);
    expect(removed.status).toBe(200);
    await eventually(async () => ((await statusOn(second, token)) === 1 ? true : undefined));
  });

  it('answers with Cache-Control, an ETag, CORS for any origin, and 304 for a matching If-None-Match', async () => {
    const { uri } = entryOf(await issue(first, client));
    const path = new URL(uri).pathname;
    const response = await request(first.url).get(path);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(LIST_TYPE);
    expect(response.headers['cache-control']).toMatch(/^public, max-age=(\d+)$/);
    expect(Number(/max-age=(\d+)/.exec(response.headers['cache-control'])![1])).toBeLessThanOrEqual(60);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const etag = response.headers.etag;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await request(first.url).get(path).set('If-None-Match', etag);
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
  });

  it('sends the list gzip-compressed when Accept-Encoding allows it', async () => {
    const { uri } = entryOf(await issue(first, client));
    const response = await request(first.url)
      .get(new URL(uri).pathname)
      .set('Accept-Encoding', 'gzip')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(response.headers['content-encoding']).toBe('gzip');
    // superagent may already have decompressed it: either way the body is the compact JWS.
    const body = response.body as Buffer;
    const text = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString() : body.toString();
    expect(text.split('.')).toHaveLength(3);
  });

  it('answers HEAD with the headers and no body', async () => {
    const { uri } = entryOf(await issue(first, client));
    const response = await request(first.url).head(new URL(uri).pathname);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(LIST_TYPE);
    expect(response.text ?? '').toBe('');
  });

  it('ignores unknown query parameters', async () => {
    const { uri } = entryOf(await issue(first, client));
    expect((await request(first.url).get(`${new URL(uri).pathname}?foo=bar`)).status).toBe(200);
  });

  it('answers 404 for an unknown list and for a malformed list id', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-list']) {
      const response = await request(first.url).get(`/oauth2/status/${id}`);
      expect(response.status).toBe(404);
      expect(bodyOf<OAuthErrorBody>(response)).toEqual({ error: 'not_found', error_description: expect.any(String) as string });
    }
  });

  it('answers 405 with Allow: GET, HEAD to other methods', async () => {
    const { uri } = entryOf(await issue(first, client));
    for (const path of [new URL(uri).pathname, '/oauth2/status']) {
      const response = await request(first.url).post(path).send({});
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD');
      expect(bodyOf<OAuthErrorBody>(response).error).toBe('method_not_allowed');
    }
  });

  it('answers a CORS preflight from any origin', async () => {
    const { uri } = entryOf(await issue(first, client));
    const response = await request(first.url)
      .options(new URL(uri).pathname)
      .set('Origin', 'https://rs.example')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'if-none-match');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-headers']).toMatch(/If-None-Match/);
  });

  it('answers 406 to an Accept that allows only the CWT form', async () => {
    const { uri } = entryOf(await issue(first, client));
    const response = await request(first.url).get(new URL(uri).pathname).set('Accept', 'application/statuslist+cwt');
    expect(response.status).toBe(406);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('not_acceptable');
    for (const accept of ['application/*', '*/*', 'application/statuslist+cwt, application/statuslist+jwt;q=0.5']) {
      expect((await request(first.url).get(new URL(uri).pathname).set('Accept', accept)).status).toBe(200);
    }
  });

  it('answers 501 to a request for historical status (the time parameter)', async () => {
    const { uri } = entryOf(await issue(first, client));
    const response = await request(first.url).get(`${new URL(uri).pathname}?time=1795369700`);
    expect(response.status).toBe(501);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('not_implemented');
  });

  it('retires a list once every token naming it has expired: 404, left out of the aggregation, its row deleted by the job', async () => {
    const [{ public_id: retired }]: { public_id: string }[] = await first.dataSource.query(
      `INSERT INTO status_list (public_id, size, bits, permutation_key, blocks_reserved, max_expires_at)
       VALUES ($1, 1024, 1, $2, 4, now() - interval '1 second') RETURNING public_id`,
      ['RetiredListRetiredList', Buffer.alloc(16)],
    );
    // Tokens keep coming: the open list is a newer one.
    await first.app.get(StatusIndexAllocator).reserve();
    expect((await request(first.url).get(`/oauth2/status/${retired}`)).status).toBe(404);
    expect(bodyOf<{ status_lists: string[] }>(await request(first.url).get('/oauth2/status')).status_lists).not.toContain(
      `${first.url}/oauth2/status/${retired}`,
    );
    await first.app.get(StatusListRetirement).prune();
    expect(await first.dataSource.query('SELECT 1 FROM status_list WHERE public_id = $1', [retired])).toEqual([]);
  });

  it('lets a busy instance reserve 16 blocks (4,096 indices) in one update, on both instances without an index twice', async () => {
    const blocks = await Promise.all([first, second, first].map((server) => server.app.get(StatusIndexAllocator).reserve(16)));
    const indices = blocks.flatMap((block) => block.indices);
    expect(blocks.map((block) => block.indices.length)).toEqual([4096, 4096, 4096]);
    expect(new Set(indices).size).toBe(indices.length);
  });

  it('gives the same ETag for the same list state on every instance, so a conditional GET gets 304 from the other', async () => {
    const { uri } = entryOf(await issue(first, client));
    const path = new URL(uri).pathname;
    const fromFirst = await request(first.url).get(path).set('Accept', LIST_TYPE);
    const fromSecond = await request(second.url).get(path).set('Accept', LIST_TYPE);
    expect(fromSecond.headers.etag).toBe(fromFirst.headers.etag);
    const conditional = await request(second.url).get(path).set('Accept', LIST_TYPE).set('If-None-Match', fromFirst.headers.etag);
    expect(conditional.status).toBe(304);
  });

  it('answers the aggregation endpoint from memory, without a database query per request', async () => {
    await request(first.url).get('/oauth2/status');
    const queries = jest.spyOn(first.dataSource, 'query');
    try {
      for (let index = 0; index < 20; index += 1) expect((await request(first.url).get('/oauth2/status')).status).toBe(200);
      // A change notification arriving meanwhile (another instance's revocation, a block reserved
      // ahead for the tokens issued before) may cost one read of the lists; a read per request would be 20.
      const listReads = queries.mock.calls.map(([sql]) => String(sql)).filter((sql) => sql.includes('status_list'));
      expect(listReads.length).toBeLessThanOrEqual(1);
    } finally {
      queries.mockRestore();
    }
  });

  it('names every list in the aggregation endpoint, announced in the metadata', async () => {
    const { uri } = entryOf(await issue(first, client));
    const metadata = bodyOf<Record<string, unknown>>(await request(first.url).get('/.well-known/oauth-authorization-server'));
    expect(metadata.status_list_aggregation_endpoint).toBe(`${first.url}/oauth2/status`);
    const response = await request(first.url).get('/oauth2/status');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(bodyOf<{ status_lists: string[] }>(response).status_lists).toContain(uri);
  });
});

describe('index allocation (STATUS_LIST_SIZE=1024, a fresh database)', () => {
  let databaseUrl: string;
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  let client: TestClient;
  const entries: { idx: number; uri: string }[] = [];

  beforeAll(async () => {
    databaseUrl = await freshDatabase('status_lists');
    first = await startTestApp({ DATABASE_URL: databaseUrl, STATUS_LIST_SIZE: '1024', TOKEN_SIGNING_ALG: 'ES256' });
    client = await createClient(first.app, { allowedScopes: 'read' });
  });

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  it('names a new list in token 1,025, and both lists in the aggregation', async () => {
    for (let count = 0; count < 1025; count += 1) entries.push(entryOf(await issue(first!, client)));
    const firstList = entries[0].uri;
    expect(entries.slice(0, 1024).every((entry) => entry.uri === firstList)).toBe(true);
    expect(entries[1024].uri).not.toBe(firstList);
    expect(new Set(entries.slice(0, 1024).map((entry) => entry.idx)).size).toBe(1024);
    const lists = bodyOf<{ status_lists: string[] }>(await request(first!.url).get('/oauth2/status')).status_lists;
    expect(lists).toEqual([firstList, entries[1024].uri]);
  });

  it('reserves one block (256 indices) at a time on a list this small, however many are wanted', async () => {
    const block = await first!.app.get(StatusIndexAllocator).reserve(16);
    expect(block.indices.length).toBeLessThanOrEqual(256);
  });

  it('hands out indices in no sequential order', () => {
    const indices = entries.slice(0, 256).map((entry) => entry.idx);
    expect(indices).not.toEqual([...indices].sort((a, b) => a - b));
    expect(indices).not.toEqual([...indices].sort((a, b) => b - a));
  });

  it('never repeats an index across restarts and two instances', async () => {
    second = await startTestApp({ DATABASE_URL: databaseUrl, STATUS_LIST_SIZE: '1024', TOKEN_SIGNING_ALG: 'ES256', ISSUER: first!.url });
    for (let round = 0; round < 2; round += 1) {
      for (let count = 0; count < 150; count += 1) {
        entries.push(entryOf(await issue(first!, client)), entryOf(await issue(second, client)));
      }
      await first!.close();
      first = await startTestApp({ DATABASE_URL: databaseUrl, STATUS_LIST_SIZE: '1024', TOKEN_SIGNING_ALG: 'ES256', ISSUER: second.config.issuer });
    }
    const keys = entries.map((entry) => `${entry.uri} ${entry.idx}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('STATUS_LIST=false', () => {
  let server: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestApp({ STATUS_LIST: 'false' });
    client = await createClient(server.app, { allowedScopes: 'read' });
  });

  afterAll(() => server.close());

  it('puts no status claim in tokens', async () => {
    expect(jwtPayload<StatusClaim>(await issue(server, client)).status).toBeUndefined();
  });

  it('answers 404 at the status endpoints and announces no aggregation endpoint', async () => {
    expect((await request(server.url).get('/oauth2/status')).status).toBe(404);
    expect((await request(server.url).get('/oauth2/status/AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    const metadata = bodyOf<Record<string, unknown>>(await request(server.url).get('/.well-known/oauth-authorization-server'));
    expect(metadata.status_list_aggregation_endpoint).toBeUndefined();
  });
});

describe('keys published before they sign', () => {
  let server: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestApp({ SIGNING_KEY_PUBLISH_AHEAD: '2', TOKEN_SIGNING_ALG: 'ES256', DATABASE_URL: await freshDatabase('publish_ahead') });
    client = await createClient(server.app, { allowedScopes: 'read' });
  });

  afterAll(() => server.close());

  const rotate = (query = '') => request(server.adminUrl).post(`/admin/keys/rotate${query}`).set('Authorization', server.adminToken);
  const kids = async () => bodyOf<JSONWebKeySet>(await request(server.url).get('/oauth2/jwks')).keys.map((key) => key.kid);
  const signingKid = async () => decodeProtectedHeader(await issue(server, client)).kid;

  it('publishes a rotated key in the JWKS at once, and signs with it only once the delay has passed', async () => {
    const oldKid = await signingKid();
    const response = await rotate();
    expect(response.status).toBe(201);
    const { id: kid, attributes } = bodyOf<{ data: { id: string; attributes: { signsFrom: string } } }>(response).data;
    expect(await kids()).toEqual(expect.arrayContaining([kid, oldKid]));
    expect(Date.parse(attributes.signsFrom)).toBeGreaterThan(Date.now());
    expect(await signingKid()).toBe(oldKid);
    await eventually(async () => ((await signingKid()) === kid ? true : undefined), 10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(attributes.signsFrom));
    expect(await kids()).toEqual(expect.arrayContaining([kid, oldKid]));
  });

  it('with now=true signs with the new key at once, status lists too', async () => {
    const response = await rotate('?now=true');
    expect(response.status).toBe(201);
    const { id: kid } = bodyOf<{ data: { id: string } }>(response).data;
    const token = await issue(server, client);
    expect(decodeProtectedHeader(token).kid).toBe(kid);
    await eventually(async () => (decodeProtectedHeader((await fetchList(server, entryOf(token).uri)).jwt).kid === kid ? true : undefined));
  });

  it('refuses a now parameter other than true or false with 400, rotating nothing', async () => {
    const before = await kids();
    const response = await rotate('?now=soon');
    expect(response.status).toBe(400);
    expect(await kids()).toEqual(before);
  });
});
