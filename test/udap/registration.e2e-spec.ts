/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment --
   RFC 7591 answers are read member by member here (supertest types every body as any). */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CrlServer, testIntermediate, testLeaf, testRoot, udapJwt, type TestIssued } from '../support/udap-anchors.js';
import {
  clientRowId,
  createTrustCommunity,
  patchTrustCommunity,
  patchUmaClient,
  postRegistration,
  softwareStatementClaims,
  udapRegistrationBody as statementBody,
} from '../support/udap-members.js';

// docs/reference/trust-communities.md#registration: UDAP registration at POST /oauth2/register,
// against a test PKI (two communities' roots, an intermediate, leaves with SAN URIs, expired,
// not yet valid and revoked leaves, CRLs served on loopback).

const DAY = 86_400_000;
const CEILING = 'system/Patient.rs system/Observation.rs';

let server: TestApp;
let crls: CrlServer;
let rootA: TestIssued;
let intermediateA: TestIssued;
let rootB: TestIssued;
let strangerRoot: TestIssued;
let communityA: string;
let communityB: string;
let sanCount = 0;

const freshSan = () => `https://lab.example/udap/${Date.now()}-${sanCount++}`;

beforeAll(async () => {
  crls = await CrlServer.start();
  rootA = await testRoot('CN=Community A Root', crls);
  intermediateA = await testIntermediate('CN=Community A Issuing CA', rootA, crls);
  rootB = await testRoot('CN=Community B Root', crls);
  strangerRoot = await testRoot('CN=Stranger Root', crls);
  // JWKS_URI_ALLOW_HTTP: the CRLs are served on loopback.
  server = await startTestApp({ UDAP: 'true', JWKS_URI_ALLOW_HTTP: 'true' });
  communityA = await community({ name: 'Community A', anchors: [rootA.pem], scopeCeiling: CEILING });
  communityB = await community({ name: 'Community B', anchors: [rootB.pem], scopeCeiling: 'system/Patient.rs', revocationCheck: 'off' });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await crls?.close();
});

async function community(attributes: Record<string, unknown>): Promise<string> {
  return (await createTrustCommunity(server, attributes)).id;
}

async function setEnabled(id: string, enabled: boolean): Promise<void> {
  expect((await patchTrustCommunity(server, id, { enabled })).status).toBe(200);
}

function claimsFor(san: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const member = { clientName: 'Lab Example B2B client', contacts: ['mailto:ops@lab.example'], scope: 'system/Patient.rs' };
  return { ...softwareStatementClaims(server, san, member, 120), ...overrides };
}

function register(body: Record<string, unknown>, authorization?: string) {
  return postRegistration(server, body, authorization);
}

/** A member of community A under the intermediate, with its own SAN URI. */
async function memberA(san = freshSan()): Promise<{ leaf: TestIssued; san: string }> {
  return { leaf: await testLeaf('CN=Lab Example,O=Lab Example Inc', san, intermediateA), san };
}

async function counts(): Promise<{ clients: number; jtis: number; events: number; metadata: number }> {
  const [row] = await server.dataSource.query<{ clients: number; jtis: number; events: number; metadata: number }[]>(
    `SELECT (SELECT count(*)::int FROM client) AS clients, (SELECT count(*)::int FROM used_jti) AS jtis,
            (SELECT count(*)::int FROM audit_event) AS events, (SELECT count(*)::int FROM client_metadata) AS metadata`,
  );
  return row;
}

type StoredClient = {
  client_id: string;
  registered_via: string;
  trust_community_id: number;
  udap_issuer: string;
  organization: string;
  client_authentication_type: string;
  jwks_raw: string | null;
  jwks_uri: string | null;
  allowed_scopes: string;
  grant_types: string;
  contacts: string;
};

async function stored(clientId: string): Promise<StoredClient | undefined> {
  const [row] = await server.dataSource.query<StoredClient[]>(
    `SELECT c.client_id, c.registered_via, c.trust_community_id, c.udap_issuer, c.organization, c.contacts,
            m.client_authentication_type, m.jwks_raw, m.jwks_uri, m.allowed_scopes, m.grant_types
       FROM client c JOIN client_metadata m ON m.id = c.metadata_id WHERE c.client_id = $1`,
    [clientId],
  );
  return row;
}

