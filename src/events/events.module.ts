import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DomainEvents } from './domain-events.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxWorker } from './outbox-worker.js';
import { OutboxRepository } from './outbox.repository.js';

/**
 * Domain events and the outbox (docs/events.md, "Domain events"). Global, like the database:
 * any feature publishes, and any feature reacts with a decorated method.
 */
@Global()
@Module({
  imports: [
    EventEmitterModule.forRoot(),
    DiscoveryModule,
    TypeOrmModule.forFeature([OutboxMessage]),
  ],
  providers: [DomainEvents, OutboxHandlers, OutboxRepository, OutboxWorker],
  exports: [DomainEvents],
})
export class EventsModule {}
