import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { MetricsService } from './metrics.service.js';

/** Prometheus text format, on the admin listener only (src/http/listener-routes.ts). */
@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics (admin listener only)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format' })
  async scrape(@Res() response: Response): Promise<void> {
    const body = await this.metrics.scrape().catch(() => undefined);
    if (body === undefined) {
      response.status(503).set('Content-Type', 'text/plain').send('the metrics of the other workers could not be collected\n');
      return;
    }
    response.status(200).set('Content-Type', this.metrics.registry.contentType).send(body);
  }
}
