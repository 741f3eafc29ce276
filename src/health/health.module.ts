import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { MediaModule } from '../media/media.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';

@Module({
  // Terminus logs every failed probe; HealthService logs only changes of readiness.
  imports: [TerminusModule.forRoot({ logger: false }), RateLimitModule, MediaModule],
  controllers: [HealthController],
  providers: [HealthService],
})
export class HealthModule {}
