import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CertificateAuthorities } from '../certificates/certificate-authorities.js';
import { CertificateError, type ClientCertificate } from '../certificates/client-certificate.js';
import { METADATA_NAME_OF_RULE, matchesSubjectRule } from '../certificates/subject-rules.js';
import { NameSyntaxError, parseDistinguishedName, sameName } from '../certificates/distinguished-name.js';
import { selfSignedCertificates } from '../certificates/x5c.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { AuthThrottle } from './auth-throttle.js';
import { ProvenSources } from './proven-sources.js';
import { ClientCertificates } from './client-certificates.js';
import { ClientKeys } from './client-keys.js';
import { JwksUnavailable, type KeySet } from './jwks-uri-fetcher.js';

/** The certificate methods of RFC 8705 §2. */
export const CERTIFICATE_METHODS: ReadonlySet<string> = new Set(['tls_client_auth', 'self_signed_tls_client_auth']);

/**
 * `tls_client_auth` and `self_signed_tls_client_auth` (RFC 8705 §2, docs/guides/mtls.md): the
 * request's certificate chains to TLS_CLIENT_CA_FILE and matches the client's one registered
 * subject value, or equals the first `x5c` certificate of a key of the client's key set. A
 * matching certificate passes without a look at the counters and without a slow hash; a failure
 * counts toward the brute-force limits (docs/reference/token-endpoint.md#brute-force-protection)
 * and is a 401 `invalid_client` naming the check, never the certificate.
 */
@Injectable()
export class CertificateAuthenticator {
  private readonly authorities?: CertificateAuthorities;
  private readonly proven = new ProvenSources();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly certificates: ClientCertificates,
    private readonly keys: ClientKeys,
    private readonly throttle: AuthThrottle,
  ) {
    if (config.mtls?.clientCa !== undefined) this.authorities = new CertificateAuthorities(config.mtls.clientCa);
  }

  async authenticate(client: ClientRecord, request: Request): Promise<ClientRecord> {
    const address = request.ip ?? 'unknown';
    // The throttle first (docs/operations/security.md#the-throttle-comes-first): a self-signed
    // client's jwks_uri is fetched only after the counts admit the attempt, as for an assertion
    // (a client over its limit keeps one verification a second for a clean address, and a known
    // source its own). Not read again for a client this process has seen authenticate from here.
    const fetches = client.authenticationType === 'self_signed_tls_client_auth' && client.jwksUri !== null;
    const admission = fetches ? await this.throttle.admit(client.clientId, address, { proven: this.proven.has(client.clientId, address) }) : undefined;
    try {
      const certificate = this.certificates.of(request);
      if (certificate === undefined) throw refused('no client certificate was presented');
      if (client.authenticationType === 'tls_client_auth') this.checkIssued(client, certificate);
      else await this.checkSelfSigned(client, certificate);
      if (admission?.failing || admission?.claimed) await this.throttle.clearFailing(client.clientId, address);
      this.proven.add(client.clientId, address);
      this.throttle.rememberSuccess(client.clientId, address);
      return client;
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        if (admission === undefined) await this.refuseIfThrottled(client, address);
        await this.throttle.recordFailure(client.clientId, address);
        if (admission?.lockedFor !== undefined) throw OAuthError.tooManyRequests(admission.lockedFor).refusing(client.clientId, 'client over its limit');
      } else if (admission?.claimed) {
        await this.throttle.clearFailing(client.clientId, address);
      }
      throw error;
    }
  }

  /** 429 when the client or the address is over its limit; the refusal counts toward the address (docs/operations/security.md#lock-out-under-a-flood). */
  private async refuseIfThrottled(client: ClientRecord, address: string): Promise<void> {
    const standing = await this.throttle.standing(client.clientId, address);
    const wait = standing.address ?? standing.client;
    if (wait === undefined) return;
    await this.throttle.countRefusal(address);
    throw OAuthError.tooManyRequests(wait).refusing(client.clientId, standing.address !== undefined ? 'address over its limit' : 'client over its limit');
  }

  private checkIssued(client: ClientRecord, certificate: ClientCertificate): void {
    const rule = client.tlsSubject;
    if (!this.authorities || !rule) throw refused('tls_client_auth is not available for this client');
    if (!certificate.isCurrent()) throw refused('the client certificate is outside its validity period');
    const notForClients = certificate.notForClients();
    if (notForClients !== undefined) throw refused(notForClients);
    if (!this.authorities.trusts(certificate)) throw refused('the client certificate does not chain to a trusted CA');
    let matches: boolean;
    try {
      matches = matchesSubjectRule(certificate, rule);
    } catch (error) {
      if (error instanceof CertificateError) throw refused(error.message);
      if (error instanceof NameSyntaxError) throw refused(`the registered ${METADATA_NAME_OF_RULE[rule.kind]} cannot be read`);
      throw error;
    }
    if (!matches) throw refused(`the client certificate does not match the registered ${METADATA_NAME_OF_RULE[rule.kind]}`);
    if (client.tlsIssuer && !this.issuedBy(certificate, client.tlsIssuer)) {
      throw refused('the client certificate does not match the registered tls_client_auth_issuer_dn');
    }
  }

  /** The issuer binding (docs/guides/mtls.md#the-ca-file): the certificate's issuer is the registered DN, compared as names. */
  private issuedBy(certificate: ClientCertificate, issuerDn: string): boolean {
    try {
      return sameName(certificate.issuer(), parseDistinguishedName(issuerDn));
    } catch (error) {
      if (error instanceof CertificateError) throw refused(error.message);
      if (error instanceof NameSyntaxError) throw refused('the registered tls_client_auth_issuer_dn cannot be read');
      throw error;
    }
  }

  private async checkSelfSigned(client: ClientRecord, certificate: ClientCertificate): Promise<void> {
    if (!certificate.isCurrent()) throw refused('the client certificate is outside its validity period');
    let keys: KeySet;
    try {
      keys = await this.keys.keysOf(client);
      if (registers(keys, certificate)) return;
      // A certificate just added to the jwks_uri: fetched again at most once a minute.
      const refetched = await this.keys.refetched(client);
      if (refetched && registers(refetched, certificate)) return;
    } catch (error) {
      if (error instanceof JwksUnavailable) throw refused(error.message);
      throw error;
    }
    throw refused("the client certificate is not the first x5c certificate of a key in the client's key set");
  }
}

function registers(keys: KeySet, certificate: ClientCertificate): boolean {
  return selfSignedCertificates(keys.jwks().keys).some((der) => der.equals(certificate.der));
}

function refused(description: string): OAuthError {
  return OAuthError.invalidClient(description, false);
}
