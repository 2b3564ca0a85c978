import type { AppConfig } from '../config/app-config.js';
import { ASSERTION_ALGORITHMS } from './client-assertion-claims.js';
import { DPOP_ALGORITHMS } from './dpop-proof-claims.js';
import { GRANT_TYPES } from './grant-types.js';

export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/**
 * RFC 8414 authorization server metadata, from the configuration alone: served on the public
 * listener by the discovery controller and, for the console, on the admin listener; other
 * discovery documents (UMA's uma2-configuration) start from it.
 */
export function serverMetadata(config: AppConfig): Record<string, unknown> {
  const issuer = config.issuer;
  return {
    issuer,
    token_endpoint: `${issuer}/oauth2/token`,
    jwks_uri: `${issuer}/oauth2/jwks`,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    // docs/guides/dynamic-registration.md: always behind an initial access token; absent when DYNAMIC_CLIENT_REGISTRATION=false.
    ...(config.dynamicClientRegistration ? { registration_endpoint: `${issuer}/oauth2/register` } : {}),
    grant_types_supported: GRANT_TYPES,
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
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
}
