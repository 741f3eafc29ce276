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

/**
 * What a `@BatchJobHandler` says of each job of its call: what a JobOutcome says, or
 * `{ error }`: the job failed, and is retried as a throw would retry it.
 */
export type BatchJobOutcome = JobOutcome | { error: unknown };

/** Gets up to a batch of jobs of its queue and their ids; answers one outcome per job, in order. */
export type BatchJobHandlerFn = (
  jobs: DomainEventBase[],
  jobIds: number[],
) => Promise<BatchJobOutcome[]>;

/**
 * A queue whose jobs run in a lane of its own, `batch` per call (1 for an `@EachJobHandler`),
 * up to `concurrency` calls at once.
 */
export interface EachJobQueue {
  queue: string;
  concurrency: number;
  batch: number;
  /** Jobs claimed per second, at most; unpaced if undefined. */
  perSecond?: number;
}

/** An `@EachJobHandler` as a handler of batches of one: its throw is its job's outcome. */
const inBatchesOfOne =
  (handler: EachJobHandlerFn): BatchJobHandlerFn =>
  async ([job], [jobId]) => {
    try {
      return [await handler(job, jobId)];
    } catch (error) {
      return [{ error }];
    }
  };

/**
 * Every `@OutboxHandler`, `@JobHandler` and `@RecurringJob` method of the application, by
 * consumer (the queue), found at start-up.
 */
@Injectable()
export class OutboxHandlers implements OnModuleInit {
  private readonly byConsumer = new Map<string, OutboxHandlerFn>();
  private readonly eachByQueue = new Map<string, BatchJobHandlerFn>();
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

  /** The handler of a queue of its own, as a handler of batches. */
  laneHandlerOf(queue: string): BatchJobHandlerFn {
    const handler = this.eachByQueue.get(queue);
    if (!handler) throw new Error(`No @EachJobHandler or @BatchJobHandler is named ${queue}`);
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

  /** The queues of `@EachJobHandler`s and `@BatchJobHandler`s, each drained in a lane of its own. */
  get each(): readonly EachJobQueue[] {
    return this.eachQueues;
  }

  /** The recurring jobs' schedules. */
  get schedules(): readonly Schedule[] {
    return this.recurring;
  }

  private add(
    {
      consumer,
      types,
      retryForMs,
      gated,
      everyMs,
      concurrency,
      batch,
      perSecond,
    }: OutboxHandlerMetadata,
    handler: OutboxHandlerFn & EachJobHandlerFn & BatchJobHandlerFn,
  ): void {
    if (this.serves(consumer)) {
      throw new Error(`Two outbox handlers are named ${consumer}: a consumer has one`);
    }
    if (concurrency === undefined) {
      this.byConsumer.set(consumer, handler);
    } else {
      this.eachByQueue.set(consumer, batch === undefined ? inBatchesOfOne(handler) : handler);
      this.eachQueues.push({ queue: consumer, concurrency, batch: batch ?? 1, perSecond });
    }
    if (retryForMs !== undefined) this.retryForMsByConsumer.set(consumer, retryForMs);
    if (gated) this.gatedConsumers.add(consumer);
    if (everyMs !== undefined) this.recurring.push({ queue: consumer, everyMs });
    for (const type of types) {
      this.consumersByType.set(type, [...this.consumersOf(type), consumer]);
    }
  }
}
