import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import request from 'supertest';
import { add, freshIds, getAdmin, patchAdmin, ref } from '../support/admin.js';
import { enrolDataSource } from '../support/consent.js';
import { JwksServer } from '../support/jwks-server.js';
import { ASSERTION_TYPE, claimsOf, clientKey, withOverrides, type ClientKey } from '../support/keys.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  bodyOf,
  anyInstanceOf,
  type JsonApiDocument,
  type JsonApiResource,
  type OAuthErrorBody,
  type TokenBody,
  type ExplainBody,
  type PointedJsonApiErrors,
  type SmartConfigurationBody,
} from '../support/bodies.js';
import { LogLines } from '../support/log-lines.js';

/** The access token claims these tests read. */
type TokenClaims = { exp: number; iat: number; scope: string; aud: unknown; permissions: { resource_type: string }[] };
const tokenClaims = (jwt: string) => claimsOf(jwt) as TokenClaims;

let server: TestApp;
// Every invalid_client says the same; the request's log line names the check.
const logs = new LogLines();
let keys: JwksServer;
let rsa: ClientKey;
let ec: ClientKey;
let world: SmartWorld;

/** A FHIR type no other test maps: one definition per (type, query) in the whole database. */
const freshType = () =>
  `Obs${randomBytes(6)
    .toString('hex')
    .replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)])}`;

type SmartWorld = {
  clientId: string;
  client: number;
  type: string;
  jwksUri: string;
  ids: { observations: number; labs: number; read: number; all: number; write: number; labsRead: number; observationResource: number; labsResource: number };
};

/**
 * Through the admin interface, a backend client as SMART registers one (keys at a jwks_uri,
 * tokens of 300 s, no refresh grant) and two definitions mapped to one FHIR type: without a
 * query (scopes read = rs, all = cruds, write = cud) and with `category=laboratory` (read = rs).
 * Consent tickets cover read of both; write is allowed but bound by no ticket.
 */
async function smartWorld(target: TestApp, options: { lifetime?: number | null; maxPermissionDuration?: number } = {}): Promise<SmartWorld> {
  const [
    client,
    observations,
    labs,
    read,
    all,
    write,
    labsRead,
    purpose,
    ticket,
    observationResource,
    labsResource,
    binding1,
    binding2,
    combination1,
    combination2,
  ] = freshIds(15);
  const type = freshType();
  const clientId = `backend-${client}`;
  const path = keys.nextPath();
  const jwksUri = keys.serve(path, { keys: [rsa.jwk, ec.jwk] });
  const observationsName = `observations-${observations}`;
  const labsName = `labs-${labs}`;
  const operations = [
    add('uma-client', {
      id: client,
      attributes: {
        clientId,
        clientName: 'Bulk export',
        clientAuthenticationType: 'private_key_jwt',
        jwksUri,
        grantTypes: 'client_credentials',
        allowedScopes: `${observationsName}:read ${observationsName}:all ${observationsName}:write ${labsName}:read`,
        accessTokenLifetime: options.lifetime === undefined ? 300 : options.lifetime,
      },
    }),
    add('resource-definition', { id: observations, attributes: { name: observationsName, fhirResourceType: type } }),
    add('resource-definition', { id: labs, attributes: { name: labsName, fhirResourceType: type, fhirQuery: 'category=laboratory' } }),
    add('scope', {
      id: read,
      attributes: { name: 'read', smartPermissions: 'rs' },
      relationships: { resourceDefinition: ref('resource-definition', observations) },
    }),
    add('scope', {
      id: all,
      attributes: { name: 'all', smartPermissions: 'cruds' },
      relationships: { resourceDefinition: ref('resource-definition', observations) },
    }),
    add('scope', {
      id: write,
      attributes: { name: 'write', smartPermissions: 'cud' },
      relationships: { resourceDefinition: ref('resource-definition', observations) },
    }),
    add('scope', {
      id: labsRead,
      attributes: { name: 'read', smartPermissions: 'rs' },
      relationships: { resourceDefinition: ref('resource-definition', labs) },
    }),
    add('purpose', { id: purpose, attributes: { name: 'Quality reporting' } }),
    add('capability-ticket', {
      id: ticket,
      attributes: { ticketId: `T-${ticket}`, ticketName: 'Export' },
      relationships: { purpose: ref('purpose', purpose), umaClient: ref('uma-client', client) },
    }),
    ...[
      [observationResource, observations, read, binding1, combination1],
      [labsResource, labs, labsRead, binding2, combination2],
    ].flatMap(([resource, definition, scope, binding, combination]) => [
      add('requested-resource', {
        id: resource,
        attributes: { maxPermissionDuration: options.maxPermissionDuration ?? 3600, requestedResourceId: `export-${resource}` },
        relationships: { resourceDefinition: ref('resource-definition', definition), umaClient: ref('uma-client', client) },
      }),
      add('requested-resource-scopes', {
        id: binding,
        relationships: { scope: ref('scope', scope), purpose: ref('purpose', purpose), requestedResource: ref('requested-resource', resource) },
      }),
      add('requested-resources-capability-tickets', {
        id: combination,
        relationships: { capabilityTicket: ref('capability-ticket', ticket), requestedResource: ref('requested-resource', resource) },
      }),
    ]),
  ];
  const response = await patchAdmin(target, operations);
  if (response.status !== 200) throw new Error(`SMART world not created: ${JSON.stringify(response.body)}`);
  return { clientId, client, type, jwksUri, ids: { observations, labs, read, all, write, labsRead, observationResource, labsResource } };
}

