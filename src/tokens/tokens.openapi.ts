import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { GRANT_TYPES } from '../oauth/grant-types.js';

// The OpenAPI description of the /oauth2/* endpoints (served at /docs), kept apart from the controller.

export const OAUTH_ERROR = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', example: 'invalid_client' }, error_description: { type: 'string' } },
};

export const TOKEN_REQUEST = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', enum: [...GRANT_TYPES] },
    refresh_token: { type: 'string', description: 'grant_type=refresh_token only' },
    ticket: { type: 'string', description: 'the UMA grant only: a permission ticket (docs/guides/uma.md)' },
    scope: {
      type: 'string',
      description: 'space-separated scopes; `<definition>:<scope>` and SMART `system/<Type>.<cruds>` scopes need a consent ticket',
      example: 'read',
    },
    client_id: {
      type: 'string',
      description: "client_secret_post, tls_client_auth and self_signed_tls_client_auth (with the connection's certificate); optional with private_key_jwt",
    },
    client_secret: { type: 'string', description: 'client_secret_post only', format: 'password' },
    resource: {
      oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 10 }],
      description: 'RFC 8707 resource indicators (repeatable): enrolled data sources; they become the aud',
    },
    client_assertion_type: { type: 'string', enum: ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer'], description: 'private_key_jwt only' },
    client_assertion: {
      type: 'string',
      description: 'private_key_jwt only: a JWT signed by a key of the client (with udap=1: by its certificate, x5c, with the hl7-b2b extension)',
    },
    udap: {
      type: 'string',
      enum: ['1'],
      description:
        'UDAP=true only: a trust community member asks with client_credentials and a certificate-bearing client_assertion (docs/reference/trust-communities.md)',
    },
  },
};

export const TOKEN_RESPONSE = {
  type: 'object',
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string', enum: ['Bearer', 'DPoP'] },
    expires_in: { type: 'integer' },
    scope: { type: 'string' },
    refresh_token: { type: 'string', description: 'for clients registered for the refresh_token grant' },
  },
};

export const TOKEN_PARAMETER = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string' }, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] } },
};

/** POST /oauth2/token. */
export function ApiTokenEndpoint(): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: 'Client credentials grant (RFC 6749 §4.4): an RFC 9068 JWT access token' }),
    ApiBody({ schema: TOKEN_REQUEST }),
    ApiHeader({
      name: 'DPoP',
      required: false,
      description: 'RFC 9449 proof of possession: the access token is bound to its key (token_type DPoP, cnf.jkt); refused for a certificate-bound client',
    }),
    ApiResponse({ status: 200, description: 'issued (Cache-Control: no-store)', schema: TOKEN_RESPONSE }),
    ApiResponse({
      status: 400,
      description:
        'invalid_request, invalid_client (a client_assertion_type other than jwt-bearer), unauthorized_client, unsupported_grant_type, invalid_scope, invalid_target, invalid_dpop_proof, use_dpop_nonce (with DPoP-Nonce)',
      schema: OAUTH_ERROR,
    }),
    ApiResponse({ status: 401, description: 'invalid_client', schema: OAUTH_ERROR }),
    ApiResponse({ status: 413, description: 'body over 16 KiB (invalid_request)', schema: OAUTH_ERROR }),
    ApiResponse({ status: 429, description: 'too_many_requests, with Retry-After', schema: OAUTH_ERROR }),
    ApiResponse({
      status: 503,
      description: 'temporarily_unavailable: the database is unreachable, or the disclosure of a resource-scope token could not be committed',
      schema: OAUTH_ERROR,
    }),
  );
}

/** POST /oauth2/introspect (RFC 7662). */
export function ApiIntrospectionEndpoint(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary:
        "Token introspection (RFC 7662): a client sees its own tokens; a data source's introspection client the tokens meant for its data sources; a client allowed uma_protection the tokens of the default audience",
    }),
    ApiBody({ schema: TOKEN_PARAMETER }),
    ApiResponse({
      status: 200,
      description:
        '{"active": false} (also for a token the caller may not see), or active with scope, client_id, sub, aud, iss, exp, iat, jti, token_type, permissions',
    }),
  );
}

/** POST /oauth2/revoke (RFC 7009). */
export function ApiRevocationEndpoint(): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: 'Token revocation (RFC 7009): a client revokes its own access or refresh token' }),
    ApiBody({ schema: TOKEN_PARAMETER }),
    ApiResponse({ status: 200, description: 'revoked, or unknown token' }),
    ApiResponse({ status: 400, description: "another client's token (unauthorized_client)", schema: OAUTH_ERROR }),
  );
}
