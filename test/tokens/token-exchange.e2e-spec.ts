import { calculateJwkThumbprint } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { clientKey, dpopProof } from '../support/keys.js';
import { add, freshIds, getAdmin, patchAdmin, ref, remove } from '../support/admin.js';
import { consentWorld, enrolDataSource, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, clientSecretOf, jwtPayload, type IntrospectionBody, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

type Credentials = { clientId: string; secret: string };
type Source = { id: number; resourceUri: string; actor: Credentials };
type ExchangeBody = TokenBody & { issued_token_type: string };
type ExchangedClaims = { sub: string; client_id: string; aud: string; exp: number; scope: string; jti: string; act?: unknown; status?: unknown; cnf?: unknown };

let server: TestApp;
/** A second instance on the same database: cascades must reach it too. */
let second: TestApp;

beforeAll(async () => {
  server = await startTestApp();
  second = await startTestApp({ ISSUER: server.url });
});

afterAll(() => Promise.all([server.close(), second.close()]));

/** A client allowed uma_protection and the token exchange grant: a data source's introspection client, the actor. */
async function actorClient(grantTypes = `client_credentials ${EXCHANGE}`): Promise<Credentials & { id: number }> {
  const [id] = freshIds(1);
  const clientId = `exchange-actor-${id}`;
  const response = await patchAdmin(server, [
    add('uma-client', { id, attributes: { clientId, clientName: 'actor', allowedScopes: 'uma_protection', grantTypes } }),
  ]);
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  return { id, clientId, secret: clientSecretOf(response) };
}

/** A data source serving the world's definition, with an actor client of its own. */
async function source(grant: ConsentGrant, grantTypes?: string): Promise<Source> {
  const actor = await actorClient(grantTypes);
  const enrolled = await enrolDataSource(server, [grant.ids.definition], { umaClient: actor.id });
  return { id: enrolled.id, resourceUri: enrolled.resourceUri, actor };
}

function delegate(from: Source, to: Source, scopes?: string[]) {
  const [id] = freshIds(1);
  return patchAdmin(server, [
    add('data-source-delegation', {
      id,
      ...(scopes ? { attributes: { scopes } } : {}),
      relationships: { from: ref('data-source', from.id), to: ref('data-source', to.id) },
    }),
  ]).then((response) => ({ response, id }));
}

async function clientToken(grant: ConsentGrant, resource: string, scope = `${grant.definitionName}:read`): Promise<string> {
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(grant.clientId, grant.secret))
    .type('form')
    .send(new URLSearchParams({ grant_type: 'client_credentials', scope, resource }).toString());
  if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  return bodyOf<TokenBody>(response).access_token;
}

function exchange(actor: Credentials, parameters: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  const all: Record<string, string | string[]> = { grant_type: EXCHANGE, subject_token_type: ACCESS_TOKEN, ...parameters };
  for (const [name, value] of Object.entries(all)) {
    for (const item of typeof value === 'string' ? [value] : value) body.append(name, item);
  }
  return request(server.url).post('/oauth2/token').set('Authorization', basic(actor.clientId, actor.secret)).type('form').send(body.toString());
}

async function disclosureCount(): Promise<number> {
  const [{ count }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM disclosure');
  return count;
}

/** Two data sources A and B serving the world's definition, A delegated to ask B, and the client's token meant for A. */
async function twoSources(options: { scopes?: string[] } = {}) {
  const grant = await consentWorld(server);
  const a = await source(grant);
  const b = await source(grant);
  const { response } = await delegate(a, b, options.scopes);
  expect(response.status).toBe(200);
  const subjectToken = await clientToken(grant, a.resourceUri);
  return { grant, a, b, subjectToken };
}

describe('data-source-delegation records', () => {
  it('refuses a delegation from a data source to itself with 422', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant);
    const { response } = await delegate(a, a);
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toContain('distinct');
  });

  it('refuses a second delegation of the same pair with 409', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant);
    const b = await source(grant);
    expect((await delegate(a, b)).response.status).toBe(200);
    expect((await delegate(a, b)).response.status).toBe(409);
  });

  it('refuses with 422 naming scopes a scope the target data source does not serve', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant);
    const b = await source(grant);
    const { response } = await delegate(a, b, ['unknown-definition:read']);
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toContain('/value/attributes/scopes');
  });
});

