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
  registeredVia: 'admin' | 'cli' | 'dcr';
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

/** What is stored (and audited) for a new client: its validated registration and the admin-only attributes as given. */
export function newClientAttributes(registration: ValidRegistration, input: NewClient): ClientAttributes {
  return {
    clientId: registration.clientId,
    clientName: registration.clientName,
    clientType: CLIENT_TYPE,
    clientAuthenticationType: registration.authenticationType,
    grantTypes: registration.grantTypes,
    allowedScopes: registration.allowedScopes,
    redirectUris: registration.redirectUris,
    issuerUri: input.issuerUri ?? null,
    jwksUri: registration.jwksUri,
    jwksRaw: registration.jwksRaw,
    metaDataRaw: input.metaDataRaw ?? null,
    dpopBoundAccessTokens: registration.dpopBound,
    accessTokenLifetime: registration.accessTokenLifetime,
    tlsClientAuthSubjectDn: registration.tlsClientAuthSubjectDn,
    tlsClientAuthSanDns: registration.tlsClientAuthSanDns,
    tlsClientAuthSanUri: registration.tlsClientAuthSanUri,
    tlsClientAuthSanIp: registration.tlsClientAuthSanIp,
    tlsClientAuthSanEmail: registration.tlsClientAuthSanEmail,
    tlsClientCertificateBoundAccessTokens: registration.certificateBound,
  };
}
