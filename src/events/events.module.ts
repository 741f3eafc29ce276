import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DomainEvents } from './domain-events.js';
import { JobSchedule } from './job-schedule.entity.js';
import { OutboxInterest } from './outbox-interest.entity.js';
import { Jobs } from './jobs.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxWorker } from './outbox-worker.js';
import { OutboxWrites } from './outbox-writes.js';
import { OutboxRepository } from './outbox.repository.js';

/**
 * Domain events and the outbox, the job engine (docs/events.md, docs/jobs.md). Global, like
 * the database: any feature publishes or queues a job, and any feature reacts or runs jobs
 * with a decorated method.
 */
@Global()
@Module({
  imports: [
    EventEmitterModule.forRoot(),
    DiscoveryModule,
    TypeOrmModule.forFeature([OutboxMessage, JobSchedule, OutboxInterest]),
  ],
  providers: [DomainEvents, Jobs, OutboxHandlers, OutboxRepository, OutboxWorker, OutboxWrites],
  exports: [DomainEvents, Jobs],
})
export class EventsModule {}