/** The form body as Inferno's request builder writes it: keys sorted, every character but A-Z a-z 0-9 - . _ ~ percent-encoded. */
function infernoBody(parameters: Record<string, string>): string {
  const encode = (text: string) =>
    [...Buffer.from(text, 'utf8')]
      .map((byte) => {
        const char = String.fromCharCode(byte);
        return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  return Object.keys(parameters)
    .sort()
    .map((name) => `${encode(name)}=${encode(parameters[name])}`)
    .join('&');
}

/** An assertion as Inferno signs it: header {alg, kid, typ: "JWT"}, claims {iss, sub, aud: token URL, exp: now + 300, jti}. */
function infernoAssertion(key: ClientKey, clientId: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const payload = withOverrides(
    { iss: clientId, sub: clientId, aud: `${server.url}/oauth2/token`, exp: Math.floor(Date.now() / 1000) + 300, jti: randomBytes(32).toString('hex') },
    claims,
  );
  return new SignJWT(payload).setProtectedHeader(withOverrides({ alg: key.alg, kid: key.jwk.kid, typ: 'JWT' }, header) as { alg: string }).sign(key.privateKey);
}

/** POSTs to the token endpoint exactly as Inferno does: form body, Accept application/json, no client_id. */
async function infernoRequest(target: TestApp, parameters: { scope: string; grant_type?: string; client_assertion_type?: string; client_assertion: string }) {
  const body = infernoBody({ grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, ...parameters });
  return request(target.url).post('/oauth2/token').set('Content-Type', 'application/x-www-form-urlencoded').set('Accept', 'application/json').send(body);
}

async function ask(scope: string, key: ClientKey = rsa, clientId = world.clientId, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  return infernoRequest(server, { scope, client_assertion: await infernoAssertion(key, clientId, claims, header) });
}

beforeAll(async () => {
  keys = new JwksServer();
  await keys.start();
  server = await startTestApp({ JWKS_URI_ALLOW_HTTP: 'true', LOG_LEVEL: 'info' }, { logs: logs.stream });
  rsa = await clientKey('RS384');
  ec = await clientKey('ES384');
  world = await smartWorld(server);
});

afterAll(async () => {
  await server.close();
  await keys.stop();
});

beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

describe("Inferno's backend-services requests, replayed exactly", () => {
  it.each(['RS384', 'ES384'])('grants a token for an %s assertion (backend_services_authorization_request_success)', async (alg) => {
    const response = await ask(`system/${world.type}.rs`, alg === 'RS384' ? rsa : ec);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    // backend_services_authorization_response_body: access_token, token_type, expires_in and scope.
    expect(response.body).toEqual({ access_token: anyInstanceOf(String), token_type: 'Bearer', expires_in: 300, scope: `system/${world.type}.rs` });
    const claims = tokenClaims(bodyOf<TokenBody>(response).access_token);
    expect(claims.exp - claims.iat).toBe(300);
    expect(claims.scope).toBe(`system/${world.type}.rs`);
    expect(claims.permissions).toEqual([
      expect.objectContaining({
        resource_id: `export-${world.ids.observationResource}`,
        resource_type: `observations-${world.ids.observations}`,
        resource_scopes: ['read'],
      }),
    ]);
  });

  it('answers 400 unsupported_grant_type for grant_type=not_a_grant_type (backend_services_invalid_grant_type)', async () => {
    const response = await infernoRequest(server, {
      scope: `system/${world.type}.rs`,
      grant_type: 'not_a_grant_type',
      client_assertion: await infernoAssertion(rsa, world.clientId),
    });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('unsupported_grant_type');
  });

  it('answers 400 invalid_client for client_assertion_type=not_an_assertion_type (backend_services_invalid_client_assertion)', async () => {
    const response = await infernoRequest(server, {
      scope: `system/${world.type}.rs`,
      client_assertion_type: 'not_an_assertion_type',
      client_assertion: await infernoAssertion(rsa, world.clientId),
    });
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_client');
  });

  it('answers 401 invalid_client for an assertion addressed elsewhere (backend_services_invalid_jwt)', async () => {
    const response = await ask(`system/${world.type}.rs`, rsa, world.clientId, { aud: 'https://invalid_audience.com' });
    expect(response.status).toBe(401);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_client');
  });
});

describe('assertions as SMART sends them', () => {
  it.each([
    ['"jwt"', 'jwt'],
    ['"client-authentication+jwt" in capitals', 'CLIENT-AUTHENTICATION+JWT'],
    ['no typ', undefined],
  ])('accepts typ %s', async (_name, typ) => {
    expect((await ask(`system/${world.type}.rs`, ec, world.clientId, {}, { typ })).status).toBe(200);
  });

  it('refuses another typ', async () => {
    const response = await ask(`system/${world.type}.rs`, ec, world.clientId, {}, { typ: 'at+jwt' });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/"typ" must be absent, "JWT" or "client-authentication\+jwt"/);
  });

  it('accepts a jku equal to the registered jwks_uri', async () => {
    expect((await ask(`system/${world.type}.rs`, rsa, world.clientId, {}, { jku: world.jwksUri })).status).toBe(200);
  });

  it('refuses a jku that differs from the registered jwks_uri by one character', async () => {
    const response = await ask(`system/${world.type}.rs`, rsa, world.clientId, {}, { jku: `${world.jwksUri}/` });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/"jku" differs from the client's registered jwks_uri/);
  });

  it('refuses any jku for a client registered with jwks_raw', async () => {
    const [id] = freshIds(1);
    const created = await patchAdmin(server, [
      add('uma-client', {
        id,
        attributes: {
          clientId: `raw-${id}`,
          clientName: 'Raw',
          clientAuthenticationType: 'private_key_jwt',
          allowedScopes: 'read',
          jwksRaw: JSON.stringify({ keys: [ec.jwk] }),
        },
      }),
    ]);
    expect(created.status).toBe(200);
    const response = await infernoRequest(server, { scope: 'read', client_assertion: await infernoAssertion(ec, `raw-${id}`, {}, { jku: world.jwksUri }) });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/"jku" is refused: this client registered its keys as a JWKS/);
  });

  it('refuses a kid no key of the set has, without trying the other keys', async () => {
    const response = await ask(`system/${world.type}.rs`, rsa, world.clientId, {}, { kid: 'unknown-kid' });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/no key of the client's key set has the assertion's "kid"/);
  });

  it('refuses a kid whose key is of another type than alg needs', async () => {
    const response = await ask(`system/${world.type}.rs`, ec, world.clientId, {}, { kid: rsa.jwk.kid });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/is a RSA key, which cannot verify "alg" ES384/);
  });

  it('chooses the key by type without a kid', async () => {
    expect((await ask(`system/${world.type}.rs`, ec, world.clientId, {}, { kid: undefined })).status).toBe(200);
  });

  it('refuses the token endpoint URL as aud when CLIENT_ASSERTION_AUDIENCE=issuer, and accepts the issuer', async () => {
    const fapi = await startTestApp(
      { JWKS_URI_ALLOW_HTTP: 'true', CLIENT_ASSERTION_AUDIENCE: 'issuer', ISSUER: server.url, LOG_LEVEL: 'info' },
      { logs: logs.stream },
    );
    try {
      const refused = await infernoRequest(fapi, { scope: `system/${world.type}.rs`, client_assertion: await infernoAssertion(rsa, world.clientId) });
      expect(refused.status).toBe(401);
      expect(await logs.refusedBecause(refused)).toMatch(/"aud" must be the issuer identifier/);
      const accepted = await infernoRequest(fapi, {
        scope: `system/${world.type}.rs`,
        client_assertion: await infernoAssertion(rsa, world.clientId, { aud: server.url }),
      });
      expect(accepted.status).toBe(200);
    } finally {
      await fapi.close();
    }
  });

  it('refuses an aud that is neither the issuer nor the token endpoint URL', async () => {
    const response = await ask(`system/${world.type}.rs`, rsa, world.clientId, { aud: `${server.url}/oauth2/introspect` });
    expect(response.status).toBe(401);
    expect(await logs.refusedBecause(response)).toMatch(/or the token endpoint URL/);
  });

  it('refuses with 400 unsupported_grant_type only after authenticating: an unauthenticated unknown grant is 401', async () => {
    const response = await request(server.url).post('/oauth2/token').type('form').send({ grant_type: 'not_a_grant_type' });
    expect(response.status).toBe(401);
  });
});

