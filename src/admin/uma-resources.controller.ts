import { Controller, Get, Param, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { resourcesOfDataSource, type UmaResourceView } from '../uma/data-source-resources.js';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { notFound } from './json-api/admin-error.js';
import { pageOf } from './json-api/collection-parameters.js';
import type { ResourceObject } from './json-api/resource-object.js';
import { parseId } from './json-api/resource-object.js';
import { sendJsonApi } from './json-api/send-json-api.js';

/**
 * `GET {admin_url}/data-source/{id}/uma-resources` (docs/guides/uma.md): the UMA resources its
 * umaClient registered, read-only (they are written at the protection API), paged. Registered
 * before AdminController.
 */
@ApiTags('admin')
@ApiSecurity('admin_token')
@Controller('admin/data-source')
@UseGuards(AdminTokenGuard)
@UseFilters(AdminExceptionFilter)
export class UmaResourcesController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get(':id/uma-resources')
  @ApiOperation({ summary: "The UMA resources a data source's umaClient registered (page[number], page[size])" })
  @ApiResponse({ status: 200, description: 'JSON:API collection of uma-resource objects, with meta.total and links' })
  @ApiResponse({ status: 404, description: 'no such data source' })
  async list(@Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const dataSourceId = parseId(id, '/id');
    const { number, size } = pageOf(request);
    const page = await resourcesOfDataSource(this.dataSource, dataSourceId, (number - 1) * size, size);
    if (!page) throw notFound(`no data-source with id ${dataSourceId}`);
    const link = (at: number) => `/admin/data-source/${dataSourceId}/uma-resources?page[number]=${at}&page[size]=${size}`;
    const last = Math.max(1, Math.ceil(page.total / size));
    sendJsonApi(response, 200, {
      data: page.resources.map(resourceObject),
      meta: { total: page.total },
      links: {
        self: link(number),
        first: link(1),
        last: link(last),
        ...(number < last ? { next: link(number + 1) } : {}),
        ...(number > 1 ? { prev: link(number - 1) } : {}),
      },
    });
  }
}

function resourceObject(resource: UmaResourceView): ResourceObject {
  return {
    type: 'uma-resource',
    id: String(resource.id),
    attributes: {
      resourceId: resource.resourceId,
      type: resource.type,
      name: resource.name,
      description: resource.description,
      iconUri: resource.iconUri,
      resourceScopes: resource.resourceScopes,
    },
    relationships: {
      umaClient: { data: { type: 'uma-client', id: String(resource.clientKey) } },
      resourceDefinition: { data: { type: 'resource-definition', id: String(resource.definitionId) } },
    },
  };
}
