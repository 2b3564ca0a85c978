import { All, Controller, Inject, Param, Req, Res, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OAuthExceptionFilter } from '../http/oauth-exception.filter.js';
import { accepts, acceptsGzip, matchesEtag } from './http-negotiation.js';
import { StatusListPublisher, type SignedList } from './status-list-publisher.js';

const MEDIA_TYPE = 'application/statuslist+jwt';
const ALLOWED = 'GET, HEAD';

/**
 * Token status lists (docs/reference/status-lists.md): `GET|HEAD /oauth2/status/{list-id}` serves
 * the signed list from memory; `GET /oauth2/status` names every list not retired. Public, without
 * authentication, for any origin.
 */
@ApiTags('oauth2')
@Controller('oauth2/status')
@UseFilters(OAuthExceptionFilter)
export class StatusListsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly publisher: StatusListPublisher,
  ) {}

  @All()
  @ApiOperation({ summary: 'Token status list aggregation: `{"status_lists": [<uri>…]}`' })
  async aggregation(@Req() request: Request, @Res() response: Response): Promise<void> {
    if (!this.allowed(request, response)) return;
    const body = JSON.stringify({ status_lists: await this.publisher.aggregation() });
    const etag = `"${Buffer.from(body).length.toString(36)}-${hash(body)}"`;
    this.send(request, response, 'application/json', Buffer.from(body), undefined, etag, this.publisher.ttl);
  }

  @All(':id')
  @ApiOperation({ summary: 'A token status list: the signed `statuslist+jwt`' })
  async list(@Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    if (!this.allowed(request, response)) return;
    if (!accepts(request.headers.accept, MEDIA_TYPE)) {
      return refuse(response, 406, 'not_acceptable', `this list is served only as ${MEDIA_TYPE}`);
    }
    if (new URL(request.url, 'http://x').searchParams.has('time')) {
      return refuse(response, 501, 'not_implemented', 'historical status (the time parameter) is not offered');
    }
    const signed = await this.publisher.token(id);
    if (signed === undefined) return refuse(response, 404, 'not_found', 'no such status list (unknown, or retired once all its tokens expired)');
    this.send(request, response, MEDIA_TYPE, Buffer.from(signed.jwt), signed.gzipped, signed.etag, maxAge(signed, this.publisher.ttl));
  }

  /** The feature is on and the method is GET or HEAD; else the refusal is sent. */
  private allowed(request: Request, response: Response): boolean {
    // A browser's CORS preflight (for If-None-Match, say) is answered for any origin.
    if (request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) {
      response.writeHead(204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': ALLOWED,
        'Access-Control-Allow-Headers': 'Accept, If-None-Match',
        'Access-Control-Max-Age': '600',
      });
      response.end();
      return false;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      refuse(response, 405, 'method_not_allowed', `method ${request.method.slice(0, 16)} is not allowed here (allowed: ${ALLOWED})`, { Allow: ALLOWED });
      return false;
    }
    if (!this.config.statusList) {
      refuse(response, 404, 'not_found', 'token status lists are turned off on this server');
      return false;
    }
    return true;
  }

  private send(request: Request, response: Response, type: string, body: Buffer, gzipped: Buffer | undefined, etag: string, seconds: number): void {
    const headers: Record<string, string | number> = {
      'Cache-Control': `public, max-age=${seconds}`,
      ETag: etag,
      'Access-Control-Allow-Origin': '*',
      Vary: 'Accept-Encoding',
    };
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      response.writeHead(304, headers);
      response.end();
      return;
    }
    const zipped = gzipped !== undefined && acceptsGzip(request.headers['accept-encoding']);
    const payload = zipped ? gzipped : body;
    response.writeHead(200, {
      ...headers,
      'Content-Type': type,
      'Content-Length': payload.length,
      ...(zipped ? { 'Content-Encoding': 'gzip' } : {}),
    });
    if (request.method === 'HEAD') response.end();
    else response.end(payload);
  }
}

/** `ttl` minus the served token's age, whole seconds, never negative. */
/** Until the end of the ttl-long period the token was signed for (its iat is the period's start). */
function maxAge(signed: SignedList, ttl: number): number {
  return Math.max(0, signed.iat + ttl - Math.floor(Date.now() / 1000));
}

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

function refuse(response: Response, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify({ error, error_description: description });
  response.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-store',
    'Access-Control-Allow-Origin': '*',
  });
  response.end(payload);
}
