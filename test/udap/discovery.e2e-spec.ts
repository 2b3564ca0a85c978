/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   JSON answers are read member by member here (supertest types every body as any). */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import request from 'supertest';
import { freshDatabase, startTestApp, type TestApp } from '../support/test-app.js';
import { selfSignedCertificate, udapServerCertificate, writeUdapServerFiles, type UdapServerFiles } from '../support/udap-anchors.js';
import { createTrustCommunity, patchTrustCommunity, postTrustCommunity, type TrustCommunityResource } from '../support/udap-members.js';

// docs/reference/trust-communities.md#discovery: GET /.well-known/udap, and a community's own server certificate.
const ISSUER = 'https://udap-as.example.org';
const ORIGIN = 'https://app.example';
const DAY = 86_400_000;
const YEAR_SECONDS = 366 * 86_400;

let dir: string;
let server: TestApp;
let udapOff: TestApp;
let serverFiles: UdapServerFiles;
let communityFiles: UdapServerFiles;
let anchor: string;
const run = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'udap-discovery-'));
  const written = await writeUdapServerFiles(dir, ISSUER);
  serverFiles = written.files;
  [communityFiles, anchor] = await Promise.all([
    udapServerCertificate([ISSUER], { name: 'Community server' }),
    selfSignedCertificate('CN=Discovery Root', true),
  ]);
  // A database of its own: KEY_ENCRYPTION_SECRET seals its signing keys, which other suites' servers could not read.
  const databaseUrl = await freshDatabase('udap_discovery');
  const secret = 'udap-discovery-test-secret';
  server = await startTestApp({
    DATABASE_URL: databaseUrl,
    UDAP: 'true',
    ISSUER,
    UDAP_CERT_FILE: written.UDAP_CERT_FILE,
    UDAP_KEY_FILE: written.UDAP_KEY_FILE,
    KEY_ENCRYPTION_SECRET: secret,
    CORS_ALLOWED_ORIGINS: ORIGIN,
  });
  udapOff = await startTestApp({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: secret });
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.close(), udapOff?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

let count = 0;
const fresh = (what: string) => `${what}-${run}-${count++}`;

function communityAttributes(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Discovery community',
    communityUri: `https://community.example/${fresh('c')}`,
    anchors: [anchor],
    scopeCeiling: 'system/Patient.rs',
    ...overrides,
  };
}

async function community(overrides: Record<string, unknown> = {}): Promise<TrustCommunityResource> {
  return createTrustCommunity(server, communityAttributes(overrides));
}

function discovery(app: TestApp, query = '') {
  return request(app.url).get(`/.well-known/udap${query}`);
}

/** The x5c chain of signed_metadata, as PEM, leaf first. */
function x5cOf(jws: string): string[] {
  return (decodeProtectedHeader(jws).x5c ?? []).map((der) => `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`);
}

