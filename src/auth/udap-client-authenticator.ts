import { Inject, Injectable } from '@nestjs/common';
import { decodeJwt } from 'jose';
import { UdapCertificateError } from '../certificates/udap-chain.js';
import { ClientDirectory } from '../clients/client-directory.js';
import type { ClientRecord } from '../clients/client-record.js';
import { compactJwsTooDeep, TOO_DEEP } from '../common/json-depth.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CLIENT_ASSERTION_TYPE, checkAssertionClaims, refused } from '../oauth/client-assertion-claims.js';
import { readHl7B2b } from '../oauth/hl7-b2b-claim.js';
import { OAuthError } from '../oauth/oauth-error.js';
import type { TokenParameters } from '../oauth/token-request.js';
import { AuthThrottle } from './auth-throttle.js';
import type { BeforeConsume } from './client-assertion-authenticator.js';
import type { DpopProof } from './dpop-proofs.js';
import { DpopProofs } from './dpop-proofs.js';
import { ProvenSources } from './proven-sources.js';
import { ReplayStore } from './replay-store.js';
import { UdapCertificates } from './udap-certificates.js';

/**
 * A UDAP token request's client authentication (docs/reference/trust-communities.md#token-request,
 * HL7 FAST Security IG STU 2 §5.2): `udap=1` and a client assertion whose x5c chain leads to the
 * client's own trust community, whose leaf holds the client's SAN URI and signs it, with §9's
 * claims and single-use jti, and the hl7-b2b extension. Answers the client's request-own copy
 * with what it asserted and its community's token lifetime. Only the UDAP path reaches here.
 */
@Injectable()
export class UdapClientAuthenticator {
  // Like private_key_jwt's: a member that signed from an address keeps its rate there while the address stays clean.
  private readonly proven = new ProvenSources();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clients: ClientDirectory,
    private readonly certificates: UdapCertificates,
    private readonly replays: ReplayStore,
    private readonly throttle: AuthThrottle,
    private readonly proofs: DpopProofs,
  ) {}

  get enabled(): boolean {
    return this.config.udap;
  }

  async authenticate(parameters: TokenParameters, sourceAddress: string, beforeConsume?: BeforeConsume, proof?: DpopProof): Promise<ClientRecord> {
    if (parameters.udap !== '1') throw new OAuthError('invalid_request', 'udap must be "1"');
    if (parameters.grant_type !== 'client_credentials') throw new OAuthError('invalid_request', 'udap=1 is for grant_type=client_credentials only');
    const assertion = parameters.client_assertion;
    const type = parameters.client_assertion_type;
    if (assertion === undefined || type === undefined) {
      throw new OAuthError('invalid_request', 'a UDAP token request authenticates with client_assertion_type and client_assertion');
    }
    if (type !== CLIENT_ASSERTION_TYPE) throw refused(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`).withStatus(400);
    if (compactJwsTooDeep(assertion)) throw new OAuthError('invalid_request', `the client_assertion's header or claims are ${TOO_DEEP}`);
    let sub: unknown;
    try {
      sub = decodeJwt(assertion).sub;
    } catch {
      throw refused('the client_assertion is not a JWT');
    }
    const clientId = parameters.client_id ?? sub;
    if (typeof clientId !== 'string' || clientId === '' || clientId.includes('\0')) throw refused('the assertion has no "sub" naming the client');
    if (parameters.client_id !== undefined && sub !== parameters.client_id) throw refused('client_id differs from the assertion\'s "sub"');
    const client = await this.clients.find(clientId);
    if (client !== null && (client.trustCommunityId ?? null) === null) {
      throw new OAuthError('invalid_request', 'udap=1 is only for clients registered by UDAP; this client authenticates without it');
    }
    const admission = await this.throttle.admit(clientId, sourceAddress, { proven: this.proven.has(clientId, sourceAddress) });
    try {
      const authenticated = await this.verify(assertion, client, proof, beforeConsume);
      if (admission.failing || admission.claimed) await this.throttle.clearFailing(clientId, sourceAddress);
      this.proven.add(clientId, sourceAddress);
      this.throttle.rememberSuccess(clientId, sourceAddress);
      return authenticated;
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        await this.throttle.recordFailure(clientId, sourceAddress);
        if (admission.lockedFor !== undefined) throw OAuthError.tooManyRequests(admission.lockedFor).refusing(clientId, 'client over its limit');
      } else if (admission.claimed) {
        await this.throttle.clearFailing(clientId, sourceAddress);
      }
      throw error;
    }
  }

  private async verify(assertion: string, client: ClientRecord | null, proof: DpopProof | undefined, beforeConsume?: BeforeConsume): Promise<ClientRecord> {
    // One description for both: it does not tell which client ids exist.
    if (client === null) throw refused('no client registered by UDAP has this id');
    if (client.grantTypes.size === 0) throw refused("this client's UDAP registration was cancelled");
    const community = await this.certificates.community(client.trustCommunityId!);
    if (!community || !community.enabled) throw refused("this client's trust community is disabled or removed");
    let verified;
    try {
      verified = await this.certificates.check(assertion, community);
    } catch (error) {
      if (error instanceof UdapCertificateError) throw refused(error.message);
      throw error;
    }
    if (!verified.leaf.sanUris.includes(client.udapIssuer!)) {
      throw refused("the assertion's leaf certificate does not hold this client's URI (its registered SAN URI) as a subjectAltName");
    }
    const tokenEndpoint = `${this.config.issuer}/oauth2/token`;
    const claims = verified.payload;
    if (claims.aud !== tokenEndpoint) throw refused(`the assertion's "aud" must be the token endpoint URL ${tokenEndpoint} as a string`);
    const { jti, exp } = checkAssertionClaims(claims, {
      clientId: client.clientId,
      issuer: this.config.issuer,
      now: Math.floor(Date.now() / 1000),
      tokenEndpoint,
    });
    const hl7B2b = readHl7B2b(claims.extensions, community.purposesOfUse);
    beforeConsume?.(client);
    const assertionUse = { kind: 'client-assertion', namespace: client.clientId, jti, expiresAt: exp };
    const replayed = await this.replays.useOnce(proof ? [proof.use, assertionUse] : [assertionUse]);
    if (proof && replayed === 0) throw await this.proofs.replayed();
    if (replayed !== -1) throw refused('the assertion\'s "jti" has already been used');
    const lifetime = Math.min(client.accessTokenLifetime ?? this.config.accessTokenTtl, community.accessTokenLifetime);
    return { ...client, accessTokenLifetime: lifetime, udap: { hl7B2b } };
  }
}