describe('the token exchange grant (RFC 8693)', () => {
  it('is advertised in grant_types_supported', async () => {
    const response = await request(server.url).get('/.well-known/oauth-authorization-server');
    expect(bodyOf<{ grant_types_supported: string[] }>(response).grant_types_supported).toContain(EXCHANGE);
  });

  it('gives the actor a token for B with the subject as sub and client_id and the actor in act', async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri });
    expect(response.status).toBe(200);
    const body = bodyOf<ExchangeBody>(response);
    expect(body).toEqual(expect.objectContaining({ issued_token_type: ACCESS_TOKEN, token_type: 'Bearer', scope: `${grant.definitionName}:read` }) as unknown);
    expect(body.refresh_token).toBeUndefined();
    const claims = jwtPayload<ExchangedClaims>(body.access_token);
    expect(claims).toEqual(
      expect.objectContaining({ sub: grant.clientId, client_id: grant.clientId, aud: b.resourceUri, act: { sub: a.actor.clientId } }) as unknown,
    );
  });

  it('never lets the exchanged token outlive the subject token', async () => {
    const { a, b, subjectToken } = await twoSources();
    const response = await exchange(a.actor, { subject_token: subjectToken, audience: b.resourceUri });
    expect(response.status).toBe(200);
    expect(jwtPayload<ExchangedClaims>(bodyOf<ExchangeBody>(response).access_token).exp).toBeLessThanOrEqual(jwtPayload<ExchangedClaims>(subjectToken).exp);
  });

  it('nests act on a second hop and records the actors and the parent jti in the disclosure', async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    const c = await source(grant);
    expect((await delegate(b, c)).response.status).toBe(200);
    const first = bodyOf<ExchangeBody>(await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri })).access_token;
    const second = await exchange(b.actor, { subject_token: first, resource: c.resourceUri });
    expect(second.status).toBe(200);
    const claims = jwtPayload<ExchangedClaims>(bodyOf<ExchangeBody>(second).access_token);
    expect(claims.act).toEqual({ sub: b.actor.clientId, act: { sub: a.actor.clientId } });
    const [row] = await server.dataSource.query<{ actor: string[]; parent_jti: string }[]>('SELECT actor, parent_jti FROM disclosure WHERE jti = $1', [
      claims.jti,
    ]);
    expect(row).toEqual({ actor: [b.actor.clientId, a.actor.clientId], parent_jti: jwtPayload<ExchangedClaims>(first).jti });
  });

  it('shows act at introspection by the downstream data source', async () => {
    const { a, b, subjectToken } = await twoSources();
    const token = bodyOf<ExchangeBody>(await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri })).access_token;
    const response = await request(server.url)
      .post('/oauth2/introspect')
      .set('Authorization', basic(b.actor.clientId, b.actor.secret))
      .type('form')
      .send(new URLSearchParams({ token }).toString());
    expect(bodyOf<IntrospectionBody>(response)).toEqual(expect.objectContaining({ active: true, act: { sub: a.actor.clientId } }) as unknown);
  });

  it('refuses a fourth hop with invalid_grant', async () => {
    const grant = await consentWorld(server);
    const sources = [await source(grant), await source(grant), await source(grant), await source(grant), await source(grant)];
    for (let index = 0; index < 4; index += 1) expect((await delegate(sources[index], sources[index + 1])).response.status).toBe(200);
    let token = await clientToken(grant, sources[0].resourceUri);
    for (let index = 0; index < 3; index += 1) {
      const response = await exchange(sources[index].actor, { subject_token: token, resource: sources[index + 1].resourceUri });
      expect(response.status).toBe(200);
      token = bodyOf<ExchangeBody>(response).access_token;
    }
    const before = await disclosureCount();
    const refused = await exchange(sources[3].actor, { subject_token: token, resource: sources[4].resourceUri });
    expect(refused.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(refused).error).toBe('invalid_grant');
    expect(await disclosureCount()).toBe(before);
  });
});

