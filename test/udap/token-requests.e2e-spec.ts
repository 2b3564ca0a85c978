/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   OAuth answers are read member by member here (supertest types every body as any). */
import { jest } from '@jest/globals';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { AuthThrottle } from '../../src/auth/auth-throttle.js';
import { add, freshIds, patchAdmin, ref } from '../support/admin.js';
import { basic, createClient } from '../support/factories.js';
import { LogLines } from '../support/log-lines.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CrlServer, testIntermediate, testLeaf, testRoot, type TestIssued } from '../support/udap-anchors.js';
import {
  clientRowId,
  createTrustCommunity,
  hl7B2b,
  patchTrustCommunity,
  postTokenForm,
  registerUdapMember,
  udapClientAssertion,
  udapTokenParameters,
} from '../support/udap-members.js';

// docs/reference/trust-communities.md#token-request: a UDAP client's token request
// (grant_type=client_credentials, udap=1, a client assertion with x5c and the hl7-b2b extension).

const DAY = 86_400_000;
const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const ETREAT = 'urn:oid:2.16.840.1.113883.5.8#ETREAT';
const HPAYMT = 'urn:oid:2.16.840.1.113883.5.8#HPAYMT';

let server: TestApp;
const logs = new LogLines();
let crls: CrlServer;
let rootA: TestIssued;
let intermediateA: TestIssued;
let rootB: TestIssued;
let communityA: string;
let introspector: { clientId: string; clientSecret: string };
let sanCount = 0;

const freshSan = () => `https://clinic.example/udap/${Date.now()}-${sanCount++}`;

beforeAll(async () => {
  crls = await CrlServer.start();
  rootA = await testRoot('CN=Token Community A Root', crls);
  intermediateA = await testIntermediate('CN=Token Community A Issuing CA', rootA, crls);
  rootB = await testRoot('CN=Token Community B Root', crls);
  server = await startTestApp({ UDAP: 'true', JWKS_URI_ALLOW_HTTP: 'true', LOG_LEVEL: 'info' }, { logs: logs.stream });
  communityA = await community({
    name: 'Token Community A',
    anchors: [rootA.pem],
    scopeCeiling: 'lookup status',
    purposesOfUse: [TREAT, ETREAT],
    accessTokenLifetime: 600,
  });
  await community({ name: 'Token Community B', anchors: [rootB.pem], scopeCeiling: 'lookup' });
  introspector = await createClient(server.app, { allowedScopes: 'uma_protection' });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await crls?.close();
});

async function community(attributes: Record<string, unknown>): Promise<string> {
  return (await createTrustCommunity(server, attributes)).id;
}

async function patchCommunity(id: string, attributes: Record<string, unknown>): Promise<void> {
  expect((await patchTrustCommunity(server, id, attributes)).status).toBe(200);
}

type Member = { clientId: string; san: string; leaf: TestIssued; chain: TestIssued[] };

/** Registers a member of community A (under the intermediate) and answers it. */
async function member(grantTypes: string[] = ['client_credentials'], existing?: Member): Promise<Member> {
  const san = existing?.san ?? freshSan();
  const leaf = existing?.leaf ?? (await testLeaf('CN=Clinic Example', san, intermediateA));
  const response = await registerUdapMember(server, {
    leaf,
    chain: [intermediateA],
    san,
    clientName: 'Clinic Example',
    contacts: ['mailto:it@clinic.example'],
    grantTypes,
    scope: 'lookup status',
  });
  expect([200, 201]).toContain(response.status);
  return { clientId: response.body.client_id as string, san, leaf, chain: [intermediateA] };
}

const hl7b2b = (overrides: Record<string, unknown> = {}) => hl7B2b({ id: 'https://clinic.example/organization', name: 'Clinic Example' }, [TREAT], overrides);

async function assertion(who: Member, overrides: Record<string, unknown> = {}, signer: { leaf: TestIssued; chain: TestIssued[] } = who): Promise<string> {
  return udapClientAssertion(server, signer, who.clientId, { extensions: { 'hl7-b2b': hl7b2b() }, ...overrides });
}

function tokenRequest(parameters: Record<string, string>, authorization?: string) {
  return postTokenForm(server, parameters, authorization);
}

function udapParameters(clientAssertion: string, extra: Record<string, string> = {}): Record<string, string> {
  return udapTokenParameters(clientAssertion, { scope: 'lookup' }, extra);
}

