import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../common/decorators/public.decorator.js';
import { HEALTH_PATH } from '../common/http/route-space.js';
import { HealthService, type Readiness } from './health.service.js';

/** Probes for balancers and orchestrators, outside /v1 and not rate limited. */
@Public()
// Operational, for balancers and scrapers: documented in docs/operations.md, not in the API document.
@ApiExcludeController()
@Controller(HEALTH_PATH)
export class HealthController {
  constructor(private readonly healthService: HealthService) {}

  @Get('live')
  live(): { status: 'ok' } {
    return this.healthService.live();
  }

  @Get('ready')
  ready(): Promise<Readiness> {
    return this.healthService.ready();
  }
}