describe('refusals of the token exchange grant, with nothing stored', () => {
  type Case = [string, string, (world: Awaited<ReturnType<typeof twoSources>>) => Promise<request.Response>];
  const cases: Case[] = [
    ['a missing subject_token', 'invalid_request', ({ a, b }) => exchange(a.actor, { resource: b.resourceUri })],
    [
      'a missing subject_token_type',
      'invalid_request',
      ({ a, b, subjectToken }) =>
        request(server.url)
          .post('/oauth2/token')
          .set('Authorization', basic(a.actor.clientId, a.actor.secret))
          .type('form')
          .send(new URLSearchParams({ grant_type: EXCHANGE, subject_token: subjectToken, resource: b.resourceUri }).toString()),
    ],
    [
      'another subject_token_type',
      'invalid_request',
      ({ a, b, subjectToken }) =>
        exchange(a.actor, { subject_token: subjectToken, subject_token_type: 'urn:ietf:params:oauth:token-type:jwt', resource: b.resourceUri }),
    ],
    [
      'another requested_token_type',
      'invalid_request',
      ({ a, b, subjectToken }) =>
        exchange(a.actor, { subject_token: subjectToken, requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token', resource: b.resourceUri }),
    ],
    [
      'an actor_token',
      'invalid_request',
      ({ a, b, subjectToken }) =>
        exchange(a.actor, { subject_token: subjectToken, actor_token: subjectToken, actor_token_type: ACCESS_TOKEN, resource: b.resourceUri }),
    ],
    ['neither resource nor audience', 'invalid_request', ({ a, subjectToken }) => exchange(a.actor, { subject_token: subjectToken })],
    [
      'resource and audience naming different data sources',
      'invalid_request',
      ({ a, b, subjectToken }) => exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri, audience: a.resourceUri }),
    ],
    [
      'two resource parameters',
      'invalid_request',
      ({ a, b, subjectToken }) => exchange(a.actor, { subject_token: subjectToken, resource: [b.resourceUri, a.resourceUri] }),
    ],
    [
      'a subject_token that is not ours',
      'invalid_grant',
      ({ a, b }) => exchange(a.actor, { subject_token: 'eyJhbGciOiJub25lIn0.e30.', resource: b.resourceUri }),
    ],
    [
      'a subject_token meant for another data source than the actor’s',
      'invalid_grant',
      ({ b, subjectToken, a }) => exchange(b.actor, { subject_token: subjectToken, resource: a.resourceUri }),
    ],
    [
      'a target that is no data source',
      'invalid_target',
      ({ a, subjectToken }) => exchange(a.actor, { subject_token: subjectToken, resource: 'https://nowhere.example/api' }),
    ],
    [
      'a scope outside the subject_token',
      'invalid_scope',
      ({ a, b, subjectToken, grant }) => exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri, scope: `${grant.definitionName}:write` }),
    ],
    [
      'a plain scope',
      'invalid_scope',
      ({ a, b, subjectToken }) => exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri, scope: 'uma_protection' }),
    ],
  ];

  it.each(cases)('answers %s with %s', async (_, code, send) => {
    const world = await twoSources();
    const before = await disclosureCount();
    const response = await send(world);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe(code);
    expect(JSON.stringify(response.body)).not.toContain(world.subjectToken);
    expect(await disclosureCount()).toBe(before);
  });

  it('answers invalid_target when the pair is not delegated', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant);
    const b = await source(grant);
    const subjectToken = await clientToken(grant, a.resourceUri);
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_target');
  });

  it('answers invalid_scope naming the scope the delegation does not allow', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant);
    const b = await source(grant);
    expect((await delegate(a, b, [`${grant.definitionName}:write`])).response.status).toBe(200);
    const subjectToken = await clientToken(grant, a.resourceUri);
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri, scope: `${grant.definitionName}:read` });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response)).toEqual({ error: 'invalid_scope', error_description: expect.stringContaining('delegation') as unknown });
  });

  it('answers invalid_scope naming the missing link when consent no longer covers the scope', async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toMatch(/invalid_scope|invalid_grant/);
  });

  it('answers invalid_grant for a revoked subject_token', async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    await request(server.url)
      .post('/oauth2/revoke')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send(new URLSearchParams({ token: subjectToken }).toString())
      .expect(200);
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_grant');
  });

  it('answers unauthorized_client when the actor is not registered for the grant', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant, 'client_credentials');
    const b = await source(grant);
    expect((await delegate(a, b)).response.status).toBe(200);
    const subjectToken = await clientToken(grant, a.resourceUri);
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('unauthorized_client');
  });
});

