import { CLIENT_TYPE, type ClientAttributes } from './client-attributes.js';
import type { ClientRegistration, ValidRegistration } from './client-registration.js';
import { generateClientSecret } from './client-secrets.js';
import { holdsNoSecret } from './client-metadata.entity.js';

/** A client to create: the operator's registration, plus what only the admin interface gives. */
export type NewClient = ClientRegistration & {
  /** A caller-chosen record id (an admin `add` may carry one); without it, one is allocated. */
  id?: number;
  issuerUri?: string | null;
  metaDataRaw?: string | null;
  /** How the client comes to be (docs/guides/dynamic-registration.md); without it, `admin`. */
  origin?: ClientOrigin;
};

/** Where a client came from: the admin interface (and console), the CLI, or dynamic registration with what the client said of itself. */
export type ClientOrigin = {
  registeredVia: 'admin' | 'cli' | 'dcr' | 'udap';
  initialAccessTokenId?: number | null;
  contacts?: string[];
  softwareId?: string | null;
  softwareVersion?: string | null;
};

/** The secret a new client gets, shown once: none for private_key_jwt, else the given one or a generated one. */
export type NewSecret = { value?: string; generated: boolean };

/** docs/guides/clients-with-keys.md#registering-the-client, docs/guides/mtls.md: a client of a key or certificate method holds no secret. */
export function newSecretOf(registration: ValidRegistration): NewSecret {
  if (holdsNoSecret(registration.authenticationType)) return { generated: false };
  if (registration.clientSecret !== undefined) return { value: registration.clientSecret, generated: false };
  return { value: generateClientSecret(), generated: true };
}

/** The stored attributes a registration decides. */
type RegistrationAttributes = Pick<
  ClientAttributes,
  | 'clientName'
  | 'grantTypes'
  | 'allowedScopes'
  | 'redirectUris'
  | 'jwksUri'
  | 'jwksRaw'
  | 'dpopBoundAccessTokens'
  | 'accessTokenLifetime'
  | 'tlsClientAuthSubjectDn'
  | 'tlsClientAuthSanDns'
  | 'tlsClientAuthSanUri'
  | 'tlsClientAuthSanIp'
  | 'tlsClientAuthSanEmail'
  | 'tlsClientAuthIssuerDn'
  | 'tlsClientCertificateBoundAccessTokens'
>;

/**
 * The stored attributes a registration decides, named as the admin interface names them: one
 * mapping for a new client and for an RFC 7592 update (docs/reference/registration-endpoint.md),
 * so that neither forgets a member (the mutual TLS ones included; omitted ones are their defaults).
 */
export function registrationAttributes(registration: ValidRegistration): RegistrationAttributes;
export function registrationAttributes(registration: ClientRegistration): Partial<RegistrationAttributes>;
export function registrationAttributes(registration: ClientRegistration): Partial<RegistrationAttributes> {
  return {
    clientName: registration.clientName,
    grantTypes: registration.grantTypes,
    allowedScopes: registration.allowedScopes,
    redirectUris: registration.redirectUris,
    jwksUri: registration.jwksUri,
    jwksRaw: registration.jwksRaw,
    dpopBoundAccessTokens: registration.dpopBound,
    accessTokenLifetime: registration.accessTokenLifetime,
    tlsClientAuthSubjectDn: registration.tlsClientAuthSubjectDn,
    tlsClientAuthSanDns: registration.tlsClientAuthSanDns,
    tlsClientAuthSanUri: registration.tlsClientAuthSanUri,
    tlsClientAuthSanIp: registration.tlsClientAuthSanIp,
    tlsClientAuthSanEmail: registration.tlsClientAuthSanEmail,
    tlsClientAuthIssuerDn: registration.tlsClientAuthIssuerDn,
    tlsClientCertificateBoundAccessTokens: registration.certificateBound,
  };
}

/** What is stored (and audited) for a new client: its validated registration and the admin-only attributes as given. */
export function newClientAttributes(registration: ValidRegistration, input: NewClient): ClientAttributes {
  return {
    clientId: registration.clientId,
    clientType: CLIENT_TYPE,
    clientAuthenticationType: registration.authenticationType,
    issuerUri: input.issuerUri ?? null,
    metaDataRaw: input.metaDataRaw ?? null,
    ...registrationAttributes(registration),
  };
}
