import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ClientAuthGuard } from '../auth/guards/client-auth.guard.js';
import type { ClientRecord } from '../clients/client-record.js';
import { OAuthExceptionFilter } from '../common/filters/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OAuthBodyGuard } from './oauth-body.guard.js';
import { TokensService } from './tokens.service.js';
import type { TokenParameters } from './token-request.js';

@Controller('oauth2')
@UseFilters(OAuthExceptionFilter)
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly metrics: MetricsService,
  ) {}

  @Post('token')
  @UseGuards(OAuthBodyGuard, ClientAuthGuard)
  async token(@Req() request: Request, @Res() response: Response): Promise<void> {
    const issued = await this.tokens.issue(request.user as ClientRecord, request.body as TokenParameters);
    sendNoStoreJson(response, 200, issued);
    this.metrics.tokenIssued();
  }
}
