import { All, Controller, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OAuthExceptionFilter } from '../http/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { PatAuthenticator } from './pat-authenticator.js';
import { PermissionRequests } from './permission-requests.js';
import { PermissionTickets } from './permission-tickets.js';
import { readJsonBody } from './protection-body.js';
import { unsupportedMethod } from './protection-responses.js';

/** The permission endpoint (FedAuthz §4, docs/guides/uma.md): a permission ticket for the permissions a client lacks. */
@ApiTags('uma')
@ApiBearerAuth()
@Controller('uma/permission')
@UseFilters(OAuthExceptionFilter)
export class PermissionController {
  constructor(
    private readonly pats: PatAuthenticator,
    private readonly requests: PermissionRequests,
    private readonly tickets: PermissionTickets,
  ) {}

  @Post()
  @ApiOperation({ summary: 'One permission or an array of at most 20: 201 {"ticket"}' })
  @ApiResponse({ status: 201, description: '{"ticket"}' })
  async create(@Req() request: Request, @Res() response: Response): Promise<void> {
    const { client } = await this.pats.authenticate(request);
    const permissions = await this.requests.check(client.id, await readJsonBody(request));
    sendNoStoreJson(response, 201, { ticket: await this.tickets.issue(client.id, permissions) });
  }

  @All()
  other(@Req() request: Request): never {
    throw unsupportedMethod(request.method, 'POST');
  }
}
