import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ClientAuthGuard } from '../auth/guards/client-auth.guard.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthExceptionFilter } from '../common/filters/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { OAuthBodyGuard } from './oauth-body.guard.js';
import { TokenLifecycleService } from './token-lifecycle.service.js';
import { TokensService } from './tokens.service.js';
import type { TokenParameters } from './token-request.js';

@Controller('oauth2')
@UseFilters(OAuthExceptionFilter)
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly lifecycle: TokenLifecycleService,
  ) {}

  @Post('token')
  @UseGuards(OAuthBodyGuard, ClientAuthGuard)
  async token(@Req() request: Request, @Res() response: Response): Promise<void> {
    const issued = await this.tokens.issue(request.user as ClientRecord, request.body as TokenParameters);
    sendNoStoreJson(response, 200, issued);
  }

  /** RFC 7662. */
  @Post('introspect')
  @UseGuards(OAuthBodyGuard, ClientAuthGuard)
  async introspect(@Req() request: Request, @Res() response: Response): Promise<void> {
    sendNoStoreJson(response, 200, await this.lifecycle.introspect(request.user as ClientRecord, request.body as TokenParameters));
  }

  /** RFC 7009: 200 with an empty body. */
  @Post('revoke')
  @UseGuards(OAuthBodyGuard, ClientAuthGuard)
  async revoke(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.lifecycle.revoke(request.user as ClientRecord, request.body as TokenParameters);
    sendNoStoreJson(response, 200, {});
  }
}
