import { Global, Module } from '@nestjs/common';
import { MetricsAccessGuard } from './metrics-access.guard.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/** Global, so that any feature (rate limits, readiness, media) can record its own metrics. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsAccessGuard],
  exports: [MetricsService],
})
export class MetricsModule {}
