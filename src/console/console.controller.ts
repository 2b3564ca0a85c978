import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { ConsoleAssets } from './console-assets.js';

/**
 * docs/guides/console.md#security-and-accessibility: everything the page loads comes from this
 * origin, no script or style is inline, the page is never framed, forms post nowhere else, and
 * nothing is fetched but the admin API.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The administrator's console (static files), on the admin listener only (src/http/listener-routes.ts). */
@ApiExcludeController()
@Controller('console')
export class ConsoleController {
  private readonly assets = new ConsoleAssets();

  @Get()
  page(@Res() response: Response): Promise<void> {
    return this.send(response, 'index.html');
  }

  @Get(':name')
  asset(@Param('name') name: string, @Res() response: Response): Promise<void> {
    return this.send(response, name);
  }

  private async send(response: Response, name: string): Promise<void> {
    const asset = await this.assets.get(name);
    response.setHeader('Content-Security-Policy', CONSOLE_CSP);
    response.setHeader('Referrer-Policy', 'no-referrer');
    // The page holds no secret, but a stale script after an upgrade would talk to a newer API.
    response.setHeader('Cache-Control', 'no-cache');
    if (!asset) {
      response.status(404).type('text/plain').send('Not Found');
      return;
    }
    response.status(200).type(asset.contentType).send(asset.body);
  }
}
