import { applyDecorators, SetMetadata } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { DomainEventType } from './domain-event.js';

/*
 * The two ways to react to a domain event (docs/events.md, "Domain events"). Both are
 * declared on the reacting method, where it lives, and found at start-up by discovery:
 * `grep -rn "'pet.deleted'" src` lists every reaction to an event.
 */

/**
 * Runs the method inside the publishing transaction, before the change commits: what it
 * writes commits with the change, and what it throws fails the change. For work that must
 * be consistent with the change (a row of another module to remove). Work outside the
 * database registers with `afterCommit`.
 */
export const OnDomainEvent = (...types: DomainEventType[]): MethodDecorator =>
  applyDecorators(...types.map((type) => OnEvent(type, { suppressErrors: false })));

export const OUTBOX_HANDLER = Symbol('outbox-handler');

export interface OutboxHandlerOptions {
  /**
   * Retries a failed message until this long after it was written, with back-off, however
   * many attempts that takes (OUTBOX_MAX_ATTEMPTS at least): for work promised to be tried
   * for a while, such as mail (docs/mail.md, "The outbox consumer").
   */
  retryForMs?: number;
  /**
   * Writes the consumer's outbox row for an event only while a subscriber of the consumer
   * wants the event's type, as `outbox_interests` counts them (docs/events.md, "Interest"):
   * for a consumer that would do nothing with the others, such as the webhooks' fan-out
   * without a subscription. The consumer's feature keeps the counts, by trigger, in the
   * transaction of each change of its subscribers.
   */
  gated?: boolean;
}

export interface OutboxHandlerMetadata extends OutboxHandlerOptions {
  consumer: string;
  types: readonly DomainEventType[];
  /** A recurring job's period. */
  everyMs?: number;
  /** An `@EachJobHandler`'s jobs run at most this many at once, in a lane of their own. */
  concurrency?: number;
  /** A `@BatchJobHandler`'s jobs handed to one call, at most. */
  batch?: number;
  /** A lane's jobs claimed per second on an instance, at most. */
  perSecond?: number;
}

/**
 * Runs the method after the change has committed, from the outbox: publishing writes one
 * outbox row per event for `consumer` in the change's transaction, and a worker hands the
 * method the claimed events in batches (`(events, messageIds) => Promise<void>`, oldest
 * first, one per subject), retrying a batch with back-off until the method returns. At least
 * once: it must tolerate being handed an event again; `messageIds[i]`, the outbox row of
 * `events[i]`, is the same at every hand-over, a key to recognise it by. `consumer` names the
 * rows in the table: keep it stable.
 */
export const OutboxHandler = (
  consumer: string,
  types: readonly DomainEventType[],
  options: OutboxHandlerOptions = {},
) => SetMetadata<symbol, OutboxHandlerMetadata>(OUTBOX_HANDLER, { consumer, types, ...options });

/**
 * Runs the method for the jobs queued to `queue` with `Jobs.enqueue` (docs/jobs.md), as an
 * `@OutboxHandler` runs for events: `(jobs, jobIds) => Promise<void>`, after the enqueuing
 * transaction commits, no sooner than each job's `runAt`, one at a time per subject, retried
 * with back-off until the method returns. `queue` names the rows in the table: keep it stable.
 */
export const JobHandler = (queue: string, options: OutboxHandlerOptions = {}) =>
  OutboxHandler(queue, [], options);

/**
 * Runs the method every `everyMs`, on one instance of the deployment at a time
 * (docs/jobs.md, "Recurring jobs"), first one period after the schedule is written. A throw is
 * retried with back-off like any job's; the schedule queues no further run meanwhile.
 */
export const RecurringJob = (queue: string, everyMs: number) =>
  SetMetadata<symbol, OutboxHandlerMetadata>(OUTBOX_HANDLER, {
    consumer: queue,
    types: [],
    everyMs,
  });

export interface EachJobHandlerOptions extends OutboxHandlerOptions {
  /** Jobs of the queue running at once on an instance. */
  concurrency: number;
  /**
   * Jobs of the queue claimed per second on an instance, at most: the lane pauses between
   * claims (docs/jobs.md, "Pacing"), so that a burst of due jobs is spread over the time
   * they are allowed rather than taking the process all at once. Unpaced without it.
   */
  perSecond?: number;
}

/**
 * Runs the method for each job queued to `queue`, one job per call with its own outcome
 * (docs/jobs.md, "Queues of their own"): `(job, jobId) => Promise<JobOutcome>`. Up to
 * `concurrency` jobs run at once, in a lane of the instance's worker of their own, so that
 * slow jobs (an HTTP call up to its time-out) hold back no other queue. Returning
 * `{ retryAt }` runs the job again then, without counting a failure; a throw is retried with
 * the engine's back-off, as for any job.
 */
export const EachJobHandler = (queue: string, options: EachJobHandlerOptions) =>
  SetMetadata<symbol, OutboxHandlerMetadata>(OUTBOX_HANDLER, {
    consumer: queue,
    types: [],
    ...options,
  });

export interface BatchJobHandlerOptions extends EachJobHandlerOptions {
  /** Jobs handed to one call, at most. */
  batch: number;
}

/**
 * Runs the method for the jobs queued to `queue` as `@EachJobHandler` runs them, in a lane of
 * its own, but up to `batch` due jobs per call (one per subject), each with its own outcome
 * (docs/jobs.md, "Batches"): `(jobs, jobIds) => Promise<BatchJobOutcome[]>`, one outcome per
 * job in order. For work done for many jobs in a few set-based statements. A throw retries
 * every job of the call.
 */
export const BatchJobHandler = (queue: string, options: BatchJobHandlerOptions) =>
  SetMetadata<symbol, OutboxHandlerMetadata>(OUTBOX_HANDLER, {
    consumer: queue,
    types: [],
    ...options,
  });
