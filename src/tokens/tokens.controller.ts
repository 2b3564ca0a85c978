import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ClientAuthGuard } from '../auth/guards/client-auth.guard.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthExceptionFilter } from '../common/filters/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OAuthBodyGuard } from './oauth-body.guard.js';
import { TokensService } from './tokens.service.js';
import type { TokenParameters } from './token-request.js';

const OAUTH_ERROR = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', example: 'invalid_client' }, error_description: { type: 'string' } },
};

const TOKEN_REQUEST = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', enum: ['client_credentials'] },
    scope: { type: 'string', description: 'space-separated scopes; `<definition>:<scope>` needs a consent ticket', example: 'read' },
    client_id: { type: 'string', description: 'client_secret_post only' },
    client_secret: { type: 'string', description: 'client_secret_post only', format: 'password' },
  },
};

@ApiTags('oauth2')
@Controller('oauth2')
@UseFilters(OAuthExceptionFilter)
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly metrics: MetricsService,
  ) {}

  @Post('token')
  @ApiOperation({ summary: 'Client credentials grant (RFC 6749 §4.4): an RFC 9068 JWT access token' })
  @ApiBasicAuth('client_secret_basic')
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ schema: TOKEN_REQUEST })
  @ApiResponse({
    status: 200,
    description: 'issued (Cache-Control: no-store)',
    schema: {
      type: 'object',
      properties: {
        access_token: { type: 'string' },
        token_type: { type: 'string', enum: ['Bearer'] },
        expires_in: { type: 'integer' },
        scope: { type: 'string' },
      },
    },
  })
  @ApiResponse({ status: 400, description: 'invalid_request, unauthorized_client, unsupported_grant_type, invalid_scope', schema: OAUTH_ERROR })
  @ApiResponse({ status: 401, description: 'invalid_client', schema: OAUTH_ERROR })
  @ApiResponse({ status: 413, description: 'body over 16 KiB (invalid_request)', schema: OAUTH_ERROR })
  @ApiResponse({ status: 429, description: 'too_many_requests, with Retry-After', schema: OAUTH_ERROR })
  @ApiResponse({ status: 503, description: 'temporarily_unavailable: the database is unreachable', schema: OAUTH_ERROR })
  @UseGuards(OAuthBodyGuard, ClientAuthGuard)
  async token(@Req() request: Request, @Res() response: Response): Promise<void> {
    const issued = await this.tokens.issue(request.user as ClientRecord, request.body as TokenParameters);
    sendNoStoreJson(response, 200, issued);
    this.metrics.tokenIssued();
  }
}