function chainOf(files: UdapServerFiles): string[] {
  return (files.chain.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((pem) =>
    new X509Certificate(pem).raw.toString('base64'),
  );
}

async function verified(jws: string): Promise<{ header: Record<string, unknown>; claims: Record<string, unknown> }> {
  const [leaf] = x5cOf(jws);
  const { payload, protectedHeader } = await compactVerify(jws, await importX509(leaf, 'RS256'));
  return { header: protectedHeader, claims: JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown> };
}

const tableCounts = async () =>
  (
    await server.dataSource.query<{ communities: number; events: number }[]>(
      'SELECT (SELECT count(*)::int FROM trust_community) AS communities, (SELECT count(*)::int FROM audit_event) AS events',
    )
  )[0];

describe('GET /.well-known/udap', () => {
  it('answers every member of the UDAP metadata', async () => {
    const response = await discovery(server);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const { signed_metadata: signed, scopes_supported: scopes, ...members } = response.body;
    expect(members).toEqual({
      udap_versions_supported: ['1'],
      udap_profiles_supported: ['udap_dcr', 'udap_authn', 'udap_authz'],
      udap_authorization_extensions_supported: ['hl7-b2b'],
      udap_authorization_extensions_required: ['hl7-b2b'],
      udap_certifications_supported: [],
      grant_types_supported: ['client_credentials'],
      token_endpoint: `${ISSUER}/oauth2/token`,
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256', 'RS384', 'ES384'],
      registration_endpoint: `${ISSUER}/oauth2/register`,
      registration_endpoint_jwt_signing_alg_values_supported: ['RS256', 'ES256', 'RS384', 'ES384'],
    });
    expect(Array.isArray(scopes)).toBe(true);
    expect(typeof signed).toBe('string');
  });

  it("lists in scopes_supported every scope of the enabled communities' ceilings, each once, and none of a disabled community's", async () => {
    const [a, b, hidden] = [fresh('system/Observation.rs?code='), fresh('scope-b'), fresh('scope-hidden')];
    await community({ scopeCeiling: `${a} ${b}` });
    await community({ scopeCeiling: b });
    await community({ scopeCeiling: hidden, enabled: false });
    const scopes = (await discovery(server)).body.scopes_supported as string[];
    expect(scopes).toEqual(expect.arrayContaining([a, b]));
    expect(scopes.filter((scope) => scope === b)).toHaveLength(1);
    expect(scopes).not.toContain(hidden);
  });

  it("signs signed_metadata with RS256 and the server certificate's chain, leaf first, in x5c", async () => {
    const signed = (await discovery(server)).body.signed_metadata as string;
    const { header } = await verified(signed);
    expect(header).toEqual({ alg: 'RS256', x5c: chainOf(serverFiles) });
  });

  it('puts a leaf whose SAN URI is the issuer, issued by the next certificate of the chain, in x5c', async () => {
    const [leaf, ca] = x5cOf((await discovery(server)).body.signed_metadata as string).map((pem) => new X509Certificate(pem));
    expect(leaf.subjectAltName).toContain(`URI:${ISSUER}`);
    expect(leaf.verify(ca.publicKey)).toBe(true);
  });

  it('claims iss and sub the issuer, iat now, exp within a year, a jti, and both endpoints', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { claims } = await verified((await discovery(server)).body.signed_metadata as string);
    expect(claims).toEqual({
      iss: ISSUER,
      sub: ISSUER,
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.any(String),
      token_endpoint: `${ISSUER}/oauth2/token`,
      registration_endpoint: `${ISSUER}/oauth2/register`,
    });
    expect(claims.iat as number).toBeGreaterThanOrEqual(before - 1);
    expect(claims.iat as number).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect(claims.exp as number).toBeGreaterThan(claims.iat as number);
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(YEAR_SECONDS);
  });

  it('signs each answer with a fresh jti', async () => {
    const [first, second] = await Promise.all([discovery(server), discovery(server)]);
    const jtis = await Promise.all([first, second].map(async (response) => (await verified(response.body.signed_metadata as string)).claims.jti));
    expect(jtis[0]).not.toBe(jtis[1]);
  });

  it('is not cached, as the SMART configuration', async () => {
    const [udap, smart] = await Promise.all([discovery(server), request(server.url).get('/.well-known/smart-configuration')]);
    expect(udap.headers['cache-control']).toBe('no-cache');
    expect(udap.headers['cache-control']).toBe(smart.headers['cache-control']);
  });

  it('answers an allowed origin with CORS headers, as the other metadata documents', async () => {
    const response = await discovery(server).set('Origin', ORIGIN);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    const other = await discovery(server).set('Origin', 'https://elsewhere.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a CORS preflight from an allowed origin', async () => {
    const response = await request(server.url).options('/.well-known/udap').set('Origin', ORIGIN).set('Access-Control-Request-Method', 'GET');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('is not routed when UDAP is off (404), and the RFC 8414 document names nothing of UDAP', async () => {
    expect((await discovery(udapOff)).status).toBe(404);
    const metadata = await request(udapOff.url).get('/.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expect(metadata.body.signed_metadata).toBeUndefined();
  });

  it('leaves the RFC 8414 document as it is with UDAP off', async () => {
    const [on, off] = await Promise.all([
      request(server.url).get('/.well-known/oauth-authorization-server'),
      request(udapOff.url).get('/.well-known/oauth-authorization-server'),
    ]);
    expect(Object.keys(on.body).sort()).toEqual(Object.keys(off.body).sort());
    expect(on.body.grant_types_supported).toEqual(off.body.grant_types_supported);
  });
});

describe('GET /.well-known/udap?community=', () => {
  it("signs with the community's own server certificate when it has one", async () => {
    const { attributes } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    const response = await discovery(server, `?community=${encodeURIComponent(attributes.communityUri as string)}`);
    expect(response.status).toBe(200);
    const { header, claims } = await verified(response.body.signed_metadata as string);
    expect(header.x5c).toEqual(chainOf(communityFiles));
    expect(claims.iss).toBe(ISSUER);
  });

  it('answers the same members as the document without community', async () => {
    const { attributes } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    const [plain, scoped] = await Promise.all([discovery(server), discovery(server, `?community=${encodeURIComponent(attributes.communityUri as string)}`)]);
    const members = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'signed_metadata'));
    expect(members(scoped.body)).toEqual(members(plain.body));
  });

  it("signs with the server's certificate for a community without one of its own", async () => {
    const { attributes } = await community();
    const response = await discovery(server, `?community=${encodeURIComponent(attributes.communityUri as string)}`);
    expect(response.status).toBe(200);
    expect((await verified(response.body.signed_metadata as string)).header.x5c).toEqual(chainOf(serverFiles));
  });

  it('answers 204 with no body for an unknown community', async () => {
    const response = await discovery(server, `?community=${encodeURIComponent(`https://community.example/${fresh('unknown')}`)}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  it('answers 204 with no body for a disabled community, even one with its own certificate', async () => {
    const { attributes } = await community({ enabled: false, serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    const response = await discovery(server, `?community=${encodeURIComponent(attributes.communityUri as string)}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  it('answers 204 once a community is disabled', async () => {
    const { id, attributes } = await community();
    const query = `?community=${encodeURIComponent(attributes.communityUri as string)}`;
    expect((await discovery(server, query)).status).toBe(200);
    expect((await patchTrustCommunity(server, id, { enabled: false })).status).toBe(200);
    expect((await discovery(server, query)).status).toBe(204);
  });

  it('answers 204 for community named twice', async () => {
    const { attributes } = await community();
    const uri = encodeURIComponent(attributes.communityUri as string);
    expect((await discovery(server, `?community=${uri}&community=${uri}`)).status).toBe(204);
  });

  it('answers 204 for an empty community', async () => {
    expect((await discovery(server, '?community=')).status).toBe(204);
  });
});

describe("a trust community's server certificate (admin interface)", () => {
  it('answers serverCertificate and never serverKey', async () => {
    const { id, attributes } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    expect(attributes.serverCertificate).toBe(communityFiles.chain);
    expect(attributes).not.toHaveProperty('serverKey');
    const read = await request(server.adminUrl).get(`/admin/trust-community/${id}`).set('Authorization', server.adminToken);
    expect(read.body.data.attributes.serverCertificate).toBe(communityFiles.chain);
    expect(read.body.data.attributes).not.toHaveProperty('serverKey');
  });

  it('answers serverCertificate null for a community without one', async () => {
    const { attributes } = await community();
    expect(attributes.serverCertificate).toBeNull();
  });

  it('stores serverKey sealed with KEY_ENCRYPTION_SECRET, never as PEM', async () => {
    const { id } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    const [row] = await server.dataSource.query<{ server_key: string }[]>('SELECT server_key FROM trust_community WHERE id = $1', [Number(id)]);
    expect(row.server_key).toMatch(/^enc:v1:/);
    expect(row.server_key).not.toContain('PRIVATE KEY');
  });

  it('keeps serverKey out of the audit trail', async () => {
    const { id } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    const events = await server.dataSource.query<{ before: unknown; after: unknown }[]>(
      "SELECT before, after FROM audit_event WHERE record_type = 'trust-community' AND record_id = $1",
      [Number(id)],
    );
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(events)).not.toContain('serverKey');
  });

  it('removes both with serverCertificate and serverKey null', async () => {
    const { id } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    const response = await patchTrustCommunity(server, id, { serverCertificate: null, serverKey: null });
    expect(response.status).toBe(200);
    expect(response.body.data.attributes.serverCertificate).toBeNull();
    const [row] = await server.dataSource.query<{ server_key: string | null }[]>('SELECT server_key FROM trust_community WHERE id = $1', [Number(id)]);
    expect(row.server_key).toBeNull();
  });

  it('removes the key too when serverCertificate alone is set to null', async () => {
    const { id } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    expect((await patchTrustCommunity(server, id, { serverCertificate: null })).status).toBe(200);
    const [row] = await server.dataSource.query<{ server_certificate: string | null; server_key: string | null }[]>(
      'SELECT server_certificate, server_key FROM trust_community WHERE id = $1',
      [Number(id)],
    );
    expect(row).toEqual({ server_certificate: null, server_key: null });
  });

  it('adds a server certificate to a community by a replace naming both', async () => {
    const { id, attributes } = await community();
    const response = await patchTrustCommunity(server, id, { serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
    expect(response.status).toBe(200);
    const udap = await discovery(server, `?community=${encodeURIComponent(attributes.communityUri as string)}`);
    expect((await verified(udap.body.signed_metadata as string)).header.x5c).toEqual(chainOf(communityFiles));
  });

  describe('refusals, each a 422 naming the attribute with nothing stored', () => {
    let otherKey: UdapServerFiles;
    let wrongSan: UdapServerFiles;
    let expired: UdapServerFiles;
    let notYetValid: UdapServerFiles;
    let smallKey: UdapServerFiles;

    beforeAll(async () => {
      [otherKey, wrongSan, expired, notYetValid, smallKey] = await Promise.all([
        udapServerCertificate([ISSUER]),
        udapServerCertificate(['https://another-server.example.org']),
        udapServerCertificate([ISSUER], { notBefore: Date.now() - 30 * DAY, notAfter: Date.now() - DAY }),
        udapServerCertificate([ISSUER], { notBefore: Date.now() + DAY, notAfter: Date.now() + 30 * DAY }),
        udapServerCertificate([ISSUER], { bits: 1024 }),
      ]);
    }, 120_000);

    it.each([
      [
        'a key of another certificate',
        () => ({ serverCertificate: communityFiles.chain, serverKey: otherKey.key }),
        'serverKey',
        "is not the private key of the certificate's leaf",
      ],
      [
        'a leaf without the issuer as SAN URI',
        () => ({ serverCertificate: wrongSan.chain, serverKey: wrongSan.key }),
        'serverCertificate',
        'no subjectAltName URI equal to the issuer',
      ],
      ['an expired leaf', () => ({ serverCertificate: expired.chain, serverKey: expired.key }), 'serverCertificate', 'has expired'],
      ['a leaf not yet valid', () => ({ serverCertificate: notYetValid.chain, serverKey: notYetValid.key }), 'serverCertificate', 'is not yet valid'],
      ['an RSA key under 2048 bits', () => ({ serverCertificate: smallKey.chain, serverKey: smallKey.key }), 'serverKey', 'at least 2048 bits'],
      ['a serverCertificate without serverKey', () => ({ serverCertificate: communityFiles.chain }), 'serverKey', 'must be given with serverCertificate'],
      ['a serverKey without serverCertificate', () => ({ serverKey: communityFiles.key }), 'serverCertificate', 'must be given with serverKey'],
      ['a serverCertificate that is not PEM', () => ({ serverCertificate: 'not a certificate', serverKey: communityFiles.key }), 'serverCertificate', 'PEM'],
      [
        'a serverCertificate whose PEM cannot be read',
        () => ({ serverCertificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', serverKey: communityFiles.key }),
        'serverCertificate',
        'cannot be read',
      ],
      [
        'a serverKey that is not a key',
        () => ({ serverCertificate: communityFiles.chain, serverKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }),
        'serverKey',
        'not a readable PEM private key',
      ],
    ])('refuses %s on create', async (_case, given, attribute, detail) => {
      const before = await tableCounts();
      const response = await postTrustCommunity(server, communityAttributes(given()));
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ status: '422', source: { pointer: `/data/attributes/${attribute}` } });
      expect(response.body.errors[0].detail).toContain(detail);
      expect(await tableCounts()).toEqual(before);
    });

    it('never echoes the key in a refusal', async () => {
      const response = await postTrustCommunity(server, communityAttributes({ serverCertificate: communityFiles.chain, serverKey: otherKey.key }));
      expect(response.status).toBe(422);
      expect(response.text).not.toContain('PRIVATE KEY');
    });

    it('refuses a replace naming serverCertificate alone, and changes nothing', async () => {
      const { id } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
      const response = await patchTrustCommunity(server, id, { serverCertificate: otherKey.chain });
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/serverKey' } });
      const read = await request(server.adminUrl).get(`/admin/trust-community/${id}`).set('Authorization', server.adminToken);
      expect(read.body.data.attributes.serverCertificate).toBe(communityFiles.chain);
    });

    it('refuses a replace with a key of another certificate, and changes nothing', async () => {
      const { id } = await community({ serverCertificate: communityFiles.chain, serverKey: communityFiles.key });
      const response = await patchTrustCommunity(server, id, { serverCertificate: communityFiles.chain, serverKey: otherKey.key });
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/serverKey' } });
      const [row] = await server.dataSource.query<{ version: number }[]>('SELECT version FROM trust_community WHERE id = $1', [Number(id)]);
      expect(row.version).toBe(1);
    });

    it.each([
      ['a serverCertificate that is a number', { serverCertificate: 7, serverKey: 'x' }, 'serverCertificate'],
      ['a serverKey that is an array', { serverKey: ['x'] }, 'serverKey'],
    ])('answers 400 for %s', async (_case, given, attribute) => {
      const before = await tableCounts();
      const response = await postTrustCommunity(server, communityAttributes(given));
      expect(response.status).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ status: '400', source: { pointer: `/data/attributes/${attribute}` } });
      expect(await tableCounts()).toEqual(before);
    });
  });
});

describe('the API documentation', () => {
  const paths = async (target: TestApp) => {
    const response = await request(target.adminUrl).get('/docs-json');
    expect(response.status).toBe(200);
    return Object.keys((response.body as { paths: Record<string, unknown> }).paths);
  };

  it('lists GET /.well-known/udap and the registration endpoint when UDAP is on', async () => {
    expect(await paths(server)).toEqual(expect.arrayContaining(['/.well-known/udap', '/oauth2/register']));
  });

  it('lists no UDAP discovery when UDAP is off', async () => {
    expect(await paths(udapOff)).not.toContain('/.well-known/udap');
  });
});
