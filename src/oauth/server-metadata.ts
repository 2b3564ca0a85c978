import type { AppConfig } from '../config/app-config.js';
import { ASSERTION_ALGORITHMS } from './client-assertion-claims.js';
import { DPOP_ALGORITHMS } from './dpop-proof-claims.js';
import { GRANT_TYPES } from './grant-types.js';
import { enabledAuthMethods } from './client-authentication-methods.js';

/** The methods every deployment takes (without mutual TLS). */
export const AUTH_METHODS: string[] = enabledAuthMethods(false);

/**
 * RFC 8414 authorization server metadata, from the configuration alone: served on the public
 * listener by the discovery controller and, for the console, on the admin listener; other
 * discovery documents (UMA's uma2-configuration) start from it.
 */
export function serverMetadata(config: AppConfig): Record<string, unknown> {
  const issuer = config.issuer;
  const methods = authMethodsOf(config);
  const metadata: Record<string, unknown> = {
    issuer,
    token_endpoint: `${issuer}/oauth2/token`,
    jwks_uri: `${issuer}/oauth2/jwks`,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    // docs/guides/dynamic-registration.md: always behind an initial access token; absent when DYNAMIC_CLIENT_REGISTRATION=false.
    ...(config.dynamicClientRegistration ? { registration_endpoint: `${issuer}/oauth2/register` } : {}),
    grant_types_supported: GRANT_TYPES,
    token_endpoint_auth_methods_supported: methods,
    introspection_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
    // docs/reference/token-endpoint.md#keys-and-metadata: what client assertions and DPoP proofs may be signed with.
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
    introspection_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
    revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    response_types_supported: [],
    // Not registered in RFC 8414, but what resource servers look for (as Keycloak and Hydra publish).
    access_token_signing_alg_values_supported: [config.tokenSigningAlg],
    // Token status lists (draft-ietf-oauth-status-list, docs/reference/status-lists.md).
    ...(config.statusList ? { status_list_aggregation_endpoint: `${issuer}/oauth2/status` } : {}),
  };
  return config.mtls ? withMutualTls(metadata) : metadata;
}

/** The client authentication methods this deployment takes: the certificate ones only with MTLS (docs/guides/mtls.md). */
export function authMethodsOf(config: AppConfig): string[] {
  if (!config.mtls) return AUTH_METHODS;
  return [...AUTH_METHODS, ...(config.mtls.clientCa !== undefined ? ['tls_client_auth'] : []), 'self_signed_tls_client_auth'];
}

// RFC 8705 §5: the endpoints a client authenticates at, as mTLS aliases.
const ALIASED = ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint', 'registration_endpoint'];

/**
 * RFC 8705 §3.3 and §5 (docs/guides/mtls.md#metadata): bound tokens, and `mtls_endpoint_aliases`
 * naming the same URLs, since one listener serves clients with and without certificates (as
 * Keycloak publishes it). Applied last, so that an endpoint added to the document before is aliased too.
 */
export function withMutualTls(metadata: Record<string, unknown>): Record<string, unknown> {
  const aliases = Object.fromEntries(ALIASED.filter((name) => typeof metadata[name] === 'string').map((name) => [name, metadata[name]]));
  return { ...metadata, tls_client_certificate_bound_access_tokens: true, mtls_endpoint_aliases: aliases };
}