/** A refusal: its status, error code and description, and nothing stored (no client, no jti, no audit event). */
async function expectRefused(body: Record<string, unknown>, error: string, description: RegExp, authorization?: string): Promise<void> {
  const before = await counts();
  const response = await register(body, authorization);
  expect(response.status).toBe(400);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body.error).toBe(error);
  expect(response.body.error_description).toMatch(description);
  expect(await counts()).toEqual(before);
}

describe('a new member', () => {
  it('is registered with 201 and the RFC 7591 body: a udap- client id, the statement echoed, no secret and no registration access token', async () => {
    const { leaf, san } = await memberA();
    const body = await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'system/Patient.rs system/Observation.rs' }));
    const response = await register(body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      client_id: expect.stringMatching(/^udap-[A-Za-z0-9_-]{22}$/) as string,
      software_statement: body.software_statement,
      client_name: 'Lab Example B2B client',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      scope: 'system/Patient.rs system/Observation.rs',
      contacts: ['mailto:ops@lab.example'],
      client_id_issued_at: expect.any(Number) as number,
    });
    expect(Math.abs(response.body.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60);
  });

  it('whose certificate chains to anchors of two communities is registered in the older one', async () => {
    const newer = await community({ name: 'Community A again', anchors: [rootA.pem], scopeCeiling: CEILING });
    try {
      const { leaf, san } = await memberA();
      const response = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
      expect(response.status).toBe(201);
      expect((await stored(response.body.client_id as string))?.trust_community_id).toBe(Number(communityA));
    } finally {
      const removed = await request(server.adminUrl).delete(`/admin/trust-community/${newer}`).set('Authorization', server.adminToken);
      expect(removed.status).toBe(204);
    }
  });

  it('stores an ordinary private_key_jwt client without keys, with its community, SAN URI and organization', async () => {
    const { leaf, san } = await memberA();
    const response = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    expect(response.status).toBe(201);
    expect(await stored(response.body.client_id as string)).toEqual({
      client_id: response.body.client_id,
      registered_via: 'udap',
      trust_community_id: Number(communityA),
      udap_issuer: san,
      // RFC 4514 text, most significant RDN last.
      organization: 'O=Lab Example Inc,CN=Lab Example',
      contacts: JSON.stringify(['mailto:ops@lab.example']),
      client_authentication_type: 'private_key_jwt',
      jwks_raw: null,
      jwks_uri: null,
      allowed_scopes: 'system/Patient.rs',
      grant_types: 'client_credentials',
    });
  });

  it('audits the registration as an add of the client', async () => {
    const { leaf, san } = await memberA();
    const response = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    const [event] = await server.dataSource.query<{ actor: string; operation: string }[]>(
      `SELECT e.actor, e.operation FROM audit_event e JOIN client c ON c.id = e.record_id WHERE e.record_type = 'uma-client' AND c.client_id = $1`,
      [response.body.client_id],
    );
    expect(event).toEqual({ actor: expect.stringMatching(new RegExp(`^udap:${response.body.client_id as string}@`)) as string, operation: 'add' });
  });

  it('is registered in the community whose anchor builds its chain (a leaf issued by the second community root)', async () => {
    const san = freshSan();
    const leaf = await testLeaf('CN=Clinic B', san, rootB);
    const response = await register(await statementBody(leaf, [], claimsFor(san)));
    expect(response.status).toBe(201);
    expect((await stored(response.body.client_id as string))?.trust_community_id).toBe(Number(communityB));
  });

  it('accepts certifications and ignores them', async () => {
    const { leaf, san } = await memberA();
    const response = await register({ ...(await statementBody(leaf, [intermediateA], claimsFor(san))), certifications: ['eyJhbGciOiJub25lIn0.e30.'] });
    expect(response.status).toBe(201);
  });
});