describe('SMART scopes over the consent tickets', () => {
  const tokenOf = async (scope: string) => {
    const response = await ask(scope);
    expect(response.status).toBe(200);
    const body = bodyOf<TokenBody>(response);
    return { body, claims: tokenClaims(body.access_token) };
  };

  it('grants a v2 scope as the scope record with the fewest letters, with permissions, aud and lifetime', async () => {
    const { body, claims } = await tokenOf(`system/${world.type}.r`);
    expect(body.scope).toBe(`system/${world.type}.r`);
    expect(claims.permissions).toEqual([expect.objectContaining({ resource_type: `observations-${world.ids.observations}`, resource_scopes: ['read'] })]);
    expect(claims.aud).toBe(server.url);
    expect(claims.exp - claims.iat).toBe(300);
  });

  it('grants a v1 scope and a v2 scope with a query, in the order requested', async () => {
    const { body, claims } = await tokenOf(`system/${world.type}.read system/${world.type}.rs?category=laboratory`);
    expect(body.scope).toBe(`system/${world.type}.read system/${world.type}.rs?category=laboratory`);
    expect(claims.permissions.map((permission) => permission.resource_type).sort()).toEqual(
      [`labs-${world.ids.labs}`, `observations-${world.ids.observations}`].sort(),
    );
  });

  it('replaces a v2 wildcard by every mapped scope granted, by type then query', async () => {
    const { body } = await tokenOf('system/*.rs');
    expect(body.scope).toBe(`system/${world.type}.rs system/${world.type}.rs?category=laboratory`);
  });

  it('replaces a v1 wildcard in v1 form where there is no query, v2 letters where there is', async () => {
    const { body } = await tokenOf('system/*.read');
    expect(body.scope).toBe(`system/${world.type}.read system/${world.type}.rs?category=laboratory`);
  });

  it('sends the token to the data source serving the denoted definition', async () => {
    const own = await smartWorld(server);
    const { resourceUri } = await enrolDataSource(server, [own.ids.observations]);
    const response = await ask(`system/${own.type}.rs`, rsa, own.clientId);
    expect(response.status).toBe(200);
    expect(claimsOf(bodyOf<TokenBody>(response).access_token).aud).toBe(resourceUri);
  });

  it('gives the shorter of the client lifetime and maxPermissionDuration, and ACCESS_TOKEN_TTL without a client lifetime', async () => {
    const short = await smartWorld(server, { lifetime: 300, maxPermissionDuration: 120 });
    expect(bodyOf<TokenBody>(await ask(`system/${short.type}.rs`, rsa, short.clientId)).expires_in).toBe(120);
    const unset = await smartWorld(server, { lifetime: null, maxPermissionDuration: 86_400 });
    expect(bodyOf<TokenBody>(await ask(`system/${unset.type}.rs`, rsa, unset.clientId)).expires_in).toBe(3600);
  });

  it.each([
    ['a patient/ scope', () => `patient/${world.type}.rs`, /only system\/ scopes/],
    ['letters out of order', () => `system/${world.type}.sr`, /not a SMART permission/],
    ['a v1 scope with a query', () => `system/${world.type}.read?category=laboratory`, /v1 scope/],
    ['a wildcard with a query', () => 'system/*.rs?category=laboratory', /wildcard scope takes no query/],
    ['an unmapped type', () => 'system/Unmapped.rs', /no resource definition has fhirResourceType "Unmapped" without a query/],
    ['an unmapped query', () => `system/${world.type}.rs?category=vital-signs`, /with query "category=vital-signs"/],
    [
      'letters no scope record holds',
      () => `system/${world.type}.c?category=laboratory`,
      /no scope of resource definition "labs-\d+" has smartPermissions holding "c"/,
    ],
    ['letters granted through no consent ticket', () => `system/${world.type}.cud`, /no requested-resource-scopes record binds scope "write"/],
    ['a wildcard nothing grants', () => 'system/*.c', /no resource definition with a fhirResourceType grants "c" to client backend-/],
  ])('refuses %s with invalid_scope naming it', async (_name, scope, description) => {
    const response = await ask(scope());
    expect(response.status).toBe(400);
    const body = bodyOf<OAuthErrorBody>(response);
    expect(body.error).toBe('invalid_scope');
    expect(body.error_description.startsWith(`${scope()}: `)).toBe(true);
    expect(body.error_description).toMatch(description);
  });

  it('names the refused scope of two resource scopes when one is covered and one is not', async () => {
    const definition = `observations-${world.ids.observations}`;
    const response = await ask(`${definition}:read ${definition}:write`);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error_description).toBe(
      `${definition}:write: no requested-resource-scopes record binds scope "write" to requested resource ${world.ids.observationResource} of ${world.clientId}: scope "write" is not bound to resource type "${definition}" by any consent ticket of this client`,
    );
  });
});

