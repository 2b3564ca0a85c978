import { Controller, Delete, Get, Param, Patch, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { AdminRecordsService } from './admin-records.service.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { malformed } from './json-api/admin-error.js';
import { collectionParametersOf, pageLinks } from './json-api/collection-parameters.js';
import { JSON_API, readJsonApiBody } from './json-api/request-body.js';
import { parseId } from './json-api/resource-object.js';
import { sendJsonApi } from './json-api/send-json-api.js';

const JSON_PATCH = `${JSON_API}; ext=jsonpatch`;

/** `{admin_url}`: JSON Patch over every type, and plain JSON:API per type (docs/reference/admin-interface.md). */
const TYPES = [
  'uma-client',
  'resource-definition',
  'scope',
  'purpose',
  'capability-ticket',
  'requested-resource',
  'requested-resource-scopes',
  'requested-resources-capability-tickets',
  'data-source',
  'data-source-resource-definitions',
  'data-source-delegation',
  'audit-event',
];
const TYPE_PARAMETER = { name: 'type', enum: TYPES, description: 'JSON:API resource type (audit-event is read-only)' };
const ID_PARAMETER = { name: 'id', description: 'positive 32-bit integer' };
const ERRORS = { description: 'JSON:API `{"errors": [...]}` (docs/reference/admin-interface.md lists every status)' };

@ApiTags('admin')
@ApiSecurity('admin_token')
@ApiResponse({ status: 401, ...ERRORS })
@ApiResponse({ status: 429, ...ERRORS })
@Controller('admin')
@UseGuards(AdminTokenGuard)
@UseFilters(AdminExceptionFilter)
export class AdminController {
  constructor(private readonly records: AdminRecordsService) {}

  @Patch()
  @ApiOperation({ summary: 'JSON Patch over every type, one transaction (Content-Type: application/vnd.api+json; ext=jsonpatch)' })
  @ApiResponse({ status: 200, description: 'one `{"data": ...}` per operation' })
  @ApiResponse({ status: 400, ...ERRORS })
  @ApiResponse({ status: 422, ...ERRORS })
  async patch(@Req() request: Request, @Res() response: Response): Promise<void> {
    const outcome = await this.records.applyPatch(await readJsonApiBody(request, true), actorOf(request));
    if (outcome.ok) sendJsonApi(response, 200, outcome.results, JSON_PATCH);
    else sendJsonApi(response, outcome.status, outcome.errors, JSON_PATCH);
  }

  /**
   * A new signing key (docs/reference/token-endpoint.md#signing-keys), published at once and signing
   * after SIGNING_KEY_PUBLISH_AHEAD seconds, or at once with `?now=true`; the old one stays in the
   * JWKS while its tokens live.
   */
  @Post('keys/rotate')
  async rotateKeys(@Req() request: Request, @Res() response: Response): Promise<void> {
    const now = new URL(request.url, 'http://x').searchParams.get('now');
    if (now !== null && now !== 'true' && now !== 'false') throw malformed('the now parameter must be true or false', undefined, 'now');
    sendJsonApi(response, 201, { data: await this.records.rotateSigningKey(actorOf(request), now === 'true') });
  }

  @Get(':type')
  @ApiOperation({ summary: 'List records (page[number], page[size], include, filter[<member>], filter[search], sort); see docs/reference/admin-filters.md' })
  @ApiParam(TYPE_PARAMETER)
  @ApiQuery({ name: 'page[number]', required: false, schema: { type: 'integer', minimum: 1, default: 1 } })
  @ApiQuery({ name: 'page[size]', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({
    name: 'filter[search]',
    required: false,
    description:
      "case-insensitive prefix of the type's human names (uma-client: clientId or clientName; resource-definition, purpose: name; capability-ticket: ticketId or ticketName; data-source: name or resourceUri)",
  })
  @ApiQuery({
    name: 'filter[<member>]',
    required: false,
    description: 'exact value of an attribute, or the id (comma-separated ids) of a to-one relationship; several filters are ANDed',
  })
  @ApiQuery({ name: 'sort', required: false, description: 'comma-separated members, "-" for descending, e.g. -id' })
  @ApiQuery({ name: 'include', required: false, description: 'comma-separated relationship paths' })
  @ApiResponse({ status: 200, description: 'JSON:API document with links and meta.total' })
  @ApiResponse({ status: 400, description: "unknown filter or sort member, malformed value or page: the error's source.parameter names it" })
  async list(@Param('type') type: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const parameters = collectionParametersOf(request);
    const { lastPage, ...document } = await this.records.list(type, parameters, includeOf(request));
    sendJsonApi(response, 200, { ...document, links: pageLinks(request, type, parameters.page, lastPage) });
  }

  @Get(':type/:id')
  @ApiOperation({ summary: 'Read one record (include)' })
  @ApiParam(TYPE_PARAMETER)
  @ApiParam(ID_PARAMETER)
  @ApiResponse({ status: 200, description: 'JSON:API document' })
  @ApiResponse({ status: 404, ...ERRORS })
  async read(@Param('type') type: string, @Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    sendJsonApi(response, 200, await this.records.read(type, parseId(id, '/id'), includeOf(request)));
  }

  @Post(':type')
  @ApiOperation({ summary: 'Create a record (Content-Type: application/vnd.api+json)' })
  @ApiParam(TYPE_PARAMETER)
  @ApiResponse({ status: 201, description: 'created, with Location' })
  @ApiResponse({ status: 409, ...ERRORS })
  @ApiResponse({ status: 422, ...ERRORS })
  async create(@Param('type') type: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.records.handlerForUrl(type);
    const result = await this.records.create(type, await readJsonApiBody(request, false), actorOf(request));
    sendJsonApi(response, 201, result, JSON_API, { Location: `/admin/${type}/${result.data!.id}` });
  }

  @Patch(':type/:id')
  @ApiOperation({ summary: 'Change the attributes and relationships named' })
  @ApiParam(TYPE_PARAMETER)
  @ApiParam(ID_PARAMETER)
  @ApiResponse({ status: 200, description: 'JSON:API document' })
  @ApiResponse({ status: 404, ...ERRORS })
  async update(@Param('type') type: string, @Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const recordId = parseId(id, '/id');
    this.records.handlerForUrl(type);
    sendJsonApi(response, 200, await this.records.update(type, recordId, await readJsonApiBody(request, false), actorOf(request)));
  }

  @Delete(':type/:id')
  @ApiOperation({ summary: 'Remove a record' })
  @ApiParam(TYPE_PARAMETER)
  @ApiParam(ID_PARAMETER)
  @ApiResponse({ status: 204, description: 'removed' })
  @ApiResponse({ status: 409, ...ERRORS })
  async remove(@Param('type') type: string, @Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const recordId = parseId(id, '/id');
    this.records.handlerForUrl(type);
    await this.records.remove(type, recordId, actorOf(request));
    sendJsonApi(response, 204, undefined);
  }
}

/** Who, for the audit trail: the one administrative credential, from this address. */
function actorOf(request: Request): string {
  return `admin-token@${request.ip ?? 'unknown'}`;
}

function includeOf(request: Request): string[] {
  const include = request.query.include;
  if (include === undefined) return [];
  if (typeof include !== 'string' || include === '') throw malformed('include must be one comma-separated list');
  return include.split(',');
}