describe('registering again', () => {
  it('replaces the registration of the same iss in the same community: 200 with the same client_id', async () => {
    const { leaf, san } = await memberA();
    const first = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    const second = await register(await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'system/Observation.rs', client_name: 'Renamed' })));
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ client_id: first.body.client_id, client_name: 'Renamed', scope: 'system/Observation.rs' });
    expect(second.body.client_id_issued_at).toBe(first.body.client_id_issued_at);
    expect(await stored(first.body.client_id as string)).toMatchObject({ allowed_scopes: 'system/Observation.rs', grant_types: 'client_credentials' });
  });

  it('replaces it also from a renewed certificate with the same SAN URI', async () => {
    const { leaf, san } = await memberA();
    const first = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    const renewed = await testLeaf('CN=Lab Example Renewed', san, intermediateA);
    const second = await register(await statementBody(renewed, [intermediateA], claimsFor(san)));
    expect(second.status).toBe(200);
    expect(second.body.client_id).toBe(first.body.client_id);
    expect((await stored(first.body.client_id as string))?.organization).toBe('CN=Lab Example Renewed');
  });

  it('cancels with grant_types []: 200 with grant_types [], and the client no consent record names is removed', async () => {
    const { leaf, san } = await memberA();
    const first = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    const cancel = await register(await statementBody(leaf, [intermediateA], claimsFor(san, { grant_types: [] })));
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ client_id: first.body.client_id, grant_types: [] });
    expect(await stored(first.body.client_id as string)).toBeUndefined();
  });

  it('after a cancellation that removed the client, registers the iss anew (201, a new client_id)', async () => {
    const { leaf, san } = await memberA();
    const first = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    await register(await statementBody(leaf, [intermediateA], claimsFor(san, { grant_types: [] })));
    const again = await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    expect(again.status).toBe(201);
    expect(again.body.client_id).not.toBe(first.body.client_id);
  });

  it('refuses to cancel a registration that does not exist (invalid_client_metadata), storing nothing', async () => {
    const { leaf, san } = await memberA();
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san, { grant_types: [] })), 'invalid_client_metadata', /grant_types/);
  });
});

describe('metrics', () => {
  it('counts registrations by result and certificate checks by result', async () => {
    const { leaf, san } = await memberA();
    await register(await statementBody(leaf, [intermediateA], claimsFor(san)));
    await register(await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'user/Patient.rs' })));
    const metrics = (await request(server.adminUrl).get('/metrics')).text;
    expect(metrics).toMatch(/^udap_registrations_total\{result="created"\} [1-9]/m);
    expect(metrics).toMatch(/^udap_registrations_total\{result="refused"\} [1-9]/m);
    expect(metrics).toMatch(/^udap_certificate_checks_total\{result="ok"\} [1-9]/m);
  });
});

describe('an administrator', () => {
  it("may narrow a member's allowedScopes, though it registered no keys", async () => {
    const { leaf, san } = await memberA();
    const response = await register(await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'system/Patient.rs system/Observation.rs' })));
    const id = await clientRowId(server, response.body.client_id as string);
    const patched = await patchUmaClient(server, id, { allowedScopes: 'system/Patient.rs' });
    expect(patched.status).toBe(200);
    expect((await stored(response.body.client_id as string))?.allowed_scopes).toBe('system/Patient.rs');
  });

  it("keeps a member's narrowed scopes narrowed: registering again with the old scope is refused, with nothing stored", async () => {
    const { leaf, san } = await memberA();
    const response = await register(await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'system/Patient.rs system/Observation.rs' })));
    const id = await clientRowId(server, response.body.client_id as string);
    const patched = await patchUmaClient(server, id, { allowedScopes: 'system/Patient.rs' });
    expect(patched.status).toBe(200);
    await expectRefused(
      await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'system/Patient.rs system/Observation.rs' })),
      'invalid_client_metadata',
      /system\/Observation\.rs is outside the scopes an administrator set/,
    );
    const within = await register(await statementBody(leaf, [intermediateA], claimsFor(san, { scope: 'system/Patient.rs' })));
    expect(within.status).toBe(200);
  });
});

