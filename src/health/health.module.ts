import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { KeysModule } from '../keys/keys.module.js';
import { HealthController } from './health.controller.js';
import { Readiness } from './readiness.js';

/** GET /health/live and /health/ready, on both listeners (src/http/listener-routes.ts); Readiness for the shutdown. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), KeysModule],
  controllers: [HealthController],
  providers: [Readiness],
  exports: [Readiness],
})
export class HealthModule {}
