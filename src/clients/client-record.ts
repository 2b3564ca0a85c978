import type { SubjectRule } from '../certificates/subject-rules.js';
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
};

export function splitSpaced(value: string): Set<string> {
  return new Set(value.split(' ').filter(Boolean));
}