async function introspect(token: string) {
  const response = await request(server.url)
    .post('/oauth2/introspect')
    .type('form')
    .set('Authorization', basic(introspector.clientId, introspector.clientSecret))
    .send(new URLSearchParams({ token }).toString());
  expect(response.status).toBe(200);
  return response.body as Record<string, unknown>;
}

async function usedJtis(): Promise<number> {
  const [{ count }] = await server.dataSource.query<{ count: number }[]>('SELECT count(*)::int AS count FROM used_jti');
  return count;
}

/**
 * A refusal with its status, error and description (for invalid_client, the one description of
 * every such refusal, and the check its log line names), and no jti used up.
 */
async function expectRefused(parameters: Record<string, string>, status: number, error: string, description: RegExp, authorization?: string) {
  const before = await usedJtis();
  const response = await tokenRequest(parameters, authorization);
  expect(response.status).toBe(status);
  expect(response.body.error).toBe(error);
  if (error === 'invalid_client') expect(await logs.refusedBecause(response)).toMatch(description);
  else expect(response.body.error_description).toMatch(description);
  expect(await usedJtis()).toBe(before);
}

describe('a UDAP token request', () => {
  it('issues a token that carries the hl7-b2b extension as asserted, unknown members dropped', async () => {
    const client = await member();
    const response = await tokenRequest(
      udapParameters(await assertion(client, { extensions: { 'hl7-b2b': hl7b2b({ subject_name: 'Dr. Ann Example', favourite_colour: 'blue' }) } })),
    );
    expect(response.body).toMatchObject({ token_type: 'Bearer', scope: 'lookup' });
    expect(response.status).toBe(200);
    const claims = decodeJwt(response.body.access_token as string);
    expect(claims.client_id).toBe(client.clientId);
    expect(claims.extensions).toEqual({
      'hl7-b2b': {
        version: '1',
        organization_id: 'https://clinic.example/organization',
        organization_name: 'Clinic Example',
        purpose_of_use: [TREAT],
        subject_name: 'Dr. Ann Example',
      },
    });
  });

  it("lives at most the community's accessTokenLifetime", async () => {
    const client = await member();
    const response = await tokenRequest(udapParameters(await assertion(client)));
    expect(response.body.expires_in).toBe(600);
    const claims = decodeJwt(response.body.access_token as string);
    expect(claims.exp! - claims.iat!).toBe(600);
  });

  it('is answered by introspection with the same extensions', async () => {
    const client = await member();
    const token = (await tokenRequest(udapParameters(await assertion(client)))).body.access_token as string;
    const introspected = await introspect(token);
    expect(introspected).toMatchObject({ active: true, client_id: client.clientId, extensions: { 'hl7-b2b': hl7b2b() } });
  });

  it('is accepted from a renewed certificate with the same SAN URI', async () => {
    const client = await member();
    const renewed = await testLeaf('CN=Clinic Example Renewed', client.san, intermediateA);
    const response = await tokenRequest(udapParameters(await assertion(client, {}, { leaf: renewed, chain: [intermediateA] })));
    expect(response.status).toBe(200);
  });

  it("uses up the assertion's jti: the same assertion again is refused", async () => {
    const client = await member();
    const once = await assertion(client);
    expect((await tokenRequest(udapParameters(once))).status).toBe(200);
    const again = await tokenRequest(udapParameters(once));
    expect(again.status).toBe(401);
    expect(await logs.refusedBecause(again)).toMatch(/"jti" has already been used/);
  });
});

// docs/operations/security.md#the-throttle-comes-first: a member is a key-holding client like a private_key_jwt one.
describe("a member's failure counts", () => {
  beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));
  afterEach(() => jest.restoreAllMocks());

  /** A new member that has got two tokens from 127.0.0.1 (proven, then its counts read clean), and a spy on the reads of the counts. */
  async function provenMember() {
    const client = await member();
    for (let index = 0; index < 2; index += 1) expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
    const reads = jest.spyOn(server.app.get(AuthThrottle), 'standing');
    return { client, reads };
  }

  it('are read at most once a second while its address stays clean', async () => {
    const { client, reads } = await provenMember();
    for (let index = 0; index < 3; index += 1) expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
    // Three requests inside a second read nothing; a slow machine crossing the second's end reads once.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('are read again at once after a refused assertion from its address', async () => {
    const { client, reads } = await provenMember();
    expect((await tokenRequest(udapParameters(await assertion(client, { aud: 'https://elsewhere.example/oauth2/token' })))).status).toBe(401);
    reads.mockClear();
    expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});

