import { Controller, Get, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CONTROL_CHARACTER } from '../common/control-characters.js';
import { sendNoStoreJson } from '../common/send-json.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { isPurposeOfUseCode } from '../oauth/purpose-of-use.js';
import { parseScope } from '../oauth/scope.js';
import { MAX_RESOURCES } from '../oauth/token-request.js';
import { AccessDecisions } from '../tickets/access-decisions.js';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { malformed, notFound } from './json-api/admin-error.js';

const MAX_PURPOSES_OF_USE = 100;
const ERRORS = { description: 'JSON:API `{"errors": [...]}`' };

/**
 * `GET {admin_url}/explain` (docs/concepts/explain.md): what the token endpoint would decide right
 * now, with its evidence, read fresh from the database; nothing is minted, stored or counted.
 * Registered before AdminController, whose `GET /admin/:type` would otherwise take the path.
 */
@ApiTags('admin')
@ApiSecurity('admin_token')
@Controller('admin/explain')
@UseGuards(AdminTokenGuard)
@UseFilters(AdminExceptionFilter)
export class ExplainController {
  constructor(private readonly decisions: AccessDecisions) {}

  @Get()
  @ApiOperation({ summary: 'Why a client gets a token for these scopes (and resources), or the first missing link' })
  @ApiQuery({ name: 'client', description: 'client_id' })
  @ApiQuery({ name: 'scope', description: 'space-separated scopes, as at the token endpoint' })
  @ApiQuery({ name: 'resource', required: false, isArray: true, description: 'RFC 8707 resource indicators (repeatable)' })
  @ApiQuery({
    name: 'purposeOfUse',
    required: false,
    isArray: true,
    description: 'purpose-of-use codes a UDAP request asserts (repeatable), such as urn:oid:2.16.840.1.113883.5.8#TREAT',
  })
  @ApiResponse({
    status: 200,
    description: '{client, granted, scope, lifetime, aud, scopes: [{scope, granted, allowed, denotes, expandsTo, covering, missing}]}',
  })
  @ApiResponse({ status: 400, ...ERRORS })
  @ApiResponse({ status: 404, ...ERRORS })
  async explain(@Req() request: Request, @Res() response: Response): Promise<void> {
    const clientId = single(request.query.client, 'client');
    const scopes = scopesOf(single(request.query.scope, 'scope'));
    const resources = resourcesOf(request.query.resource);
    const purposesOfUse = purposesOfUseOf(request.query.purposeOfUse);
    const decision = await this.decisions.explain(clientId, { scopes, resources, ...(purposesOfUse ? { purposesOfUse } : {}) });
    if (!decision) throw notFound(`no uma-client has clientId "${clientId.slice(0, 255)}"`);
    sendNoStoreJson(response, 200, decision.verdict);
  }
}

function single(value: unknown, name: string): string {
  if (value === undefined || value === '') throw malformed(`the ${name} query parameter is required`);
  if (typeof value !== 'string') throw malformed(`give the ${name} query parameter once`);
  if (CONTROL_CHARACTER.test(value)) throw malformed(`the ${name} query parameter contains a control character`);
  return value;
}

function scopesOf(value: string): string[] {
  try {
    return parseScope(value);
  } catch (error) {
    if (error instanceof OAuthError) throw malformed(error.description);
    throw error;
  }
}

function resourcesOf(value: unknown): string[] {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (!values.every((item) => typeof item === 'string')) throw malformed('resource must be a plain query parameter (repeatable)');
  const resources = values.filter((item) => item !== '');
  if (resources.some((item) => CONTROL_CHARACTER.test(item))) throw malformed('a resource query parameter contains a control character');
  if (resources.length > MAX_RESOURCES) throw malformed(`at most ${MAX_RESOURCES} resource parameters`);
  return resources;
}

/** docs/concepts/explain.md#purpose-of-use: none (not a UDAP request), or the codes as a UDAP request asserts them. */
function purposesOfUseOf(value: unknown): string[] | undefined {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (!values.every((item) => typeof item === 'string'))
    throw malformed('purposeOfUse must be a plain query parameter (repeatable)', undefined, 'purposeOfUse');
  const codes = values.filter((item) => item !== '');
  if (codes.length > MAX_PURPOSES_OF_USE) throw malformed(`at most ${MAX_PURPOSES_OF_USE} purposeOfUse parameters`, undefined, 'purposeOfUse');
  const bad = codes.find((code) => !isPurposeOfUseCode(code));
  if (bad !== undefined) {
    throw malformed(
      `purposeOfUse "${bad.slice(0, 255)}" is not a purpose-of-use code: an absolute URI of at most 255 characters such as urn:oid:2.16.840.1.113883.5.8#TREAT`,
      undefined,
      'purposeOfUse',
    );
  }
  return codes.length > 0 ? codes : undefined;
}
