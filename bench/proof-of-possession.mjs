// The proof-of-possession case (issue 12): every token request authenticates with a
// private_key_jwt client assertion and carries a DPoP proof, both with fresh jtis. They are
// signed before each timed run (outside it) and handed out one per request through
// autocannon's setupRequest, so no request is a replay.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';

export const POP_CLIENT_ID = 'bench-pop-client';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const TOKEN_PATH = '/oauth2/token';
// Requests signed per second of load: above what either server reaches on this box.
const CEILING_PER_SECOND = Number(process.env.BENCH_POP_CEILING ?? 4000);

/** The client's key pair (ES256, as FAPI 2.0 clients commonly use) and its public JWKS. */
export async function popClientKey() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  // The proof carries the bare public key; the registered JWKS adds kid, alg and use to it.
  const proofJwk = await exportJWK(publicKey);
  const jwk = { ...proofJwk, kid: 'bench-key', alg: 'ES256', use: 'sig' };
  return { privateKey, jwks: { keys: [jwk] }, proofJwk, jkt: await calculateJwkThumbprint(jwk) };
}

async function signedRequest(key, issuer, scope) {
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ iss: POP_CLIENT_ID, sub: POP_CLIENT_ID, aud: issuer, iat: now, exp: now + 240, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench-key' })
    .sign(key.privateKey);
  const proof = await new SignJWT({ htm: 'POST', htu: `${issuer}${TOKEN_PATH}`, iat: now, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.proofJwk })
    .sign(key.privateKey);
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion }).toString();
  return { headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof }, body };
}

async function pregenerate(key, issuer, scope, count) {
  const pool = [];
  for (let index = 0; index < count; index += 1) pool.push(await signedRequest(key, issuer, scope));
  return pool;
}

/** One real request first: a benchmark of refusals is worthless. Checks token_type DPoP and cnf.jkt. */
async function verifyPopToken(name, baseUrl, key, scope, alg) {
  const { headers, body } = await signedRequest(key, baseUrl, scope);
  const response = await fetch(baseUrl + TOKEN_PATH, { method: 'POST', headers, body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${name}: proof-of-possession token request returned HTTP ${response.status}: ${text.slice(0, 300)}`);
  const parsed = JSON.parse(text);
  const [header, claims] = parsed.access_token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  if (!/^dpop$/i.test(parsed.token_type)) throw new Error(`${name}: token_type is ${parsed.token_type}, expected DPoP`);
  if (claims.cnf?.jkt !== key.jkt) throw new Error(`${name}: the access token's cnf.jkt is not the proof key's thumbprint`);
  if (header.alg !== alg) throw new Error(`${name}: JWT header alg is ${header.alg}, expected ${alg}`);
  return Buffer.byteLength(text);
}

function fire(baseUrl, connections, duration, pool) {
  let next = 0;
  return autocannon({
    url: baseUrl + TOKEN_PATH,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        path: TOKEN_PATH,
        // A new assertion and proof for every request; when the pool runs dry requests repeat
        // (and are refused as replays, which shows in non-2xx).
        setupRequest: (request) => ({ ...request, ...pool[next++ % pool.length] }),
      },
    ],
  });
}

/**
 * Measures one server already running at `baseUrl` with the pop client registered: warm-up,
 * then the timed run, each with its own freshly signed pool. `summarize` turns autocannon's
 * result into the report's shape (run.mjs).
 */
export async function measureProofOfPossession({ name, alg, baseUrl, key, scope, config, summarize }) {
  const bodyBytes = await verifyPopToken(name, baseUrl, key, scope, alg);
  console.log(`${alg}  measuring ${name} (private_key_jwt + DPoP, token response ${bodyBytes} bytes) ...`);
  if (config.warmup > 0) await fire(baseUrl, config.connections, config.warmup, await pregenerate(key, baseUrl, scope, config.warmup * CEILING_PER_SECOND));
  const pool = await pregenerate(key, baseUrl, scope, config.duration * CEILING_PER_SECOND);
  const result = await fire(baseUrl, config.connections, config.duration, pool);
  if (result.non2xx > 0)
    console.warn(`WARNING ${alg} ${name}: ${result.non2xx} non-2xx responses in the measured run (${JSON.stringify(result.statusCodeStats)})`);
  if (result['2xx'] + result.non2xx > pool.length)
    console.warn(`WARNING ${alg} ${name}: more requests than pre-signed ones (${pool.length}): raise BENCH_POP_CEILING`);
  return { bodyBytes, ...summarize(result) };
}