describe('refused with 400 invalid_request', () => {
  it('with an Authorization header', async () => {
    const client = await member();
    await expectRefused(udapParameters(await assertion(client)), 400, 'invalid_request', /no Authorization header/, basic('someone', 'secret'));
  });

  it('with a client_secret', async () => {
    const client = await member();
    await expectRefused(udapParameters(await assertion(client), { client_secret: 'secret' }), 400, 'invalid_request', /no client_secret/);
  });

  it('from a client not registered by UDAP', async () => {
    const plain = await createClient(server.app, { allowedScopes: 'lookup' });
    const client = await member();
    await expectRefused(
      udapParameters(await assertion({ ...client, clientId: plain.clientId })),
      400,
      'invalid_request',
      /only for clients registered by UDAP/,
    );
  });

  it('without a client assertion', async () => {
    await expectRefused({ grant_type: 'client_credentials', udap: '1', client_id: 'udap-x' }, 400, 'invalid_request', /client_assertion/);
  });
});

describe('refused with 401 invalid_client', () => {
  it('when the leaf holds another SAN URI than the client registered', async () => {
    const client = await member();
    const other = await testLeaf('CN=Clinic Example', freshSan(), intermediateA);
    await expectRefused(udapParameters(await assertion(client, {}, { leaf: other, chain: [intermediateA] })), 401, 'invalid_client', /SAN URI/);
  });

  it("when the chain leads to another community's anchor", async () => {
    const client = await member();
    const foreign = await testLeaf('CN=Clinic Example', client.san, rootB);
    await expectRefused(udapParameters(await assertion(client, {}, { leaf: foreign, chain: [] })), 401, 'invalid_client', /trust anchor/);
  });

  it('when the certificate has expired', async () => {
    const client = await member();
    const expired = await testLeaf('CN=Clinic Example', client.san, intermediateA, { notBefore: Date.now() - 30 * DAY, notAfter: Date.now() - DAY });
    await expectRefused(udapParameters(await assertion(client, {}, { leaf: expired, chain: [intermediateA] })), 401, 'invalid_client', /expired/);
  });

  it('when the certificate is revoked', async () => {
    const client = await member();
    const revoked = await testLeaf('CN=Clinic Example', client.san, intermediateA);
    await crls.revoke(intermediateA, revoked);
    await expectRefused(udapParameters(await assertion(client, {}, { leaf: revoked, chain: [intermediateA] })), 401, 'invalid_client', /revoked/);
  });

  it.each([
    ['an aud other than the token endpoint', { aud: 'https://as.example/oauth2/token' }, /"aud" must be the token endpoint/],
    ['the issuer as aud', { aud: 'ISSUER' }, /"aud" must be the token endpoint/],
    ['an exp more than 300 s after iat', { exp: Math.floor(Date.now() / 1000) + 400 }, /lives too long/],
    ['no jti', { jti: undefined }, /"jti"/],
  ])('with %s', async (_, overrides, description) => {
    const client = await member();
    const claims: Record<string, unknown> = { ...overrides };
    if (claims.aud === 'ISSUER') claims.aud = server.url;
    await expectRefused(udapParameters(await assertion(client, claims)), 401, 'invalid_client', description);
  });

  it('with iss other than the client_id', async () => {
    const client = await member();
    await expectRefused(udapParameters(await assertion(client, { iss: client.san })), 401, 'invalid_client', /"iss"/);
  });

  it('when the community is disabled, and again accepted once it is enabled', async () => {
    const client = await member();
    await patchCommunity(communityA, { enabled: false });
    try {
      await expectRefused(udapParameters(await assertion(client)), 401, 'invalid_client', /trust community is disabled/);
    } finally {
      await patchCommunity(communityA, { enabled: true });
    }
    expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
  });

  it('once the anchor that builds its chain is removed from the community, and again accepted once it is back', async () => {
    const client = await member();
    expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
    await patchCommunity(communityA, { anchors: [rootB.pem] });
    try {
      await expectRefused(udapParameters(await assertion(client)), 401, 'invalid_client', /trust anchor/);
    } finally {
      await patchCommunity(communityA, { anchors: [rootA.pem] });
    }
    expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
  });

  it('when the client sends its assertion without udap=1', async () => {
    const client = await member();
    const parameters = udapParameters(await assertion(client));
    delete (parameters as Partial<Record<string, string>>).udap;
    await expectRefused(parameters, 401, 'invalid_client', /registered by UDAP: ask with udap=1/);
  });
});

