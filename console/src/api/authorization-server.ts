import type { ApiClient } from './api-client.js';

export type SigningKey = { kid: string; alg: string; created: string; signing: boolean; signsFrom: string; publishedUntil: string | null };

/** This server's RFC 8414 metadata and signing keys, as the admin listener serves them to the console. */
export type AuthorizationServer = { issuer: string; metadata: Record<string, unknown>; keys: SigningKey[] };

/**
 * Reads the authorization server (`GET /admin/authorization-server`): the same metadata as
 * `/.well-known/oauth-authorization-server`, on the admin listener, which the console never leaves.
 */
export async function loadAuthorizationServer(api: ApiClient): Promise<AuthorizationServer> {
  return (await api.get<{ data: { attributes: AuthorizationServer } }>('/admin/authorization-server')).data.attributes;
}

/** The client authentication methods the server takes (`token_endpoint_auth_methods_supported`). */
export function authenticationMethodsOf(metadata: Record<string, unknown>): string[] {
  const methods = metadata.token_endpoint_auth_methods_supported;
  return Array.isArray(methods) ? methods.filter((method): method is string => typeof method === 'string') : [];
}

/** Whether the server binds access tokens to client certificates (RFC 8705 §3.3: mutual TLS is on). */
export function bindsTokensToCertificates(metadata: Record<string, unknown>): boolean {
  return metadata.tls_client_certificate_bound_access_tokens === true;
}
