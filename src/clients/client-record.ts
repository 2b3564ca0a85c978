import type { SubjectRule } from '../certificates/subject-rules.js';
import type { Hl7B2b } from '../oauth/hl7-b2b.js';
import type { ClientAuthenticationType } from './client-metadata.entity.js';

/** What the token endpoint needs to know of a client, cached in memory. */
export type ClientRecord = {
  id: number;
  clientId: string;
  clientName: string;
  authenticationType: ClientAuthenticationType;
  clientType: string;
  grantTypes: ReadonlySet<string>;
  allowedScopes: ReadonlySet<string>;
  /** Empty for a private_key_jwt client, which has no secret. */
  secretHash: string;
  /** docs/guides/clients-with-keys.md#registering-the-client: the client's public keys (JWKS text) or where to fetch them. */
  jwksRaw: string | null;
  jwksUri: string | null;
  /** docs/reference/token-endpoint.md#dpop-proofs: token requests must carry a DPoP proof. */
  dpopBound: boolean;
  /** Seconds a token of this client lives at most, instead of ACCESS_TOKEN_TTL; null: the default. */
  accessTokenLifetime?: number | null;
  /** docs/guides/mtls.md: a tls_client_auth client's one registered subject value. */
  tlsSubject?: SubjectRule | null;
  /** docs/guides/mtls.md#the-ca-file: the DN of the CA that must have issued its certificate; null: any CA of the file. */
  tlsIssuer?: string | null;
  /** docs/guides/mtls.md#certificate-bound-tokens: access tokens are bound to the connection's certificate. */
  certificateBound?: boolean;
  /** When the client was created (ms): a token issued before then was another client's of the same id, one since removed. */
  createdAt?: number;
  /** docs/reference/trust-communities.md#registration: a UDAP client's trust community (row id) and its identity there (its certificate's SAN URI); null otherwise. */
  trustCommunityId?: number | null;
  udapIssuer?: string | null;
  /** Set on the request's own copy of a UDAP client authenticated for a token request (never cached): what it asserted. */
  udap?: UdapAuthorization;
};

/** docs/reference/trust-communities.md#token-request: a UDAP token request's hl7-b2b extension, as the grant and the token carry it. */
export type UdapAuthorization = { hl7B2b: Hl7B2b };

export function splitSpaced(value: string): Set<string> {
  return new Set(value.split(' ').filter(Boolean));
}