describe('on a second instance', () => {
  let second: TestApp | undefined;

  afterAll(async () => {
    await second?.close();
  });

  it('refuses a member at once once another instance has disabled its community', async () => {
    second = await startTestApp({ UDAP: 'true', JWKS_URI_ALLOW_HTTP: 'true', ISSUER: server.url });
    const client = await member();
    const onSecond = async () =>
      request(second!.url)
        .post('/oauth2/token')
        .type('form')
        .send(new URLSearchParams(udapParameters(await assertion(client))).toString());
    expect((await onSecond()).status).toBe(200);
    await patchCommunity(communityA, { enabled: false });
    try {
      const refused = await onSecond();
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_client');
    } finally {
      await patchCommunity(communityA, { enabled: true });
    }
  });
});

describe('refused with 400 invalid_grant naming the member', () => {
  it.each([
    ['no extensions', { extensions: undefined }, /"extensions"/],
    ['no hl7-b2b', { extensions: { other: {} } }, /"hl7-b2b"/],
    ['a version other than "1"', { extensions: { 'hl7-b2b': hl7b2b({ version: 1 }) } }, /"version"/],
    ['no organization_id', { extensions: { 'hl7-b2b': hl7b2b({ organization_id: undefined }) } }, /"organization_id"/],
    ['a relative organization_id', { extensions: { 'hl7-b2b': hl7b2b({ organization_id: 'organization/1' }) } }, /"organization_id" must be an absolute URI/],
    ['an empty purpose_of_use', { extensions: { 'hl7-b2b': hl7b2b({ purpose_of_use: [] }) } }, /"purpose_of_use"/],
    ['a purpose_of_use that is a string', { extensions: { 'hl7-b2b': hl7b2b({ purpose_of_use: TREAT }) } }, /"purpose_of_use"/],
    ['a subject_name that is a number', { extensions: { 'hl7-b2b': hl7b2b({ subject_name: 7 }) } }, /"subject_name"/],
    ['a relative consent_reference', { extensions: { 'hl7-b2b': hl7b2b({ consent_reference: ['/consent/1'] }) } }, /"consent_reference"/],
  ])('with %s', async (_, overrides, description) => {
    const client = await member();
    await expectRefused(udapParameters(await assertion(client, overrides)), 400, 'invalid_grant', description);
  });

  it("with a purpose of use outside the community's purposesOfUse, naming the code", async () => {
    const client = await member();
    const overrides = { extensions: { 'hl7-b2b': hl7b2b({ purpose_of_use: [TREAT, HPAYMT] }) } };
    await expectRefused(udapParameters(await assertion(client, overrides)), 400, 'invalid_grant', new RegExp(HPAYMT.replace(/[.#]/g, '\\$&')));
  });
});

describe('a cancelled registration', () => {
  it('gets no token, and its live tokens are inactive', async () => {
    const client = await member();
    const token = (await tokenRequest(udapParameters(await assertion(client)))).body.access_token as string;
    await member([], client);
    await expectRefused(udapParameters(await assertion(client)), 401, 'invalid_client', /no client registered by UDAP|cancelled/);
    expect(await introspect(token)).toEqual({ active: false });
  });

  it('is kept with no grant type while a consent record names it, and a later registration revives it', async () => {
    const client = await member();
    const id = await clientRowId(server, client.clientId);
    const [purpose, ticket] = freshIds(2);
    const made = await patchAdmin(server, [
      add('purpose', { id: purpose, attributes: { name: 'Treatment of the patient' } }),
      add('capability-ticket', {
        id: ticket,
        attributes: { ticketId: `ticket-udap-${ticket}`, ticketName: 'Treatment' },
        relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', id) },
      }),
    ]);
    expect(made.status).toBe(200);
    const token = (await tokenRequest(udapParameters(await assertion(client)))).body.access_token as string;
    await member([], client);
    const [kept] = await server.dataSource.query<{ grant_types: string }[]>(
      'SELECT m.grant_types FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1',
      [client.clientId],
    );
    expect(kept).toEqual({ grant_types: '' });
    await expectRefused(udapParameters(await assertion(client)), 401, 'invalid_client', /cancelled/);
    expect(await introspect(token)).toEqual({ active: false });
    const revived = await member(['client_credentials'], client);
    expect(revived.clientId).toBe(client.clientId);
    expect((await tokenRequest(udapParameters(await assertion(client)))).status).toBe(200);
  });
});
