/**
 * Every token endpoint authentication method this server knows, written once: clients register
 * one of them, initial access tokens and dynamic registration offer a subset, the metadata
 * publishes the enabled ones, and the console offers what the metadata lists.
 */
export const CLIENT_AUTHENTICATION_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'tls_client_auth',
  'self_signed_tls_client_auth',
] as const;

export type ClientAuthenticationType = (typeof CLIENT_AUTHENTICATION_METHODS)[number];

/** The methods of mutual TLS (RFC 8705 §2): enabled only with MTLS=true (docs/guides/mtls.md). */
export const MTLS_AUTH_METHODS = ['tls_client_auth', 'self_signed_tls_client_auth'] as const;

/** The methods whose clients hold no secret: they prove a key (docs/guides/clients-with-keys.md, docs/guides/mtls.md). */
export function holdsNoSecret(method: string): boolean {
  return method === 'private_key_jwt' || (MTLS_AUTH_METHODS as readonly string[]).includes(method);
}

/** The methods a deployment offers: those of mutual TLS only when it is on. */
export function enabledAuthMethods(mtls: boolean): ClientAuthenticationType[] {
  return CLIENT_AUTHENTICATION_METHODS.filter((method) => mtls || !(MTLS_AUTH_METHODS as readonly string[]).includes(method));
}
