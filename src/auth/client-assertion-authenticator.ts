import type { webcrypto } from 'node:crypto';
import { compactJwsTooDeep, exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { Inject, Injectable } from '@nestjs/common';
import { compactVerify, decodeJwt, decodeProtectedHeader, type CompactVerifyResult } from 'jose';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { keyFitsAlgorithm } from '../clients/client-jwks.js';
import { ASSERTION_ALGORITHMS } from '../oauth/client-assertion-claims.js';
import { ClientDirectory } from '../clients/client-directory.js';
import type { ClientRecord } from '../clients/client-record.js';
import { CLIENT_ASSERTION_TYPE, checkAssertionClaims, refused } from '../oauth/client-assertion-claims.js';
import { OAuthError } from '../oauth/oauth-error.js';
import type { TokenParameters } from '../oauth/token-request.js';
import { AuthThrottle } from './auth-throttle.js';
import { ProvenSources } from './proven-sources.js';
import { ClientKeys } from './client-keys.js';
import { JwksUnavailable, type KeySet } from './jwks-uri-fetcher.js';
import { DpopProofs, type DpopProof } from './dpop-proofs.js';
import { ReplayStore } from './replay-store.js';

const ALGORITHMS = [...ASSERTION_ALGORITHMS];
// RFC 7523 leaves `typ` open; SMART clients send "JWT", RFC 7523bis "client-authentication+jwt".
const ACCEPTED_TYPES = new Set(['jwt', 'client-authentication+jwt']);

/** The protected header members the checks read. */
type AssertionHeader = { alg: string; kid?: string; jku?: string };

/** Runs after every check but before the assertion's jti is used up (a DPoP binding rule). */
export type BeforeConsume = (client: ClientRecord) => void;

/**
 * `private_key_jwt` (RFC 7523 §2.2, docs/reference/token-endpoint.md#client-assertions-private_key_jwt):
 * the assertion's signature is verified with the client's registered keys, its claims checked,
 * and its jti used up on every instance at once. Failures count towards the brute-force limits
 * (docs/reference/token-endpoint.md#brute-force-protection).
 */
@Injectable()
export class ClientAssertionAuthenticator {
  private readonly proven = new ProvenSources();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clients: ClientDirectory,
    private readonly keys: ClientKeys,
    private readonly replays: ReplayStore,
    private readonly throttle: AuthThrottle,
    private readonly proofs: DpopProofs,
  ) {}

  /** `proof`: a checked DPoP proof whose jti is used up together with the assertion's, all or none. */
  async authenticate(parameters: TokenParameters, sourceAddress: string, beforeConsume?: BeforeConsume, proof?: DpopProof): Promise<ClientRecord> {
    const { assertion, clientId, header } = readAssertion(parameters);
    // The throttle first: a client or address over its limit is 429 before its jwks_uri is fetched or any key is tried.
    const admission = await this.throttle.admit(clientId, sourceAddress, { proven: this.proven.has(clientId, sourceAddress) });
    try {
      const { client, jti, exp } = await this.verify(assertion, clientId, header);
      beforeConsume?.(client);
      const assertionUse = { kind: 'client-assertion', namespace: client.clientId, jti, expiresAt: exp };
      const replayed = await this.replays.useOnce(proof ? [proof.use, assertionUse] : [assertionUse]);
      if (proof && replayed === 0) throw await this.proofs.replayed();
      if (replayed !== -1) throw refused('the assertion\'s "jti" has already been used');
      if (admission.failing || admission.claimed) await this.throttle.clearFailing(clientId, sourceAddress);
      this.proven.add(clientId, sourceAddress);
      this.throttle.rememberSuccess(clientId, sourceAddress);
      return client;
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        await this.throttle.recordFailure(clientId, sourceAddress);
        if (admission.lockedFor !== undefined) throw OAuthError.tooManyRequests(admission.lockedFor).refusing(clientId, 'client over its limit');
      } else if (admission.claimed) {
        // A claim that did not prove wrong (a DPoP proof refused, a database error) leaves the address clean.
        await this.throttle.clearFailing(clientId, sourceAddress);
      }
      throw error;
    }
  }

  private async verify(assertion: string, clientId: string, header: AssertionHeader): Promise<{ client: ClientRecord; jti: string; exp: number }> {
    const client = await this.clients.find(clientId);
    // One description for both: it does not tell which client ids exist.
    if (!client || client.authenticationType !== 'private_key_jwt') throw refused('no client registered for private_key_jwt has this id');
    // Its key is in the certificate of each request (docs/reference/trust-communities.md#token-request), never registered.
    if ((client.trustCommunityId ?? null) !== null)
      throw refused('this client is registered by UDAP: ask with udap=1 and an assertion carrying its certificate (x5c)');
    checkKeySetUrl(header, client);
    const { payload } = await this.verifySignature(assertion, client, header);
    let claims: Record<string, unknown>;
    const text = new TextDecoder().decode(payload);
    if (exceedsJsonDepth(text)) throw refused(`the assertion's payload is ${TOO_DEEP}`);
    try {
      claims = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw refused("the assertion's payload is not a JSON object");
    }
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw refused("the assertion's payload is not a JSON object");
    const checked = checkAssertionClaims(claims, {
      clientId: client.clientId,
      issuer: this.config.issuer,
      now: Math.floor(Date.now() / 1000),
      // SMART clients address the token endpoint; CLIENT_ASSERTION_AUDIENCE=issuer keeps FAPI 2.0's issuer-only rule.
      ...(this.config.clientAssertionAudience === 'issuer-or-token-endpoint' ? { tokenEndpoint: `${this.config.issuer}/oauth2/token` } : {}),
    });
    return { client, ...checked };
  }

  private async verifySignature(assertion: string, client: ClientRecord, header: AssertionHeader): Promise<CompactVerifyResult> {
    try {
      let keys = await this.keys.keysOf(client);
      if (header.kid !== undefined) {
        // An unknown kid may be a key the client has just added to its jwks_uri.
        if (!hasKid(keys, header.kid)) keys = (await this.keys.refetched(client)) ?? keys;
        checkKidKey(keys, header);
        return await compactVerify(assertion, keys, { algorithms: ALGORITHMS });
      }
      try {
        return await verifyWith(assertion, keys);
      } catch (error) {
        // An unknown kid may be a key the client has just added to its jwks_uri.
        if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
        const refetched = await this.keys.refetched(client);
        if (!refetched) throw error;
        keys = refetched;
        return await verifyWith(assertion, keys);
      }
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      if (error instanceof JwksUnavailable) throw refused(error.message);
      throw refused(describeJoseFailure(error));
    }
  }
}

