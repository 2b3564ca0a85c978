// A small UMA 2.0 resource server (docs/guides/uma.md): a FHIR-like glucose data source on
// node:http and jose. At start it discovers the authorization server, gets a PAT and registers
// its resource; GET /Observation then answers a Bundle for a valid, sufficient RPT, and 401 with
// a fresh permission ticket otherwise.
//
//   AS_URL         the authorization server's issuer (e.g. http://localhost:3000)
//   PORT           where this data source listens (default 4000)
//   CLIENT_ID      the data source's umaClient (allowed uma_protection)
//   CLIENT_SECRET  its secret
//   RESOURCE_URI   the data source's resourceUri: the aud its RPTs must carry
//   STATUS_LIST_CHECK  `false` stops checking each RPT's entry in its token status list
//                  (status-list.mjs); by default a revoked or withdrawn RPT is refused within the
//                  list's ttl, even though this server verifies RPTs locally
//   PURPOSE_OF_USE a purpose-of-use code (e.g. urn:oid:2.16.840.1.113883.5.8#TREAT): GET
//                  /b2b/Observation then also serves UDAP members of a trust community
//                  (docs/guides/udap.md): an access token for this RESOURCE_URI whose hl7-b2b
//                  extension asserts that purpose and whose read permission its ticket matched
//                  for it; any other token is refused (403 with a Bearer challenge)
//   DOWNSTREAM_URI the resourceUri of a second data source this one may ask on a client's behalf
//                  (docs/guides/token-exchange.md): GET /api/Observation then takes the client's
//                  access token for this RESOURCE_URI, exchanges it (RFC 8693, as CLIENT_ID) for a
//                  token meant for DOWNSTREAM_URI and answers what the second data source answers
//                  to it; DOWNSTREAM_URL is where that one listens (default DOWNSTREAM_URI). Without
//                  DOWNSTREAM_URI, GET /api/Observation serves a client's access token itself
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { EmbeddedJWK, calculateJwkThumbprint, createRemoteJWKSet, jwtVerify } from 'jose';
import { createStatusListCheck } from './status-list.mjs';

const { AS_URL, CLIENT_ID, CLIENT_SECRET, RESOURCE_URI } = process.env;
const PORT = Number(process.env.PORT ?? 4000);
const RESOURCE_TYPE = 'blood-glucose-level';
const REALM = 'glucose-data-source';
const PROOF_WINDOW_SECONDS = 60;
const PURPOSE_OF_USE = process.env.PURPOSE_OF_USE;
const { DOWNSTREAM_URI } = process.env;
const DOWNSTREAM_URL = process.env.DOWNSTREAM_URL ?? DOWNSTREAM_URI;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

for (const [name, value] of Object.entries({ AS_URL, CLIENT_ID, CLIENT_SECRET, RESOURCE_URI })) {
  if (!value) {
    console.error(`${name} is required`);
    process.exit(2);
  }
}

let pat = { token: '', expiresAt: 0 };
let configuration;
let resourceId;
try {
  configuration = await getJson(`${AS_URL.replace(/\/+$/, '')}/.well-known/uma2-configuration`);
  resourceId = await registerResource();
} catch (error) {
  // One clear line, no stack: the usual causes are a wrong AS_URL or credentials, or a data source not enrolled.
  console.error(`glucose data source: cannot start: ${error.message}`);
  process.exit(1);
}
const keys = createRemoteJWKSet(new URL(configuration.jwks_uri));
const checkStatus = process.env.STATUS_LIST_CHECK === 'false' ? async () => undefined : createStatusListCheck({ issuer: configuration.issuer, keys });
const seenProofs = new Map();

const server = createServer((request, response) => {
  serve(request, response).catch((error) => {
    console.error(`request failed: ${error.message}`);
    send(response, 500, { error: 'server_error' });
  });
});
server.listen(PORT, () => console.log(`glucose data source on port ${PORT}: resource ${resourceId} registered at ${configuration.issuer}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

async function serve(request, response) {
  const url = new URL(request.url, `http://${request.headers.host ?? `localhost:${PORT}`}`);
  if (url.pathname === '/b2b/Observation' && PURPOSE_OF_USE && request.method === 'GET') return serveB2b(request, response);
  if (url.pathname === '/api/Observation' && request.method === 'GET') return serveApi(request, response);
  if (url.pathname !== '/Observation') return send(response, 404, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] });
  if (request.method !== 'GET')
    return send(response, 405, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-supported' }] }, { Allow: 'GET' });
  const refusal = await checkRpt(request, url);
  if (refusal !== undefined) {
    // Grant §3.2: no valid, sufficient RPT: a fresh permission ticket for what this request needs.
    const ticket = await permissionTicket();
    console.log(`refused an RPT (${refusal}): answered a permission ticket`);
    return send(
      response,
      401,
      { error: 'unauthorized', error_description: refusal },
      { 'WWW-Authenticate': `UMA realm="${REALM}", as_uri="${configuration.issuer}", ticket="${ticket}"` },
    );
  }
  send(response, 200, bundle(), { 'Content-Type': 'application/fhir+json' });
}