describe('explain with SMART scopes', () => {
  const explain = (scope: string) =>
    request(server.adminUrl).get('/admin/explain').query({ client: world.clientId, scope }).set('Authorization', server.adminToken);

  it('shows what a SMART scope denotes', async () => {
    const response = await explain(`system/${world.type}.rs system/Unmapped.rs`);
    expect(response.status).toBe(200);
    const { scopes } = bodyOf<ExplainBody>(response);
    expect(scopes[0]).toMatchObject({ scope: `system/${world.type}.rs`, granted: true, denotes: `observations-${world.ids.observations}:read` });
    expect(scopes[1]).toMatchObject({
      scope: 'system/Unmapped.rs',
      granted: false,
      denotes: null,
      missing: 'no resource definition has fhirResourceType "Unmapped" without a query',
    });
  });

  it('shows what a wildcard expands to, each expansion following with its own entry', async () => {
    const response = await explain('system/*.rs');
    const body = bodyOf<ExplainBody>(response);
    expect(body).toMatchObject({ granted: true, lifetime: 300 });
    expect(body.scopes.map((entry: { scope: string }) => entry.scope)).toEqual([
      'system/*.rs',
      `system/${world.type}.rs`,
      `system/${world.type}.rs?category=laboratory`,
    ]);
    expect(body.scopes[0]).toEqual({
      scope: 'system/*.rs',
      granted: true,
      allowed: true,
      expandsTo: [`system/${world.type}.rs`, `system/${world.type}.rs?category=laboratory`],
    });
  });

  it('shows an empty expansion of a wildcard nothing grants', async () => {
    const response = await explain('system/*.c');
    const body = bodyOf<ExplainBody>(response);
    expect(body.granted).toBe(false);
    expect(body.scopes).toEqual([expect.objectContaining({ scope: 'system/*.c', granted: false, expandsTo: [] })]);
  });

  it('uses the client lifetime', async () => {
    expect(bodyOf<ExplainBody>(await explain(`system/${world.type}.rs`)).lifetime).toBe(300);
  });
});