/**
 * `jku`, when present, must be the registered jwks_uri character for character: an assertion
 * cannot point the server at another key set (docs/guides/smart-backend-services.md).
 */
function checkKeySetUrl(header: AssertionHeader, client: ClientRecord): void {
  if (header.jku === undefined) return;
  if (client.jwksUri === null) throw refused('the assertion\'s "jku" is refused: this client registered its keys as a JWKS, not a jwks_uri');
  if (header.jku !== client.jwksUri) throw refused('the assertion\'s "jku" differs from the client\'s registered jwks_uri');
}

// A key set's members, read once per set: jose's jwks() copies the whole document each call.
const members = new WeakMap<KeySet, readonly Record<string, unknown>[]>();

function membersOf(keys: KeySet): readonly Record<string, unknown>[] {
  let found = members.get(keys);
  if (!found) {
    found = keys.jwks().keys;
    members.set(keys, found);
  }
  return found;
}

function hasKid(keys: KeySet, kid: string): boolean {
  return membersOf(keys).some((jwk) => jwk.kid === kid);
}

/** With a `kid`: exactly one key of the set has it, and it is of a type that `alg` signs with; no other key is tried. */
function checkKidKey(keys: KeySet, header: AssertionHeader): void {
  const matching = membersOf(keys).filter((jwk) => jwk.kid === header.kid);
  if (matching.length === 0) throw refused('no key of the client\'s key set has the assertion\'s "kid"');
  if (matching.length > 1) throw refused('several keys of the client\'s key set have the assertion\'s "kid"');
  const jwk = matching[0];
  if (!keyFitsAlgorithm(jwk, header.alg))
    throw refused(
      `the key with the assertion's "kid" is a ${String(jwk.kty)} key${jwk.kty === 'EC' ? ` on ${String(jwk.crv)}` : ''}, which cannot verify "alg" ${header.alg}`,
    );
  if (jwk.alg !== undefined && jwk.alg !== header.alg)
    throw refused(`the key with the assertion's "kid" is registered for "alg" ${shown(jwk.alg)}, not ${header.alg}`);
}