/**
 * IG §5.2.4: a UDAP member's token is held to the organization and purpose of use it was issued
 * for. The token must be this server's audience, assert PURPOSE_OF_USE in its hl7-b2b extension,
 * and carry a read permission on blood-glucose-level that its consent ticket covered for that
 * purpose (`purpose_of_use` of the permission).
 */
async function serveB2b(request, response) {
  const refusal = await checkB2bToken(request);
  if (refusal !== undefined) {
    console.log(`refused a B2B token (${refusal})`);
    const challenge = `Bearer realm="${REALM}", error="insufficient_scope", error_description="${refusal}"`;
    return send(response, refusal === 'no token' ? 401 : 403, { error: 'insufficient_scope', error_description: refusal }, { 'WWW-Authenticate': challenge });
  }
  send(response, 200, bundle(), { 'Content-Type': 'application/fhir+json' });
}

async function checkB2bToken(request) {
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(request.headers.authorization ?? '');
  if (!match) return 'no token';
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(match[1], keys, { issuer: configuration.issuer, audience: RESOURCE_URI, typ: 'at+jwt' }));
  } catch (error) {
    return `the token does not verify: ${error.code ?? error.message}`;
  }
  const b2b = claims.extensions?.['hl7-b2b'];
  if (!Array.isArray(b2b?.purpose_of_use) || !b2b.purpose_of_use.includes(PURPOSE_OF_USE))
    return `the token does not assert the purpose of use ${PURPOSE_OF_USE}`;
  const permitted =
    Array.isArray(claims.permissions) &&
    claims.permissions.some(
      (permission) =>
        permission?.resource_type === RESOURCE_TYPE && permission.purpose_of_use === PURPOSE_OF_USE && permission.resource_scopes?.includes('read'),
    );
  if (!permitted) return `no consent ticket covers reading ${RESOURCE_TYPE} for ${PURPOSE_OF_USE}`;
  const status = await checkStatus(claims);
  if (status !== undefined) return status;
  console.log(`serving ${b2b.organization_name ?? b2b.organization_id} for ${PURPOSE_OF_USE}`);
  return undefined;
}

/**
 * An RFC 9068 API: a client's access token for this RESOURCE_URI with a read permission on
 * blood-glucose-level. With DOWNSTREAM_URI, this data source is a facade: it exchanges the token
 * for one meant for the second data source (the client stays its subject, this data source its
 * actor, and consent is decided again for that hop) and answers what the second one answers.
 */
async function serveApi(request, response) {
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(request.headers.authorization ?? '');
  if (!match) return send(response, 401, { error: 'invalid_token', error_description: 'no token' }, { 'WWW-Authenticate': `Bearer realm="${REALM}"` });
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(match[1], keys, { issuer: configuration.issuer, audience: RESOURCE_URI, typ: 'at+jwt' }));
  } catch (error) {
    const description = `the token does not verify: ${error.code ?? error.message}`;
    return send(
      response,
      401,
      { error: 'invalid_token', error_description: description },
      { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
    );
  }
  const permitted =
    Array.isArray(claims.permissions) &&
    claims.permissions.some((permission) => permission?.resource_type === RESOURCE_TYPE && permission.resource_scopes?.includes('read'));
  if (!permitted) return send(response, 403, { error: 'insufficient_scope', error_description: `no read permission on ${RESOURCE_TYPE}` });
  const status = await checkStatus(claims);
  if (status !== undefined) return send(response, 401, { error: 'invalid_token', error_description: status });
  if (!DOWNSTREAM_URI) return send(response, 200, bundle(), { 'Content-Type': 'application/fhir+json' });

  const basic = Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64');
  const exchange = await fetch(configuration.token_endpoint, {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE, subject_token: match[1], subject_token_type: ACCESS_TOKEN_TYPE, resource: DOWNSTREAM_URI }),
  });
  const exchanged = await exchange.json();
  if (exchange.status !== 200) {
    // The authorization server decided this hop: its refusal (consent, delegation) is the answer.
    console.log(`token exchange refused: ${exchanged.error} ${exchanged.error_description ?? ''}`);
    return send(response, 403, { error: 'insufficient_scope', error_description: `the token exchange for ${DOWNSTREAM_URI} was refused: ${exchanged.error}` });
  }
  const downstream = await fetch(`${DOWNSTREAM_URL.replace(/\/+$/, '')}/api/Observation`, { headers: { Authorization: `Bearer ${exchanged.access_token}` } });
  const body = await downstream.json();
  send(response, downstream.status, body, { 'Content-Type': downstream.headers.get('content-type') ?? 'application/json' });
}

