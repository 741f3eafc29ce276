import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { DomainEventBase, DomainEventType } from './domain-event.js';
import { OUTBOX_HANDLER, type OutboxHandlerMetadata } from './event-handlers.decorator.js';
import type { Schedule } from './outbox.repository.js';

/**
 * Gets a consumer's claimed events or jobs, oldest first: one per subject (see
 * OutboxRepository.claim), and the id of each one's outbox message, the same at every
 * hand-over of it.
 */
export type OutboxHandlerFn = (events: DomainEventBase[], messageIds: number[]) => Promise<void>;

/**
 * Every `@OutboxHandler`, `@JobHandler` and `@RecurringJob` method of the application, by
 * consumer (the queue), found at start-up.
 */
@Injectable()
export class OutboxHandlers implements OnModuleInit {
  private readonly byConsumer = new Map<string, OutboxHandlerFn>();
  private readonly retryForMsByConsumer = new Map<string, number>();
  private readonly consumersByType = new Map<DomainEventType, string[]>();
  private readonly recurring: Schedule[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, unknown>)[name];
        if (typeof method !== 'function') continue;
        const metadata = this.reflector.get<OutboxHandlerMetadata | undefined>(
          OUTBOX_HANDLER,
          method,
        );
        if (metadata) {
          this.add(
            metadata,
            (events, messageIds) => method.call(instance, events, messageIds) as Promise<void>,
          );
        }
      }
    }
  }

  /** The consumers that get an outbox row for an event of `type`. */
  consumersOf(type: DomainEventType): readonly string[] {
    return this.consumersByType.get(type) ?? [];
  }

  handlerOf(consumer: string): OutboxHandlerFn {
    const handler = this.byConsumer.get(consumer);
    if (!handler) throw new Error(`No outbox handler is named ${consumer}`);
    return handler;
  }

  /** How long after it was written a message of `consumer` is retried at least; 0 if not said. */
  retryForMsOf(consumer: string): number {
    return this.retryForMsByConsumer.get(consumer) ?? 0;
  }

  get consumers(): string[] {
    return [...this.byConsumer.keys()];
  }

  /** The recurring jobs' schedules. */
  get schedules(): readonly Schedule[] {
    return this.recurring;
  }

  private add(
    { consumer, types, retryForMs, everyMs }: OutboxHandlerMetadata,
    handler: OutboxHandlerFn,
  ): void {
    if (this.byConsumer.has(consumer)) {
      throw new Error(`Two outbox handlers are named ${consumer}: a consumer has one`);
    }
    this.byConsumer.set(consumer, handler);
    if (retryForMs !== undefined) this.retryForMsByConsumer.set(consumer, retryForMs);
    if (everyMs !== undefined) this.recurring.push({ queue: consumer, everyMs });
    for (const type of types) {
      this.consumersByType.set(type, [...this.consumersOf(type), consumer]);
    }
  }
}
