import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { MetricsService } from './metrics.service.js';

/** Prometheus text format, on the admin listener only (admin-listener.ts). */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Res() response: Response): Promise<void> {
    const body = await this.metrics.registry.metrics();
    response.status(200).set('Content-Type', this.metrics.registry.contentType).send(body);
  }
}
