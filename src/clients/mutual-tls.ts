import type { AppConfig } from '../config/app-config.js';

// The methods of mutual TLS are oauth/client-authentication-methods.ts's; this file says whether
// they are enabled, for every rule of docs/guides/dynamic-registration.md that depends on it.
export { MTLS_AUTH_METHODS } from '../oauth/client-authentication-methods.js';

/** The `tls_client_auth_*` members of RFC 8705 §2.1.2, of which a tls_client_auth client registers exactly one. */
export const TLS_CLIENT_AUTH_MEMBERS = [
  'tls_client_auth_subject_dn',
  'tls_client_auth_san_dns',
  'tls_client_auth_san_uri',
  'tls_client_auth_san_ip',
  'tls_client_auth_san_email',
] as const;

/** Whether this deployment authenticates clients by certificate (MTLS=true; docs/guides/mtls.md). */
export function mutualTlsEnabled(config: AppConfig): boolean {
  return config.mtls !== undefined;
}
