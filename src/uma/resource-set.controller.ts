import { All, Controller, Delete, Get, Inject, Param, Post, Put, Req, Res, UseFilters } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OAuthExceptionFilter } from '../http/oauth-exception.filter.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { PatAuthenticator } from './pat-authenticator.js';
import { readJsonBody } from './protection-body.js';
import { sendNoContent, unsupportedMethod } from './protection-responses.js';
import { parseResourceDescription } from './resource-description.js';
import { ResourceRegistrations } from './resource-registrations.service.js';

const COLLECTION_METHODS = 'GET, POST';
const ITEM_METHODS = 'GET, PUT, DELETE';

/** Resource registration (FedAuthz §3, docs/guides/uma.md), for a data source's umaClient with its PAT. */
@ApiTags('uma')
@ApiBearerAuth()
@Controller('uma/resource_set')
@UseFilters(OAuthExceptionFilter)
export class ResourceSetController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly pats: PatAuthenticator,
    private readonly resources: ResourceRegistrations,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Register a resource: 201 {"_id"} with Location' })
  @ApiResponse({ status: 201, description: '{"_id"}' })
  async create(@Req() request: Request, @Res() response: Response): Promise<void> {
    const { client } = await this.pats.authenticate(request);
    const id = await this.resources.create(client.id, parseResourceDescription(await readJsonBody(request)));
    sendNoStoreJson(response, 201, { _id: id }, { Location: `${this.config.issuer}/uma/resource_set/${id}` });
  }

  @Get()
  @ApiOperation({ summary: "The _ids of the caller's registered resources" })
  async list(@Req() request: Request, @Res() response: Response): Promise<void> {
    const { client } = await this.pats.authenticate(request);
    sendNoStoreJson(response, 200, await this.resources.list(client.id));
  }

  @All()
  collectionOther(@Req() request: Request): never {
    throw unsupportedMethod(request.method, COLLECTION_METHODS);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A registered resource description, with its _id' })
  async read(@Req() request: Request, @Res() response: Response, @Param('id') id: string): Promise<void> {
    const { client } = await this.pats.authenticate(request);
    sendNoStoreJson(response, 200, await this.resources.read(client.id, id));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace a registered resource description whole' })
  async replace(@Req() request: Request, @Res() response: Response, @Param('id') id: string): Promise<void> {
    const { client } = await this.pats.authenticate(request);
    await this.resources.replace(client.id, id, parseResourceDescription(await readJsonBody(request)));
    sendNoStoreJson(response, 200, { _id: id });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a registered resource: 204' })
  async remove(@Req() request: Request, @Res() response: Response, @Param('id') id: string): Promise<void> {
    const { client } = await this.pats.authenticate(request);
    await this.resources.remove(client.id, id);
    sendNoContent(response);
  }

  @All(':id')
  itemOther(@Req() request: Request): never {
    throw unsupportedMethod(request.method, ITEM_METHODS);
  }
}