/** Why the request's RPT does not do (undefined: it does). */
async function checkRpt(request, url) {
  const match = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(request.headers.authorization ?? '');
  if (!match) return 'no RPT';
  const [, scheme, token] = match;
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(token, keys, { issuer: configuration.issuer, audience: RESOURCE_URI, typ: 'at+jwt' }));
  } catch (error) {
    return `the RPT does not verify: ${error.code ?? error.message}`;
  }
  const permitted =
    Array.isArray(claims.permissions) &&
    claims.permissions.some(
      (permission) => permission?.resource_id === resourceId && Array.isArray(permission.resource_scopes) && permission.resource_scopes.includes('read'),
    );
  if (!permitted) return 'the RPT has no read permission on this resource';
  const status = await checkStatus(claims);
  if (status !== undefined) return status;
  if (claims.cnf?.jkt === undefined) return scheme.toLowerCase() === 'bearer' ? undefined : 'the RPT is not DPoP-bound';
  if (scheme.toLowerCase() !== 'dpop') return 'the RPT is DPoP-bound: send it with the DPoP scheme';
  return checkProof(request.headers.dpop, request.method, `${url.origin}${url.pathname}`, token, claims.cnf.jkt);
}

/** RFC 9449 §7.1: a proof of the key the RPT is bound to, for this request and this token. */
async function checkProof(proof, method, htu, token, jkt) {
  if (typeof proof !== 'string') return 'a DPoP proof is required';
  try {
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256', 'PS256', 'RS256', 'EdDSA'] });
    const now = Math.floor(Date.now() / 1000);
    if (payload.htm !== method || payload.htu?.split(/[?#]/)[0] !== htu) return 'the DPoP proof is for another request';
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > PROOF_WINDOW_SECONDS) return 'the DPoP proof is stale';
    if (payload.ath !== createHash('sha256').update(token).digest('base64url')) return 'the DPoP proof is for another token';
    if ((await calculateJwkThumbprint(protectedHeader.jwk, 'sha256')) !== jkt) return 'the DPoP proof is signed by another key';
    if (typeof payload.jti !== 'string' || seenProofs.has(payload.jti)) return 'the DPoP proof was used before';
    for (const [jti, seenAt] of seenProofs) if (seenAt < now - PROOF_WINDOW_SECONDS) seenProofs.delete(jti);
    seenProofs.set(payload.jti, now);
    return undefined;
  } catch (error) {
    return `the DPoP proof does not verify: ${error.code ?? error.message}`;
  }
}

/** The PAT, fetched again shortly before it expires. */
async function protectionToken() {
  if (Date.now() < pat.expiresAt - 30_000) return pat.token;
  const basic = Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64');
  const issued = await postJson(
    configuration.token_endpoint,
    'grant_type=client_credentials&scope=uma_protection',
    { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    200,
  );
  pat = { token: issued.access_token, expiresAt: Date.now() + issued.expires_in * 1000 };
  return pat.token;
}

async function registerResource() {
  const registered = await postJson(
    configuration.resource_registration_endpoint,
    JSON.stringify({ type: RESOURCE_TYPE, resource_scopes: ['read'], name: 'Blood glucose readings', description: 'Made-up glucose Observations' }),
    { Authorization: `Bearer ${await protectionToken()}`, 'Content-Type': 'application/json' },
    201,
  );
  return registered._id;
}

async function permissionTicket() {
  const issued = await postJson(
    configuration.permission_endpoint,
    JSON.stringify({ resource_id: resourceId, resource_scopes: ['read'] }),
    { Authorization: `Bearer ${await protectionToken()}`, 'Content-Type': 'application/json' },
    201,
  );
  return issued.ticket;
}

function bundle() {
  const readings = [
    [98, '2026-11-23T07:05:00Z'],
    [142, '2026-11-23T12:40:00Z'],
    [117, '2026-11-23T19:15:00Z'],
  ];
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: readings.length,
    entry: readings.map(([value, effective], index) => ({
      fullUrl: `${RESOURCE_URI}/Observation/glucose-${index + 1}`,
      resource: {
        resourceType: 'Observation',
        id: `glucose-${index + 1}`,
        status: 'final',
        category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }],
        code: { coding: [{ system: 'http://loinc.org', code: '2339-0', display: 'Glucose [Mass/volume] in Blood' }] },
        subject: { reference: 'Patient/example' },
        effectiveDateTime: effective,
        valueQuantity: { value, unit: 'mg/dL', system: 'http://unitsofmeasure.org', code: 'mg/dL' },
      },
    })),
  };
}

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return response.json();
}

async function postJson(url, body, headers, expected) {
  const response = await fetch(url, { method: 'POST', headers, body });
  const answer = await response.json();
  if (response.status !== expected) throw new Error(`POST ${url}: ${response.status} ${answer.error ?? ''} ${answer.error_description ?? ''}`);
  return answer;
}

function send(response, status, body, headers = {}) {
  const payload = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers, 'Content-Length': Buffer.byteLength(payload) });
  response.end(payload);
}