// A JWK member as message text: whatever JSON value the client registered, as String() shows it.
function shown(value: unknown): string {
  return String(value);
}

/** jose picks the key; several candidates (no kid) are each tried. */
async function verifyWith(assertion: string, keys: KeySet): Promise<CompactVerifyResult> {
  try {
    return await compactVerify(assertion, keys, { algorithms: ALGORITHMS });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw error;
    for await (const key of error as AsyncIterable<webcrypto.CryptoKey>) {
      try {
        return await compactVerify(assertion, key, { algorithms: ALGORITHMS });
      } catch {
        // Try the next candidate.
      }
    }
    throw Object.assign(new Error('no candidate key verifies'), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  }
}

function describeJoseFailure(error: unknown): string {
  switch ((error as { code?: string }).code) {
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'no registered key of the client matches the assertion\'s "kid" and "alg"';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return "the assertion's signature does not verify with the client's registered keys";
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return `the assertion's "alg" is not accepted (use ${ALGORITHMS.join(', ')})`;
    default:
      return 'the client_assertion is not a valid signed JWT';
  }
}

/** The assertion parameters and the client they name (`client_id`, if given, must equal `sub`). */
function readAssertion(parameters: TokenParameters): { assertion: string; clientId: string; header: AssertionHeader } {
  const assertion = parameters.client_assertion;
  const type = parameters.client_assertion_type;
  if (assertion === undefined) throw new OAuthError('invalid_request', 'client_assertion_type is given without client_assertion');
  if (type === undefined) throw new OAuthError('invalid_request', 'client_assertion is given without client_assertion_type');
  // 400, not 401: the kind of credential is wrong, not the credential (older Inferno kits expect 400).
  if (type !== CLIENT_ASSERTION_TYPE) throw refused(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`).withStatus(400);
  // 400: a malformed request, refused before anything walks the claims.
  if (compactJwsTooDeep(assertion)) throw new OAuthError('invalid_request', `the client_assertion's header or claims are ${TOO_DEEP}`);
  let header: Record<string, unknown>;
  let sub: unknown;
  try {
    header = decodeProtectedHeader(assertion);
    sub = decodeJwt(assertion).sub;
  } catch {
    throw refused('the client_assertion is not a JWT');
  }
  if (typeof header.alg !== 'string' || !(ALGORITHMS as string[]).includes(header.alg)) {
    throw refused(`the assertion's "alg" is not accepted (use ${ALGORITHMS.join(', ')})`);
  }
  if (header.typ !== undefined && (typeof header.typ !== 'string' || !ACCEPTED_TYPES.has(header.typ.toLowerCase()))) {
    throw refused('the assertion\'s "typ" must be absent, "JWT" or "client-authentication+jwt"');
  }
  if (header.kid !== undefined && (typeof header.kid !== 'string' || header.kid === '')) throw refused('the assertion\'s "kid" must be a non-empty string');
  if (header.jku !== undefined && typeof header.jku !== 'string') throw refused('the assertion\'s "jku" must be a string');
  const clientId = parameters.client_id ?? sub;
  if (typeof clientId !== 'string' || clientId === '') throw refused('the assertion has no "sub" naming the client');
  // PostgreSQL cannot store NUL: refused before the client is looked up (docs/operations/security.md).
  if (clientId.includes('\0')) throw refused('the assertion\'s "sub" contains a NUL character');
  if (parameters.client_id !== undefined && sub !== parameters.client_id) throw refused('client_id differs from the assertion\'s "sub"');
  return { assertion, clientId, header: { alg: header.alg, kid: header.kid, jku: header.jku } };
}
