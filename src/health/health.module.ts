import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TokensModule } from '../tokens/tokens.module.js';
import { HealthController } from './health.controller.js';

/** GET /health/live and /health/ready, on both listeners (admin-listener.ts). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), TokensModule],
  controllers: [HealthController],
})
export class HealthModule {}
