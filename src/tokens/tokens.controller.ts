import { applyDecorators, Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ClientAuthGuard, type ProofRequest } from '../auth/guards/client-auth.guard.js';
import { DpopProofs } from '../auth/dpop-proofs.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthExceptionFilter } from '../common/filters/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { requestIdOf } from '../logging/request-log.js';
import { OAuthBodyGuard } from './oauth-body.guard.js';
import { TokenLifecycleService } from './token-lifecycle.service.js';
import { TokensService } from './tokens.service.js';
import type { TokenParameters } from '../oauth/token-request.js';

const OAUTH_ERROR = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', example: 'invalid_client' }, error_description: { type: 'string' } },
};

const TOKEN_REQUEST = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', enum: ['client_credentials', 'refresh_token'] },
    refresh_token: { type: 'string', description: 'grant_type=refresh_token only' },
    scope: { type: 'string', description: 'space-separated scopes; `<definition>:<scope>` needs a consent ticket', example: 'read' },
    client_id: { type: 'string', description: 'client_secret_post; optional with private_key_jwt' },
    client_secret: { type: 'string', description: 'client_secret_post only', format: 'password' },
    resource: {
      oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 10 }],
      description: 'RFC 8707 resource indicators (repeatable): enrolled data sources; they become the aud',
    },
    client_assertion_type: { type: 'string', enum: ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer'], description: 'private_key_jwt only' },
    client_assertion: { type: 'string', description: 'private_key_jwt only: a JWT signed by a key of the client' },
  },
};

const TOKEN_PARAMETER = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string' }, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] } },
};

/** An /oauth2/* endpoint: its own strict body parsing, then client authentication (basic or post). */
function ClientAuthenticated(): MethodDecorator {
  return applyDecorators(
    ApiBasicAuth('client_secret_basic'),
    ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
    UseGuards(OAuthBodyGuard, ClientAuthGuard),
  );
}

@ApiTags('oauth2')
@Controller('oauth2')
@UseFilters(OAuthExceptionFilter)
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly lifecycle: TokenLifecycleService,
    private readonly metrics: MetricsService,
    private readonly proofs: DpopProofs,
  ) {}

  @Post('token')
  @ApiOperation({ summary: 'Client credentials grant (RFC 6749 §4.4): an RFC 9068 JWT access token' })
  @ApiBody({ schema: TOKEN_REQUEST })
  @ApiHeader({ name: 'DPoP', required: false, description: 'RFC 9449 proof of possession: the access token is bound to its key (token_type DPoP, cnf.jkt)' })
  @ApiResponse({
    status: 200,
    description: 'issued (Cache-Control: no-store)',
    schema: {
      type: 'object',
      properties: {
        access_token: { type: 'string' },
        token_type: { type: 'string', enum: ['Bearer', 'DPoP'] },
        expires_in: { type: 'integer' },
        scope: { type: 'string' },
        refresh_token: { type: 'string', description: 'for clients registered for the refresh_token grant' },
      },
    },
  })
  @ApiResponse({ status: 400, description: 'invalid_request, unauthorized_client, unsupported_grant_type, invalid_scope, invalid_target, invalid_dpop_proof, use_dpop_nonce (with DPoP-Nonce)', schema: OAUTH_ERROR })
  @ApiResponse({ status: 401, description: 'invalid_client', schema: OAUTH_ERROR })
  @ApiResponse({ status: 413, description: 'body over 16 KiB (invalid_request)', schema: OAUTH_ERROR })
  @ApiResponse({ status: 429, description: 'too_many_requests, with Retry-After', schema: OAUTH_ERROR })
  @ApiResponse({ status: 503, description: 'temporarily_unavailable: the database is unreachable, or the disclosure of a resource-scope token could not be committed', schema: OAUTH_ERROR })
  @ClientAuthenticated()
  async token(@Req() request: ProofRequest, @Res() response: Response): Promise<void> {
    const issued = await this.tokens.issue(request.user as ClientRecord, request.body as TokenParameters, request.dpop?.jkt, requestIdOf(request));
    // API.md §10: with DPOP_NONCE on, every token response carries a fresh nonce.
    sendNoStoreJson(response, 200, issued, this.proofs.noncesRequired ? { 'DPoP-Nonce': await this.proofs.freshNonce() } : undefined);
    this.metrics.tokenIssued();
  }

  /** RFC 7662. */
  @Post('introspect')
  @ApiOperation({ summary: 'Token introspection (RFC 7662), for clients allowed the uma_protection scope' })
  @ApiBody({ schema: TOKEN_PARAMETER })
  @ApiResponse({ status: 200, description: '{"active": false}, or active with scope, client_id, sub, aud, iss, exp, iat, jti, token_type, permissions' })
  @ApiResponse({ status: 403, description: 'the caller is not allowed uma_protection', schema: OAUTH_ERROR })
  @ClientAuthenticated()
  async introspect(@Req() request: Request, @Res() response: Response): Promise<void> {
    sendNoStoreJson(response, 200, await this.lifecycle.introspect(request.user as ClientRecord, request.body as TokenParameters));
  }

  /** RFC 7009: 200 with an empty body. */
  @Post('revoke')
  @ApiOperation({ summary: "Token revocation (RFC 7009): a client revokes its own access or refresh token" })
  @ApiBody({ schema: TOKEN_PARAMETER })
  @ApiResponse({ status: 200, description: 'revoked, or unknown token' })
  @ApiResponse({ status: 400, description: "another client's token (unauthorized_client)", schema: OAUTH_ERROR })
  @ClientAuthenticated()
  async revoke(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.lifecycle.revoke(request.user as ClientRecord, request.body as TokenParameters);
    sendNoStoreJson(response, 200, {});
  }
}
