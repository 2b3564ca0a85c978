import type { Response } from 'express';
import { OAuthError } from '../oauth/oauth-error.js';

/** FedAuthz §3.2: any other method is 405 unsupported_method_type, with the methods that are allowed. */
export function unsupportedMethod(method: string, allowed: string): OAuthError {
  const error = new OAuthError('unsupported_method_type', `method ${method.slice(0, 16)} is not supported here (allowed: ${allowed})`);
  error.headers.Allow = allowed;
  return error;
}

/** An empty answer (204) that no cache keeps. */
export function sendNoContent(response: Response): void {
  response.writeHead(204, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  response.end();
}
