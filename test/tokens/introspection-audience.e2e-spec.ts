import request from 'supertest';
import { add, freshIds, patchAdmin } from '../support/admin.js';
import { consentWorld, enrolDataSource, type ConsentGrant } from '../support/consent.js';
import { basic } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, jwtPayload, type CreatedClientResult, type IntrospectionBody, type RefreshableTokenBody } from '../support/bodies.js';

// Who sees a token at introspection (docs/reference/token-endpoint.md#who-may-see-a-token-at-introspection):
// its own client; for a token whose aud names a data source, that data source's introspection
// client; for a token of the default audience, every client allowed uma_protection that
// introspects for no data source. A refresh token: its own client only. Everyone else: {"active": false}.

type Caller = { clientId: string; secret: string };
type TokenKind = 'data-source audience' | 'default audience' | 'refresh';

let server: TestApp;
const callers = {} as Record<
  | 'own client'
  | "the data source's introspection client"
  | 'another uma_protection client'
  | "another data source's introspection client"
  | 'a client without uma_protection',
  Caller
>;
const tokens = {} as Record<TokenKind, string>;
let dataSourceUri: string;
let owner: ConsentGrant;

beforeAll(async () => {
  server = await startTestApp();
  owner = await consentWorld(server, { grantTypes: 'client_credentials refresh_token', extraScopes: 'read' });
  // The token's own client is not allowed uma_protection: it still sees its own tokens.
  const narrowed = await patchAdmin(server, [
    {
      op: 'replace',
      path: `/uma-client/${owner.client}`,
      value: { type: 'uma-client', attributes: { allowedScopes: `${owner.definitionName}:read read` } },
    },
  ]);
  expect(narrowed.status).toBe(200);
  const introspector = await registerClient('uma_protection');
  const otherIntrospector = await registerClient('uma_protection');
  dataSourceUri = (await enrolDataSource(server, [owner.ids.definition], { umaClient: introspector.id })).resourceUri;
  await enrolDataSource(server, [], { umaClient: otherIntrospector.id });
  callers['own client'] = owner;
  callers["the data source's introspection client"] = introspector;
  callers['another uma_protection client'] = await registerClient('uma_protection read');
  callers["another data source's introspection client"] = otherIntrospector;
  callers['a client without uma_protection'] = await registerClient('read');

  const forDataSource = await issue(owner, `${owner.definitionName}:read`);
  expect(jwtPayload(forDataSource.access_token).aud).toBe(dataSourceUri);
  const plain = await issue(owner, 'read');
  expect(jwtPayload(plain.access_token).aud).toBe(server.url);
  tokens['data-source audience'] = forDataSource.access_token;
  tokens['default audience'] = plain.access_token;
  tokens.refresh = plain.refresh_token;
});

afterAll(() => server.close());

async function registerClient(allowedScopes: string): Promise<Caller & { id: number }> {
  const [id] = freshIds(1);
  const clientId = `introspector-${id}`;
  const response = await patchAdmin(server, [add('uma-client', { id, attributes: { clientId, clientName: 'Introspector', allowedScopes } })]);
  expect(response.status).toBe(200);
  return { id, clientId, secret: bodyOf<CreatedClientResult[]>(response)[0].meta.clientSecret };
}

async function issue(client: Caller, scope: string): Promise<RefreshableTokenBody> {
  const response = await request(server.url)
    .post('/oauth2/token')
    .set('Authorization', basic(client.clientId, client.secret))
    .type('form')
    .send({ grant_type: 'client_credentials', scope });
  expect(response.status).toBe(200);
  return bodyOf<RefreshableTokenBody>(response);
}

function introspect(caller: Caller, token: string, hint?: string) {
  return request(server.url)
    .post('/oauth2/introspect')
    .set('Authorization', basic(caller.clientId, caller.secret))
    .type('form')
    .send({ token, ...(hint ? { token_type_hint: hint } : {}) });
}

const SEES: [keyof typeof callers, TokenKind, boolean][] = [
  ['own client', 'data-source audience', true],
  ['own client', 'default audience', true],
  ['own client', 'refresh', true],
  ["the data source's introspection client", 'data-source audience', true],
  ["the data source's introspection client", 'default audience', false],
  ["the data source's introspection client", 'refresh', false],
  ['another uma_protection client', 'data-source audience', false],
  ['another uma_protection client', 'default audience', true],
  ['another uma_protection client', 'refresh', false],
  ["another data source's introspection client", 'data-source audience', false],
  ["another data source's introspection client", 'default audience', false],
  ["another data source's introspection client", 'refresh', false],
  ['a client without uma_protection', 'data-source audience', false],
  ['a client without uma_protection', 'default audience', false],
  ['a client without uma_protection', 'refresh', false],
];

describe.each(SEES)('introspection by %s of a token with the %s', (caller, kind, sees) => {
  it(sees ? 'answers it active, with its claims' : 'answers {"active": false} and nothing else', async () => {
    for (const hint of [undefined, kind === 'refresh' ? 'refresh_token' : 'access_token']) {
      const response = await introspect(callers[caller], tokens[kind], hint);
      expect(response.status).toBe(200);
      if (sees) {
        expect(response.body).toMatchObject({ active: true, client_id: owner.clientId });
        if (kind === 'data-source audience') expect(bodyOf<IntrospectionBody>(response).aud).toBe(dataSourceUri);
        if (kind === 'refresh') expect(response.body).toMatchObject({ token_type: 'refresh_token' });
      } else {
        expect(response.body).toEqual({ active: false });
      }
    }
  });
});

it('answers {"active": false} for a token meant for a data source to a client allowed uma_protection that introspects for no data source, also when the token\'s aud names two data sources and the caller neither', async () => {
  const second = await enrolDataSource(server, [owner.ids.definition]);
  const both = await issue(owner, `${owner.definitionName}:read`);
  expect(jwtPayload(both.access_token).aud).toEqual([dataSourceUri, second.resourceUri]);
  expect((await introspect(callers['another uma_protection client'], both.access_token)).body).toEqual({ active: false });
  expect(bodyOf<IntrospectionBody>(await introspect(callers["the data source's introspection client"], both.access_token)).active).toBe(true);
});