describe('GET /.well-known/smart-configuration', () => {
  it('answers JSON whatever the Accept header, with the members SMART backend services need and none it forbids', async () => {
    const response = await request(server.url).get('/.well-known/smart-configuration').set('Accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = bodyOf<SmartConfigurationBody>(response);
    expect(body).toMatchObject({
      token_endpoint: `${server.url}/oauth2/token`,
      jwks_uri: `${server.url}/oauth2/jwks`,
      introspection_endpoint: `${server.url}/oauth2/introspect`,
      revocation_endpoint: `${server.url}/oauth2/revoke`,
      grant_types_supported: ['client_credentials', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      capabilities: ['client-confidential-asymmetric', 'client-confidential-symmetric', 'permission-v1', 'permission-v2'],
      code_challenge_methods_supported: ['S256'],
      response_types_supported: [],
    });
    expect(body.token_endpoint_auth_signing_alg_values_supported).toEqual(
      expect.arrayContaining(['RS256', 'RS384', 'PS256', 'PS384', 'ES256', 'ES384', 'EdDSA']),
    );
    expect(body.scopes_supported[0]).toBe('system/*.rs');
    expect(body.scopes_supported).toEqual(
      expect.arrayContaining([
        `system/${world.type}.rs`,
        `system/${world.type}.cruds`,
        `system/${world.type}.cud`,
        `system/${world.type}.rs?category=laboratory`,
      ]),
    );
    for (const forbidden of ['issuer', 'authorization_endpoint']) expect(body).not.toHaveProperty(forbidden);
    expect(JSON.stringify(body)).not.toContain('authorization_code');
  });

  it('lists a newly mapped scope within a second of the admin change', async () => {
    const [definition, scope] = freshIds(2);
    const type = freshType();
    const response = await patchAdmin(server, [
      add('resource-definition', { id: definition, attributes: { name: `fresh-${definition}`, fhirResourceType: type } }),
      add('scope', {
        id: scope,
        attributes: { name: 'read', smartPermissions: 'rs' },
        relationships: { resourceDefinition: ref('resource-definition', definition) },
      }),
    ]);
    expect(response.status).toBe(200);
    await eventually(async () => {
      const body = bodyOf<SmartConfigurationBody>(await request(server.url).get('/.well-known/smart-configuration'));
      return body.scopes_supported.includes(`system/${type}.rs`) ? true : undefined;
    }, 1_000);
  });
});

describe('admin validation of the SMART attributes', () => {
  const definition = (attributes: Record<string, unknown>) =>
    patchAdmin(server, [add('resource-definition', { attributes: { name: `def-${randomUUID()}`, ...attributes } })]);
  const pointerOf = (response: request.Response) => bodyOf<PointedJsonApiErrors[]>(response)[0].errors[0].source.pointer;

  it.each([
    ['a lower-case FHIR type', { fhirResourceType: 'observation' }, 422, 'fhirResourceType'],
    ['a FHIR type that is a number', { fhirResourceType: 7 }, 400, 'fhirResourceType'],
    ['a query without a type', { fhirQuery: 'category=laboratory' }, 422, 'fhirQuery'],
    ['a query with a space', { fhirResourceType: freshType(), fhirQuery: 'category=lab oratory' }, 422, 'fhirQuery'],
    ['a query that is no param=value pair', { fhirResourceType: freshType(), fhirQuery: 'category' }, 422, 'fhirQuery'],
    ['a query of 513 characters', { fhirResourceType: freshType(), fhirQuery: `a=${'b'.repeat(511)}` }, 422, 'fhirQuery'],
    ['a FHIR type of 65 characters', { fhirResourceType: `O${'b'.repeat(64)}` }, 422, 'fhirResourceType'],
  ])('refuses %s', async (_name, attributes, status, member) => {
    const response = await definition(attributes);
    expect(response.status).toBe(status);
    expect(pointerOf(response)).toBe(`/0/value/attributes/${member}`);
  });

  it('lets only one of two simultaneous definitions with the same type and query in', async () => {
    const type = freshType();
    const statuses = (await Promise.all([definition({ fhirResourceType: type }), definition({ fhirResourceType: type })]))
      .map((response) => response.status)
      .sort();
    expect(statuses).toEqual([200, 422]);
    const [{ count }] = await server.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM resource_definition WHERE fhir_resource_type = $1',
      [type],
    );
    expect(count).toBe(1);
  });

  it('accepts a query of exactly 512 characters', async () => {
    expect((await definition({ fhirResourceType: freshType(), fhirQuery: `a=${'b'.repeat(510)}` })).status).toBe(200);
  });

  it('refuses a second definition with the same type and no query, and with the same type and query', async () => {
    expect((await definition({ fhirResourceType: world.type })).status).toBe(422);
    expect((await definition({ fhirResourceType: world.type, fhirQuery: 'category=laboratory' })).status).toBe(422);
    expect((await definition({ fhirResourceType: world.type, fhirQuery: 'category=vital-signs' })).status).toBe(200);
  });

  it.each([
    ['sr', 422],
    ['', 422],
    ['x', 422],
    ['crudss', 422],
    ['cruds', 200],
    [true, 400],
  ])('answers smartPermissions %p with %d', async (permissions, status) => {
    const [definitionId] = freshIds(1);
    const response = await patchAdmin(server, [
      add('resource-definition', { id: definitionId, attributes: { name: `perm-${definitionId}` } }),
      add('scope', {
        attributes: { name: 'read', smartPermissions: permissions },
        relationships: { resourceDefinition: ref('resource-definition', definitionId) },
      }),
    ]);
    expect(response.status).toBe(status);
    if (status !== 200) expect(pointerOf({ body: [bodyOf<unknown[]>(response)[1]] } as request.Response)).toBe('/1/value/attributes/smartPermissions');
  });

  it.each([
    [0, 422],
    [86_401, 422],
    ['300', 400],
    [1.5, 400],
  ])('answers accessTokenLifetime %p with %d', async (lifetime, status) => {
    const response = await patchAdmin(server, [
      add('uma-client', { attributes: { clientId: `life-${randomUUID()}`, clientName: 'L', allowedScopes: 'read', accessTokenLifetime: lifetime } }),
    ]);
    expect(response.status).toBe(status);
    expect(pointerOf(response)).toBe('/0/value/attributes/accessTokenLifetime');
  });

  it('reads back and clears a client lifetime', async () => {
    const read = await getAdmin(server, `/admin/uma-client/${world.client}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(read).data.attributes.accessTokenLifetime).toBe(300);
    const [id] = freshIds(1);
    await patchAdmin(server, [
      add('uma-client', { id, attributes: { clientId: `clear-${id}`, clientName: 'C', allowedScopes: 'read', accessTokenLifetime: 60 } }),
    ]);
    const cleared = await patchAdmin(server, [
      { op: 'replace', path: `/uma-client/${id}`, value: { type: 'uma-client', id: String(id), attributes: { accessTokenLifetime: null } } },
    ]);
    expect(cleared.status).toBe(200);
    expect(bodyOf<JsonApiDocument<JsonApiResource>[]>(cleared)[0].data.attributes.accessTokenLifetime).toBeNull();
  });

  it('reads back the FHIR mapping and the SMART permissions', async () => {
    const read = await getAdmin(server, `/admin/resource-definition/${world.ids.labs}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(read).data.attributes).toMatchObject({ fhirResourceType: world.type, fhirQuery: 'category=laboratory' });
    const scope = await getAdmin(server, `/admin/scope/${world.ids.all}`);
    expect(bodyOf<JsonApiDocument<JsonApiResource>>(scope).data.attributes.smartPermissions).toBe('cruds');
  });
});

// The same backend client on a second stack (Debian's python3-authlib) is in
// test/interop/smart-backend-services-authlib.e2e-spec.ts (`npm run test:interop`).
