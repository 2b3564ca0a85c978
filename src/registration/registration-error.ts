import { OAuthError } from '../oauth/oauth-error.js';

/** RFC 7591 §3.2.2 and RFC 7592 error codes, with this endpoint's statuses (docs/reference/registration-endpoint.md#errors). */
export type RegistrationErrorCode = 'invalid_client_metadata' | 'invalid_redirect_uri' | 'invalid_software_statement' | 'unapproved_software_statement';

export function metadataError(code: RegistrationErrorCode, description: string, status = 400): OAuthError {
  return new OAuthError(code, description).withStatus(status);
}

const REALM = 'oauth2';

/** No bearer token at all: RFC 6750 §3.1, a challenge without an error code. */
export function tokenRequired(what: string): OAuthError {
  const error = new OAuthError('invalid_token', `${what} is required: Authorization: Bearer <token>`);
  error.headers['WWW-Authenticate'] = `Bearer realm="${REALM}"`;
  return error;
}

/** A token that is unknown, expired, removed, used up or replaced: never saying which. */
export function tokenRefused(description: string): OAuthError {
  const error = new OAuthError('invalid_token', description);
  error.headers['WWW-Authenticate'] = `Bearer realm="${REALM}", error="invalid_token"`;
  return error;
}

/**
 * The client hung up while its registration waited for a slow hash: nothing is written for it (no
 * client nobody holds the secret of, no use of the initial access token), and nobody is answered.
 */
export class RegistrationAbandoned extends Error {
  constructor() {
    super('the client closed its connection before its registration was written');
  }
}