describe('refusals, each 400 with nothing stored and no jti recorded', () => {
  it('refuses a UDAP body with a bearer token (invalid_request)', async () => {
    const { leaf, san } = await memberA();
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san)), 'invalid_request', /Authorization/, 'Bearer some-initial-access-token');
  });

  it('refuses udap other than "1" (invalid_request)', async () => {
    const { leaf, san } = await memberA();
    await expectRefused({ ...(await statementBody(leaf, [intermediateA], claimsFor(san))), udap: '2' }, 'invalid_request', /udap/);
  });

  it('refuses a missing software statement (invalid_software_statement)', async () => {
    await expectRefused({ udap: '1' }, 'invalid_software_statement', /software_statement/);
  });

  it('refuses a statement that is not a JWS (invalid_software_statement)', async () => {
    await expectRefused({ software_statement: 'not-a-jws', udap: '1' }, 'invalid_software_statement', /compact JWS/);
  });

  it("refuses a statement whose signature is not the leaf key's (invalid_software_statement)", async () => {
    const { leaf, san } = await memberA();
    const other = await testLeaf('CN=Other', san, intermediateA);
    const forged = await udapJwt({ ...leaf, keys: other.keys }, [intermediateA], claimsFor(san));
    await expectRefused({ software_statement: forged, udap: '1' }, 'invalid_software_statement', /signature/);
  });

  it('refuses alg none (invalid_software_statement)', async () => {
    const { leaf, san } = await memberA();
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const none = `${part({ alg: 'none', x5c: [leaf.der, intermediateA.der] })}.${part(claimsFor(san))}.`;
    await expectRefused({ software_statement: none, udap: '1' }, 'invalid_software_statement', /alg/);
  });

  it('refuses a certificate of no trusted community (unapproved_software_statement)', async () => {
    const san = freshSan();
    const leaf = await testLeaf('CN=Stranger', san, strangerRoot);
    await expectRefused(await statementBody(leaf, [], claimsFor(san)), 'unapproved_software_statement', /trust anchor|trust community/);
  });

  it('refuses an expired certificate (unapproved_software_statement)', async () => {
    const san = freshSan();
    const leaf = await testLeaf('CN=Expired', san, intermediateA, { notBefore: Date.now() - 30 * DAY, notAfter: Date.now() - DAY });
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san)), 'unapproved_software_statement', /expired/);
  });

  it('refuses a certificate not yet valid (unapproved_software_statement)', async () => {
    const san = freshSan();
    const leaf = await testLeaf('CN=Future', san, intermediateA, { notBefore: Date.now() + DAY, notAfter: Date.now() + 30 * DAY });
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san)), 'unapproved_software_statement', /not yet valid/);
  });

  it('refuses a revoked certificate (unapproved_software_statement)', async () => {
    const san = freshSan();
    const leaf = await testLeaf('CN=Revoked', san, intermediateA);
    await crls.revoke(intermediateA, leaf);
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san)), 'unapproved_software_statement', /revoked/);
  });

  it('refuses an iss that is not a SAN URI of the leaf (unapproved_software_statement)', async () => {
    const { leaf } = await memberA();
    const other = freshSan();
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(other)), 'unapproved_software_statement', /"iss" is not a subjectAltName URI/);
  });

  it('refuses a member of a disabled community (unapproved_software_statement)', async () => {
    const san = freshSan();
    const leaf = await testLeaf('CN=Clinic B', san, rootB);
    await setEnabled(communityB, false);
    try {
      await expectRefused(await statementBody(leaf, [], claimsFor(san)), 'unapproved_software_statement', /trust/);
    } finally {
      await setEnabled(communityB, true);
    }
  });

  it.each([
    ['a sub other than iss', { sub: 'https://other.example/client' }, /"sub"/],
    ['an aud other than the registration endpoint', { aud: 'https://as.example/oauth2/register' }, /"aud"/],
    ['an aud array', { aud: ['REGISTER'] }, /"aud"/],
    ['an exp more than 300 s after iat', { exp: Math.floor(Date.now() / 1000) + 400 }, /"exp" must be at most 300/],
    ['an exp past', { iat: Math.floor(Date.now() / 1000) - 200, exp: Math.floor(Date.now() / 1000) - 100 }, /"exp" is past/],
    ['no iat', { iat: undefined }, /"iat"/],
    ['no jti', { jti: undefined }, /"jti"/],
    ['no client_name', { client_name: undefined }, /"client_name"/],
    ['a client_name of 256 characters', { client_name: 'x'.repeat(256) }, /"client_name"/],
  ])('refuses %s (invalid_software_statement)', async (_, overrides, description) => {
    const { leaf, san } = await memberA();
    const claims = claimsFor(san, overrides);
    if (claims.aud instanceof Array) claims.aud = [`${server.url}/oauth2/register`];
    await expectRefused(await statementBody(leaf, [intermediateA], claims), 'invalid_software_statement', description);
  });

  it.each([
    ['grant_types authorization_code', { grant_types: ['authorization_code'] }, /grant_types/],
    ['no grant_types', { grant_types: undefined }, /grant_types/],
    ['token_endpoint_auth_method client_secret_basic', { token_endpoint_auth_method: 'client_secret_basic' }, /token_endpoint_auth_method/],
    ['a scope outside the community ceiling', { scope: 'system/Patient.rs user/Patient.rs' }, /scope: user\/Patient.rs is outside/],
    ['no scope', { scope: undefined }, /scope/],
    ['contacts without mailto:', { contacts: ['https://lab.example/contact'] }, /contacts/],
    ['no contacts', { contacts: [] }, /contacts/],
    ['redirect_uris', { redirect_uris: ['https://lab.example/callback'] }, /redirect_uris/],
    ['response_types', { response_types: ['code'] }, /response_types/],
  ])('refuses %s (invalid_client_metadata)', async (_, overrides, description) => {
    const { leaf, san } = await memberA();
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san, overrides)), 'invalid_client_metadata', description);
  });

  it('refuses a replayed jti of the same iss (invalid_software_statement)', async () => {
    const { leaf, san } = await memberA();
    const claims = claimsFor(san);
    expect((await register(await statementBody(leaf, [intermediateA], claims))).status).toBe(201);
    await expectRefused(
      await statementBody(leaf, [intermediateA], { ...claims, client_name: 'Again' }),
      'invalid_software_statement',
      /"jti" has already been used/,
    );
  });

  it('records no jti for a refused statement: the same jti registers once the statement is right', async () => {
    const { leaf, san } = await memberA();
    const jti = randomUUID();
    await expectRefused(await statementBody(leaf, [intermediateA], claimsFor(san, { jti, scope: 'user/Patient.rs' })), 'invalid_client_metadata', /scope/);
    expect((await register(await statementBody(leaf, [intermediateA], claimsFor(san, { jti })))).status).toBe(201);
  });
});

describe('with UDAP on and dynamic registration off', () => {
  let udapOnly: TestApp | undefined;

  afterAll(async () => {
    await udapOnly?.close();
  });

  it('answers a registration without udap 404: only UDAP registrations are taken', async () => {
    udapOnly = await startTestApp({ UDAP: 'true', DYNAMIC_CLIENT_REGISTRATION: 'false' });
    const response = await request(udapOnly.url)
      .post('/oauth2/register')
      .set('Content-Type', 'application/json')
      .set('Authorization', 'Bearer some-initial-access-token')
      .send(JSON.stringify({ client_name: 'Plain', grant_types: ['client_credentials'] }));
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('invalid_request');
  });
});

describe('with UDAP off', () => {
  let udapOff: TestApp | undefined;

  afterAll(async () => {
    await udapOff?.close();
  });

  it('treats a udap body as any registration: an initial access token is required', async () => {
    udapOff = await startTestApp({ UDAP: 'false' });
    const { leaf, san } = await memberA();
    const response = await request(udapOff.url)
      .post('/oauth2/register')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(await statementBody(leaf, [intermediateA], claimsFor(san))));
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_token');
  });
});
