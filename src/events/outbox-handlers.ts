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

/** What an `@EachJobHandler` says of its job: done (nothing), or to run again at `retryAt`. */
export type JobOutcome = void | { retryAt: Date };

/** Gets one job of its queue and the id of its outbox message. */
export type EachJobHandlerFn = (job: DomainEventBase, jobId: number) => Promise<JobOutcome>;

/** A queue whose jobs run one per call, up to `concurrency` at once, in a lane of its own. */
export interface EachJobQueue {
  queue: string;
  concurrency: number;
}

/**
 * Every `@OutboxHandler`, `@JobHandler` and `@RecurringJob` method of the application, by
 * consumer (the queue), found at start-up.
 */
@Injectable()
export class OutboxHandlers implements OnModuleInit {
  private readonly byConsumer = new Map<string, OutboxHandlerFn>();
  private readonly eachByQueue = new Map<string, EachJobHandlerFn>();
  private readonly eachQueues: EachJobQueue[] = [];
  private readonly retryForMsByConsumer = new Map<string, number>();
  private readonly gatedConsumers = new Set<string>();
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
            (...args: unknown[]) => method.apply(instance, args) as Promise<never>,
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

  eachHandlerOf(queue: string): EachJobHandlerFn {
    const handler = this.eachByQueue.get(queue);
    if (!handler) throw new Error(`No @EachJobHandler is named ${queue}`);
    return handler;
  }

  /** Whether a handler of this build serves `queue`. */
  serves(queue: string): boolean {
    return this.byConsumer.has(queue) || this.eachByQueue.has(queue);
  }

  /** Whether `consumer` gets rows only for the event types its subscribers want. */
  isGated(consumer: string): boolean {
    return this.gatedConsumers.has(consumer);
  }

  /** How long after it was written a message of `consumer` is retried at least; 0 if not said. */
  retryForMsOf(consumer: string): number {
    return this.retryForMsByConsumer.get(consumer) ?? 0;
  }

  /** The consumers whose messages are handed over in batches, in the worker's main lane. */
  get consumers(): string[] {
    return [...this.byConsumer.keys()];
  }

  /** The queues of `@EachJobHandler`s, each drained in a lane of its own. */
  get each(): readonly EachJobQueue[] {
    return this.eachQueues;
  }

  /** The recurring jobs' schedules. */
  get schedules(): readonly Schedule[] {
    return this.recurring;
  }

  private add(
    { consumer, types, retryForMs, gated, everyMs, concurrency }: OutboxHandlerMetadata,
    handler: OutboxHandlerFn & EachJobHandlerFn,
  ): void {
    if (this.serves(consumer)) {
      throw new Error(`Two outbox handlers are named ${consumer}: a consumer has one`);
    }
    if (concurrency === undefined) {
      this.byConsumer.set(consumer, handler);
    } else {
      this.eachByQueue.set(consumer, handler);
      this.eachQueues.push({ queue: consumer, concurrency });
    }
    if (retryForMs !== undefined) this.retryForMsByConsumer.set(consumer, retryForMs);
    if (gated) this.gatedConsumers.add(consumer);
    if (everyMs !== undefined) this.recurring.push({ queue: consumer, everyMs });
    for (const type of types) {
      this.consumersByType.set(type, [...this.consumersOf(type), consumer]);
    }
  }
}
