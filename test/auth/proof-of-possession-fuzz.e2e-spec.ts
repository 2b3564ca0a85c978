import fc from 'fast-check';
import request from 'supertest';
import { ASSERTION_TYPE, assertion, clientKey, createKeyClient, dpopProof, type ClientKey } from '../support/keys.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type OAuthErrorBody, type TokenBody } from '../support/bodies.js';

// Malformed client assertions and DPoP proofs, built from random headers and claims: every
// answer is a 4xx in the token endpoint's format, never a 5xx, and no access token is issued.
const CASES = Number(process.env.FUZZ_CASES ?? 150);

let server: TestApp;
let key: ClientKey;
let clientId: string;

beforeAll(async () => {
  server = await startTestApp({ TRUST_PROXY: 'loopback', DPOP_NONCE: 'true' });
  key = await clientKey('ES256');
  clientId = await createKeyClient(server.app, key);
});

afterAll(() => server.close());

const encode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
// A JWT-shaped string: random JSON (or text) in each part, or a real signature over random claims.
const jwtLike = fc.oneof(
  fc.tuple(fc.jsonValue(), fc.jsonValue(), fc.string()).map(([header, payload, signature]) => `${encode(header)}.${encode(payload)}.${encode(signature)}`),
  fc.string({ maxLength: 200 }).map((text) => text.replace(/[^\x21-\x7e]/g, '')),
);
const claims = fc.dictionary(fc.constantFrom('iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'htm', 'htu', 'nonce'), fc.jsonValue(), { maxKeys: 5 });
const headers = fc.dictionary(fc.constantFrom('alg', 'kid', 'typ', 'jwk', 'crit', 'b64'), fc.jsonValue(), { maxKeys: 3 });
let address = 0;

async function send(assertionValue: string, proof: string | undefined) {
  address += 1;
  const pending = request(server.url)
    .post('/oauth2/token')
    .set('X-Forwarded-For', `203.0.113.${address % 250}`)
    .type('form');
  if (proof !== undefined) pending.set('DPoP', proof);
  const response = await pending.send({
    grant_type: 'client_credentials',
    scope: 'read',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: assertionValue,
  });
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(response.status).toBeLessThan(500);
  expect(typeof bodyOf<OAuthErrorBody>(response).error).toBe('string');
  expect(bodyOf<OAuthErrorBody>(response).error_description).toBeTruthy();
  expect(bodyOf<TokenBody>(response).access_token).toBeUndefined();
}

// jose will not sign some headers (a malformed "crit", say): those cases have nothing to send.
async function signable(sign: () => Promise<string>): Promise<string | undefined> {
  try {
    return await sign();
  } catch {
    return undefined;
  }
}

beforeEach(() => server.dataSource.query('TRUNCATE auth_failure'));

describe('fuzzed proof of possession', () => {
  it('answers malformed assertions with a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(jwtLike, async (text) => send(text, undefined)),
      { numRuns: CASES },
    );
  });

  it('answers signed assertions with random claims and headers with a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(claims, headers, async (payload, header) => {
        const signed = await signable(() => assertion(key, clientId, server.url, { ...payload, exp: payload.exp ?? 'soon' }, { ...header, alg: 'ES256' }));
        if (signed !== undefined) await send(signed, undefined);
      }),
      { numRuns: CASES },
    );
  });

  it('answers malformed or wrongly signed DPoP proofs with a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(jwtLike, fc.record({ payload: claims, header: headers })), async (proof) => {
        const value =
          typeof proof === 'string'
            ? proof
            : await signable(() => dpopProof(key, `${server.url}/oauth2/token`, proof.payload, { ...proof.header, alg: 'ES256' }));
        if (value !== undefined) await send(await assertion(key, clientId, server.url), value);
      }),
      { numRuns: CASES },
    );
  });
});
