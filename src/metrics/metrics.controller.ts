import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { prometheusContentType } from 'prom-client';
import { Public } from '../common/decorators/public.decorator.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { METRICS_PATH } from '../common/http/route-space.js';
import { MetricsAccessGuard } from './metrics-access.guard.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint, outside /v1; see docs/operations.md, "Metrics". */
@Public()
// Operational, for balancers and scrapers: documented in docs/operations.md, not in the API document.
@ApiExcludeController()
@Controller(METRICS_PATH)
@UseGuards(MetricsAccessGuard)
export class MetricsController {
  constructor(private readonly metricsService: MetricsService) {}

  @Get()
  @Header('Content-Type', prometheusContentType)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  render(): Promise<string> {
    return this.metricsService.render();
  }
}
