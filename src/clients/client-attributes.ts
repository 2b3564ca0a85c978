/**
 * A client as the admin interface shows it and the audit trail records it: the client row, its
 * metadata row and its redirect URIs as one record (docs/concepts/consent-tickets.md#the-records).
 * Never the secret or its hash.
 */
export type ClientAttributes = {
  clientId: string;
  clientName: string;
  clientType: string;
  clientAuthenticationType: string;
  grantTypes: string;
  allowedScopes: string;
  redirectUris: string[];
  issuerUri: string | null;
  jwksUri: string | null;
  jwksRaw: string | null;
  metaDataRaw: string | null;
  dpopBoundAccessTokens: boolean;
  accessTokenLifetime: number | null;
  tlsClientAuthSubjectDn: string | null;
  tlsClientAuthSanDns: string | null;
  tlsClientAuthSanUri: string | null;
  tlsClientAuthSanIp: string | null;
  tlsClientAuthSanEmail: string | null;
  tlsClientAuthIssuerDn: string | null;
  tlsClientCertificateBoundAccessTokens: boolean;
};

/** Every client is confidential (docs/concepts/consent-tickets.md#the-records). */
export const CLIENT_TYPE = 'CONFIDENTIAL';