/** Introspection of a token meant for a data source, by that data source's client, on the second instance. */
async function activeOnSecond(introspector: Credentials, token: string): Promise<boolean> {
  const response = await request(second.url)
    .post('/oauth2/introspect')
    .set('Authorization', basic(introspector.clientId, introspector.secret))
    .type('form')
    .send(new URLSearchParams({ token }).toString());
  return bodyOf<IntrospectionBody>(response).active;
}

/** A, B and C delegated in a row, the client's token for A, exchanged by A for B and by B for C. */
async function threeSources() {
  const { grant, a, b, subjectToken } = await twoSources();
  const c = await source(grant);
  const { id: bToC } = await delegate(b, c);
  const first = bodyOf<ExchangeBody>(await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri })).access_token;
  const secondHop = bodyOf<ExchangeBody>(await exchange(b.actor, { subject_token: first, resource: c.resourceUri })).access_token;
  expect(await activeOnSecond(b.actor, first)).toBe(true);
  expect(await activeOnSecond(c.actor, secondHop)).toBe(true);
  return { grant, a, b, c, subjectToken, first, secondHop, bToC };
}

describe('withdrawal cascades to exchanged tokens', () => {
  it('revoking the subject token withdraws every token exchanged from it, recursively, on the second instance too', async () => {
    const { grant, b, c, subjectToken, first, secondHop } = await threeSources();
    await request(server.url)
      .post('/oauth2/revoke')
      .set('Authorization', basic(grant.clientId, grant.secret))
      .type('form')
      .send(new URLSearchParams({ token: subjectToken }).toString())
      .expect(200);
    await eventually(async () => (!(await activeOnSecond(b.actor, first)) && !(await activeOnSecond(c.actor, secondHop)) ? true : undefined), 1_000, 50);
    const rows = await server.dataSource.query<{ withdrawn: boolean }[]>('SELECT withdrawn_at IS NOT NULL AS withdrawn FROM disclosure WHERE jti = ANY($1)', [
      [jwtPayload<ExchangedClaims>(first).jti, jwtPayload<ExchangedClaims>(secondHop).jti],
    ]);
    expect(rows).toEqual([{ withdrawn: true }, { withdrawn: true }]);
  });

  it('removing a delegation withdraws the tokens exchanged across it and those exchanged from them', async () => {
    const grant = await consentWorld(server);
    const a = await source(grant);
    const b = await source(grant);
    const c = await source(grant);
    const { id: aToB } = await delegate(a, b);
    await delegate(b, c);
    const subjectToken = await clientToken(grant, a.resourceUri);
    const first = bodyOf<ExchangeBody>(await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri })).access_token;
    const secondHop = bodyOf<ExchangeBody>(await exchange(b.actor, { subject_token: first, resource: c.resourceUri })).access_token;
    expect((await patchAdmin(server, [remove('data-source-delegation', aToB)])).status).toBe(200);
    await eventually(async () => (!(await activeOnSecond(b.actor, first)) && !(await activeOnSecond(c.actor, secondHop)) ? true : undefined), 1_000, 50);
    expect(await activeOnSecond(a.actor, subjectToken)).toBe(true);
  });

  it("narrowing a delegation's scopes withdraws the tokens exchanged across it for a scope it no longer allows", async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    const exchanged = bodyOf<ExchangeBody>(await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri })).access_token;
    const [{ id }] = await server.dataSource.query<{ id: number }[]>('SELECT id FROM data_source_delegation WHERE from_id = $1 AND to_id = $2', [a.id, b.id]);
    const narrowed = await patchAdmin(server, [
      {
        op: 'replace',
        path: `/data-source-delegation/${id}`,
        value: { type: 'data-source-delegation', attributes: { scopes: [`${grant.definitionName}:write`] } },
      },
    ]);
    expect(narrowed.status).toBe(200);
    await eventually(async () => (!(await activeOnSecond(b.actor, exchanged)) ? true : undefined), 1_000, 50);
    expect(await activeOnSecond(a.actor, subjectToken)).toBe(true);
  });

  it('removing a later delegation leaves the earlier hop active', async () => {
    const { b, c, first, secondHop, bToC } = await threeSources();
    expect((await patchAdmin(server, [remove('data-source-delegation', bToC)])).status).toBe(200);
    await eventually(async () => (!(await activeOnSecond(c.actor, secondHop)) ? true : undefined), 1_000, 50);
    expect(await activeOnSecond(b.actor, first)).toBe(true);
  });

  it('ending consent for the subject token withdraws the tokens exchanged from it', async () => {
    const { grant, b, c, first, secondHop } = await threeSources();
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    await eventually(async () => (!(await activeOnSecond(b.actor, first)) && !(await activeOnSecond(c.actor, secondHop)) ? true : undefined), 1_000, 50);
  });

  it('refuses to exchange a withdrawn token with invalid_grant', async () => {
    const { grant, b, c, first } = await threeSources();
    expect((await patchAdmin(server, [remove('requested-resources-capability-tickets', grant.combination)])).status).toBe(200);
    const response = await exchange(b.actor, { subject_token: first, resource: c.resourceUri });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_grant');
  });
});

