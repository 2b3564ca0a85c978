export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'temporarily_unavailable'
  | 'too_many_requests'
  | 'insufficient_scope'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'server_error'
  // UMA 2.0 (docs/guides/uma.md): the protection API (RFC 6750, FedAuthz) and the UMA grant.
  | 'invalid_token'
  | 'not_found'
  | 'unsupported_method_type'
  | 'invalid_resource_id'
  | 'request_denied'
  // Dynamic client registration (RFC 7591 §3.2.2, RFC 7592): docs/reference/registration-endpoint.md.
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_software_statement'
  | 'unapproved_software_statement'
  | 'access_denied';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  temporarily_unavailable: 503,
  too_many_requests: 429,
  insufficient_scope: 403,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  server_error: 500,
  invalid_token: 401,
  not_found: 404,
  unsupported_method_type: 405,
  invalid_resource_id: 400,
  request_denied: 403,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  invalid_software_statement: 400,
  unapproved_software_statement: 400,
  access_denied: 403,
};

/** The one `error_description` of every `invalid_client` before a client is authenticated. */
export const CLIENT_AUTHENTICATION_FAILED = 'client authentication failed';

/** An RFC 6749 §5.2 error, turned into `{error, error_description}` by OAuthExceptionFilter. */
export class OAuthError extends Error {
  status: number;
  /** Extra response headers: WWW-Authenticate, Retry-After. */
  headers: Record<string, string> = {};
  /**
   * Set on a refusal that protects the server (429 of the brute-force throttle, 503 of the
   * slow-hash bound): such refusals are logged at warn, at most once a second per client and
   * reason (src/logging/refusal-log.ts), not one line per request.
   */
  refusal?: { clientId?: string; reason: string };
  /**
   * Of an `invalid_client`: the check that failed. Written in the request's log line, never in
   * the response, whose description is the same for every cause (CLIENT_AUTHENTICATION_FAILED).
   */
  failedCheck?: string;

  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.status = STATUS[code];
  }

  withStatus(status: number): this {
    this.status = status;
    return this;
  }

  /** Marks this error as a refusal that protects the server (see `refusal`). */
  refusing(clientId: string | undefined, reason: string): this {
    this.refusal = { clientId, reason };
    return this;
  }

  /**
   * A client that is not authenticated (docs/reference/token-endpoint.md#errors): whatever check
   * failed (`failedCheck`: an unknown id, the wrong method, a wrong secret, a signature, a `kid`,
   * a key type, no certificate…), the response says only CLIENT_AUTHENTICATION_FAILED, so that it
   * tells an attacker nothing about which ids, methods or keys exist; the check goes to the
   * request's log line. RFC 6749 §5.2: a client that tried HTTP authentication is told which
   * scheme to use.
   */
  static invalidClient(failedCheck: string, basicTried: boolean): OAuthError {
    const error = new OAuthError('invalid_client', CLIENT_AUTHENTICATION_FAILED);
    error.failedCheck = failedCheck;
    if (basicTried) error.headers['WWW-Authenticate'] = 'Basic realm="oauth2", charset="UTF-8"';
    return error;
  }

  /** Any method but the endpoint's (RFC 9110 §15.5.6): 405 with Allow, in the OAuth error format. */
  static methodNotAllowed(method: string, allowed: string): OAuthError {
    const error = new OAuthError('invalid_request', `method ${method.slice(0, 16)} is not allowed here: use ${allowed}`).withStatus(405);
    error.headers.Allow = allowed;
    return error;
  }

  static tooManyRequests(retryAfterSeconds: number): OAuthError {
    const error = new OAuthError('too_many_requests', 'too many failed client authentications; retry later');
    error.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
    return error;
  }

  /** A service that cannot answer now (RFC 6749 §5.2 temporarily_unavailable, 503) says when to retry. */
  static temporarilyUnavailable(description: string, retryAfterSeconds: number): OAuthError {
    const error = new OAuthError('temporarily_unavailable', description);
    error.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
    return error;
  }
}
