import { Controller, Get } from '@nestjs/common';
import { Public } from '../common/decorators/public.decorator.js';
import { HealthService, type Readiness } from './health.service.js';

/** Probes for balancers and orchestrators, outside /v1 and not rate limited. */
@Public()
@Controller('health')
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