describe('the accounting of exchanged tokens', () => {
  it('lists the tokens exchanged from a token by filter[parentJti], with their actors', async () => {
    const { a, b, subjectToken } = await twoSources();
    const exchanged = jwtPayload<ExchangedClaims>(
      bodyOf<ExchangeBody>(await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri })).access_token,
    );
    const response = await getAdmin(server, `/admin/disclosure?filter[parentJti]=${jwtPayload<ExchangedClaims>(subjectToken).jti}`);
    expect(response.status).toBe(200);
    const rows = bodyOf<{ data: { attributes: Record<string, unknown> }[] }>(response).data;
    expect(rows.map((row) => row.attributes)).toEqual([
      expect.objectContaining({ jti: exchanged.jti, actor: [a.actor.clientId], parentJti: jwtPayload<ExchangedClaims>(subjectToken).jti }),
    ]);
  });

  it('exports actor and parentJti as the last CSV columns', async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri }).expect(200);
    const response = await getAdmin(server, `/admin/disclosure?filter[parentJti]=${jwtPayload<ExchangedClaims>(subjectToken).jti}`).set('Accept', 'text/csv');
    const [header, line] = response.text.split('\r\n');
    expect(header.endsWith(',actor,parentJti')).toBe(true);
    expect(line.startsWith('') && line.includes(`,${grant.clientId},`)).toBe(true);
    expect(line.endsWith(`,${a.actor.clientId},${jwtPayload<ExchangedClaims>(subjectToken).jti}`)).toBe(true);
  });

  it('refuses a malformed filter[parentJti] with 400', async () => {
    const response = await getAdmin(server, `/admin/disclosure?filter[parentJti]=${'x'.repeat(65)}`);
    expect(response.status).toBe(400);
  });
});

describe('actors', () => {
  it('binds the exchanged token to the DPoP key the actor proved', async () => {
    const { a, b, subjectToken } = await twoSources();
    const holder = await clientKey('ES256');
    const response = await exchange(a.actor, { subject_token: subjectToken, resource: b.resourceUri }).set(
      'DPoP',
      await dpopProof(holder, `${server.url}/oauth2/token`),
    );
    expect(response.status).toBe(200);
    expect(bodyOf<ExchangeBody>(response).token_type).toBe('DPoP');
    expect(jwtPayload<ExchangedClaims>(bodyOf<ExchangeBody>(response).access_token).cnf).toEqual({ jkt: await calculateJwkThumbprint(holder.jwk) });
  });

  it("exchanges with openid-client's genericGrantRequest as the actor", async () => {
    const { grant, a, b, subjectToken } = await twoSources();
    const configuration = await oidc.discovery(new URL(server.url), a.actor.clientId, undefined, oidc.ClientSecretBasic(a.actor.secret), {
      execute: [oidc.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const tokens = await oidc.genericGrantRequest(configuration, EXCHANGE, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      resource: b.resourceUri,
    });
    expect(tokens.issued_token_type).toBe(ACCESS_TOKEN);
    expect(jwtPayload<ExchangedClaims>(tokens.access_token)).toEqual(
      expect.objectContaining({ sub: grant.clientId, aud: b.resourceUri, act: { sub: a.actor.clientId } }) as unknown,
    );
  });
});
