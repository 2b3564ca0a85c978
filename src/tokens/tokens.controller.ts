import { Body, Controller, HttpCode, Header, Post, Req, UseFilters, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { ClientAuthGuard } from '../auth/guards/client-auth.guard.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthExceptionFilter } from '../common/filters/oauth-exception.filter.js';
import { BodyErrorGuard } from './body-error.guard.js';
import { TokensService, type TokenResponse } from './tokens.service.js';
import type { TokenParameters } from './token-request.js';

@Controller('oauth2')
@UseFilters(OAuthExceptionFilter)
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post('token')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @UseGuards(BodyErrorGuard, ClientAuthGuard)
  token(@Req() request: Request, @Body() parameters: TokenParameters): Promise<TokenResponse> {
    return this.tokens.issue(request.user as ClientRecord, parameters);
  }
}
