import { Module } from '@nestjs/common';
import { AdoptionsModule } from '../adoptions/adoptions.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { PetsModule } from '../pets/pets.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { StatsController } from './stats.controller.js';
import { StatsService } from './stats.service.js';

/** The admin's activity statistics, read through the services of the modules that own them. */
@Module({
  imports: [AdoptionsModule, AuditModule, PetsModule, WebhooksModule],
  controllers: [StatsController],
  providers: [StatsService],
})
export class StatsModule {}
