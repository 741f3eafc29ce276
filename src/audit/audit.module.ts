import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JwtKeyModule } from '../auth/jwt-key.module.js';
import { AuditContextInterceptor } from './audit-context.js';
import { AuditEventsController } from './audit-events.controller.js';
import { AuditEventsService } from './audit-events.service.js';
import { AuditEvent } from './audit-event.entity.js';
import { AuditLog } from './audit-log.js';
import { AuditReactions } from './audit-reactions.js';
import { AuditRepository } from './audit.repository.js';

/**
 * The audit log (docs/api.md, "Audit log"): a pure listener, its entries written by
 * AuditReactions in the transaction of the change they record, from the domain events of
 * auth, categories, webhooks, pets and users; read, exported and purged by
 * AuditEventsService.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent]), JwtKeyModule],
  controllers: [AuditEventsController],
  providers: [
    AuditLog,
    AuditRepository,
    AuditEventsService,
    AuditReactions,
    // The request an entry is made in: its principal, address and id (audit-context.ts).
    { provide: APP_INTERCEPTOR, useClass: AuditContextInterceptor },
  ],
  exports: [AuditEventsService],
})
export class AuditModule {}
