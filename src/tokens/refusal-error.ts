import { OAuthError } from '../oauth/oauth-error.js';
import type { Refusal } from '../tickets/access-decision.js';

/**
 * The token endpoint's error for a refused decision (docs/concepts/explain.md): a bad `resource`
 * is invalid_target (RFC 8707), a scope not allowed or not covered is invalid_scope; the
 * description is the decision's own.
 */
export function oauthErrorOf(refusal: Refusal): OAuthError {
  return new OAuthError(refusal.kind === 'unknown_target' ? 'invalid_target' : 'invalid_scope', refusal.description);
}
