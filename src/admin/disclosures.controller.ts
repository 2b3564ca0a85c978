import { All, Controller, Get, Param, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { csvHeader, csvRecord } from '../disclosures/disclosure-csv.js';
import { DisclosureReads, type DisclosureFilter, type DisclosureView } from '../disclosures/disclosure-reads.js';
import { isAbsoluteUriWithin, isPurposeOfUseCode } from '../oauth/purpose-of-use.js';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { pageOf } from './json-api/collection-parameters.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { AdminError, malformed, notFound } from './json-api/admin-error.js';
import type { ResourceObject } from './json-api/resource-object.js';
import { sendJsonApi } from './json-api/send-json-api.js';

const FILTERS = ['client', 'capabilityTicket', 'requestedResource', 'since', 'until', 'active', 'organization', 'purposeOfUse', 'parentJti'];
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * `{admin_url}/disclosure`: the accounting of disclosures, read-only (docs/guides/consent-withdrawal.md).
 * Newest first, paged, with its own filters; `Accept: text/csv` exports every matching row.
 */
@ApiTags('admin')
@ApiSecurity('admin_token')
@Controller('admin/disclosure')
@UseGuards(AdminTokenGuard)
@UseFilters(AdminExceptionFilter)
export class DisclosuresController {
  constructor(private readonly reads: DisclosureReads) {}

  @Get()
  @ApiOperation({
    summary:
      'Disclosures, newest first (filter[client], filter[capabilityTicket], filter[requestedResource], filter[since], filter[until], filter[active], filter[organization], filter[purposeOfUse], filter[parentJti]); Accept: text/csv exports them all',
  })
  @ApiProduces('application/vnd.api+json', 'text/csv')
  @ApiQuery({ name: 'filter[client]', required: false })
  @ApiQuery({ name: 'filter[active]', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'filter[organization]', required: false, description: "a UDAP token's hl7-b2b organization_id (an absolute URI)" })
  @ApiQuery({ name: 'filter[purposeOfUse]', required: false, description: 'one of the purpose-of-use codes a UDAP token asserted' })
  @ApiResponse({ status: 200, description: 'JSON:API document with meta.total and links, or the CSV export' })
  async list(@Req() request: Request, @Res() response: Response): Promise<void> {
    const filter = filterOf(request);
    if (wantsCsv(request)) return this.csv(filter, response);
    const page = pageOf(request);
    const { records, total } = await this.reads.list(filter, (page.number - 1) * page.size, page.size);
    const lastPage = Math.max(1, Math.ceil(total / page.size));
    const filters = filterQuery(request);
    const link = (number: number) => `/admin/disclosure?${filters}page[number]=${number}&page[size]=${page.size}`;
    const links = {
      self: link(page.number),
      first: link(1),
      last: link(lastPage),
      ...(page.number < lastPage ? { next: link(page.number + 1) } : {}),
      ...(page.number > 1 ? { prev: link(page.number - 1) } : {}),
    };
    sendJsonApi(response, 200, { data: records.map(resourceOf), meta: { total, page }, links });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One disclosure' })
  @ApiParam({ name: 'id', description: 'positive 64-bit integer' })
  @ApiResponse({ status: 404, description: 'no such disclosure' })
  async read(@Param('id') id: string, @Res() response: Response): Promise<void> {
    const view = await this.reads.find(parseDisclosureId(id));
    if (!view) throw notFound(`no disclosure with id ${id}`);
    sendJsonApi(response, 200, { data: resourceOf(view) });
  }

  @All()
  @ApiOperation({ summary: 'Disclosures cannot be written: 405, Allow: GET' })
  refuseCollection(): void {
    throw methodNotAllowed();
  }

  @All(':id')
  @ApiOperation({ summary: 'Disclosures cannot be written: 405, Allow: GET' })
  refuseOne(): void {
    throw methodNotAllowed();
  }

  private async csv(filter: DisclosureFilter, response: Response): Promise<void> {
    const chunks = this.reads.all(filter);
    // Read the first chunk before the status is sent: a database failure is still a clean error.
    const first = await chunks.next();
    response.writeHead(200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': 'attachment; filename="disclosures.csv"',
      'Cache-Control': 'no-store',
      'Content-Language': 'en',
    });
    response.write(csvHeader());
    try {
      for (let step = first; !step.done; step = await chunks.next()) {
        const text = step.value.map(csvRecord).join('');
        if (!response.write(text)) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end();
    } catch {
      // Headers are gone: cut the body short so the client sees an incomplete download, not a whole file.
      response.destroy();
    }
  }
}

function methodNotAllowed(): AdminError {
  const error = new AdminError(405, 'read_only', 'disclosure records are read-only: only GET is allowed');
  error.headers.Allow = 'GET';
  return error;
}

function wantsCsv(request: Request): boolean {
  return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(request.headers.accept ?? '');
}

function resourceOf(view: DisclosureView): ResourceObject {
  const { id, ...attributes } = view;
  return { type: 'disclosure', id, attributes };
}

function parseDisclosureId(value: string): string {
  if (!/^[1-9]\d{0,18}$/.test(value) || BigInt(value) > MAX_BIGINT)
    throw malformed('a disclosure id is a positive 64-bit integer, as a string of digits', '/id');
  return value;
}

/** The filters of the query string, checked: an unknown member or a malformed value is a 400 naming it. */
function filterOf(request: Request): DisclosureFilter {
  const filter: DisclosureFilter = {};
  for (const [name, raw] of Object.entries(request.query)) {
    const member = /^filter\[(.*)\]$/.exec(name)?.[1];
    if (member === undefined) continue;
    const parameter = `filter[${member}]`;
    if (!FILTERS.includes(member))
      throw malformed(`unknown filter ${parameter.slice(0, 100)}; disclosures are filtered by ${FILTERS.map((known) => `filter[${known}]`).join(', ')}`);
    if (typeof raw !== 'string') throw malformed(`${parameter} must be given once`);
    assign(filter, member, raw, parameter);
  }
  return filter;
}

function assign(filter: DisclosureFilter, member: string, raw: string, parameter: string): void {
  switch (member) {
    case 'client':
      if (raw === '' || raw.length > 255 || raw.includes('\u0000')) throw malformed(`${parameter} must be a client_id (1 to 255 characters)`);
      filter.client = raw;
      return;
    case 'capabilityTicket':
    case 'requestedResource':
      if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw malformed(`${parameter} must be a record id (a positive 32-bit integer)`);
      filter[member] = Number(raw);
      return;
    case 'since':
    case 'until': {
      const date = new Date(raw);
      if (!RFC_3339.test(raw) || Number.isNaN(date.getTime())) throw malformed(`${parameter} must be an RFC 3339 date-time such as 2026-11-23T10:02:00Z`);
      filter[member] = date;
      return;
    }
    case 'parentJti':
      if (raw === '' || raw.length > 64 || !/^[\x21-\x7e]+$/.test(raw)) throw malformed(`${parameter} must be a token's jti (1 to 64 printable characters)`);
      filter.parentJti = raw;
      return;
    case 'active':
      if (raw !== 'true' && raw !== 'false') throw malformed(`${parameter} must be true or false`);
      filter.active = raw === 'true';
      return;
    case 'organization':
      if (!isAbsoluteUriWithin(raw, 2048)) throw malformed(`${parameter} must be an absolute URI (at most 2048 characters) such as https://org.example/fhir`);
      filter.organization = raw;
      return;
    case 'purposeOfUse':
      if (!isPurposeOfUseCode(raw)) {
        throw malformed(`${parameter} must be a purpose-of-use code: an absolute URI of at most 255 characters such as urn:oid:2.16.840.1.113883.5.8#TREAT`);
      }
      filter.purposeOfUse = raw;
      return;
  }
}

/** The request's filters again, for the paging links. */
function filterQuery(request: Request): string {
  return Object.entries(request.query)
    .filter(([name, value]) => name.startsWith('filter[') && typeof value === 'string')
    .map(([name, value]) => `${name}=${encodeURIComponent(value as string)}&`)
    .join('');
}
