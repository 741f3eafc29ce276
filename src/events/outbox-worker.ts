import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { messageOf } from '../common/errors/message-of.js';
import { PollingWorker } from '../common/scheduling/polling-worker.js';
import { outboxConfig, type OutboxConfig } from '../config/outbox.config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OutboxHandlers, type BatchJobOutcome } from './outbox-handlers.js';
import { OutboxRepository, type ClaimedMessage } from './outbox.repository.js';

/** Messages one claim takes; each consumer gets its share in one call. */
const BATCH = 100;
/** Under a burst of writes, one drain takes them all rather than one drain per write. */
const NUDGE_DELAY_MS = 50;
const MAX_ERROR_LENGTH = 1000;

/** A queue of an `@EachJobHandler` or `@BatchJobHandler`, drained in a lane of its own. */
interface EachLane {
  queue: string;
  concurrency: number;
  /** Jobs per handler call. */
  batch: number;
  /** Jobs claimed per second, at most; unpaced if undefined. */
  perSecond?: number;
  /** A paced lane claims no sooner than this (epoch ms). */
  nextClaimAt: number;
  claims: PollingWorker;
  /** Its handler calls running now. */
  inFlight: Set<Promise<void>>;
}

/**
 * Drains the outbox, the job engine, one worker per instance (docs/jobs.md). Its main lane,
 * every poll interval or soon after a transaction that wrote messages commits, queues the
 * recurring jobs' due runs (at most once a poll interval), claims due messages and hands them
 * to their consumers' handlers, a batch per consumer and claim, until none is due. Each
 * `@EachJobHandler` or `@BatchJobHandler` queue has a lane of its own, which claims its jobs
 * up to the queue's concurrency (times its batch) and claims again as each call ends, so that
 * its slow jobs hold back no other queue. One claim at a time per lane, and one handler at a
 * time in the main lane, so that draining a backlog takes few of the database's connections
 * from the requests. The claim
 * decides who handles what, so any number of instances can run it. While jobs run, their
 * leases are renewed every third of a lease: a live instance's job is never taken over.
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  private readonly drains: PollingWorker;
  private readonly lanes = new Map<string, EachLane>();
  /**
   * The claim token of each message held here, from its claim until its handler is done: its
   * lease is renewed meanwhile, and its handler reports progress under it.
   */
  private readonly running = new Map<number, string>();
  private renewals?: NodeJS.Timeout;
  private schedulesWritten = false;
  private nextRecurringCheck = 0;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly handlers: OutboxHandlers,
    private readonly metrics: MetricsService,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {
    this.drains = new PollingWorker(() => this.drainAll(), config.pollIntervalMs, NUDGE_DELAY_MS);
    metrics.countOutboxQueuedWith(() => this.outbox.queuedByConsumer());
  }

  onApplicationBootstrap(): void {
    if (this.handlers.consumers.length > 0) this.drains.start();
    for (const { queue, concurrency, batch, perSecond } of this.handlers.each) {
      const lane: EachLane = {
        queue,
        concurrency,
        batch,
        perSecond,
        nextClaimAt: 0,
        claims: new PollingWorker(
          () => this.claimFor(lane),
          this.config.pollIntervalMs,
          NUDGE_DELAY_MS,
        ),
        inFlight: new Set(),
      };
      this.lanes.set(queue, lane);
      lane.claims.start();
    }
    this.renewals = setInterval(() => void this.renewLeases(), this.config.leaseMs / 3).unref();
  }

  /** Drains soon rather than at the next poll: the lane of `queue`, else the main lane. */
  nudge(queue?: string): void {
    const lane = queue === undefined ? undefined : this.lanes.get(queue);
    (lane?.claims ?? this.drains).nudge();
  }

  /**
   * Stops claiming and waits for the handlers in progress (each lane's too), renewing their
   * leases meanwhile; what is left waits for a start.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const lanes = [...this.lanes.values()];
    await Promise.all([this.drains.stop(), ...lanes.map((lane) => lane.claims.stop())]);
    await Promise.allSettled(lanes.flatMap((lane) => [...lane.inFlight]));
    clearInterval(this.renewals);
  }

  /** The claim under which message `id` runs on this instance; undefined if it does not. */
  claimTokenOf(id: number): string | undefined {
    return this.running.get(id);
  }

  /** Moves on the leases of the jobs running here; a failure is retried at the next turn. */
  private async renewLeases(): Promise<void> {
    if (this.running.size === 0) return;
    const held = [...this.running].map(([id, claimToken]) => ({ id, claimToken }));
    try {
      await this.outbox.renew(held, this.config.leaseMs);
    } catch (error) {
      this.logger.warn(`Leases of running jobs not renewed: ${messageOf(error)}`);
    }
  }

  /**
   * Claims the lane's due jobs up to its free slots, a batch each, and starts each batch. A
   * paced lane claims again only once its last claim's jobs have had their share of a second:
   * it waits on a timer, not in a call, so that a stop meanwhile ends it at once.
   */
  private async claimFor(lane: EachLane): Promise<void> {
    try {
      while (!lane.claims.stopping && lane.inFlight.size < lane.concurrency) {
        const pause = lane.nextClaimAt - Date.now();
        if (pause > 0) {
          lane.claims.nudge(pause);
          return;
        }
        const wanted = (lane.concurrency - lane.inFlight.size) * lane.batch;
        const claimed = await this.outbox.claim(
          [lane.queue],
          wanted,
          randomUUID(),
          this.config.leaseMs,
        );
        if (lane.perSecond !== undefined) {
          lane.nextClaimAt = Date.now() + (claimed.length * 1000) / lane.perSecond;
        }
        for (let start = 0; start < claimed.length; start += lane.batch) {
          const run = this.handleInLane(claimed.slice(start, start + lane.batch)).finally(() => {
            lane.inFlight.delete(run);
            // A slot is free: claim what else is due.
            lane.claims.run();
          });
          lane.inFlight.add(run);
        }
        if (claimed.length < wanted) return;
      }
    } catch (error) {
      // The database is unreachable, say: the next poll tries again.
      this.logger.warn(`Jobs of ${lane.queue} not claimed: ${messageOf(error)}`);
    }
  }

  private async drainAll(): Promise<void> {
    try {
      await this.queueRecurringRuns();
    } catch (error) {
      // A schedule that cannot be written or moved on holds back no event: the next poll retries.
      this.logger.warn(`Recurring jobs not queued: ${messageOf(error)}`);
    }
    try {
      while (!this.drains.stopping) {
        const claimed = await this.outbox.claim(
          this.handlers.consumers,
          BATCH,
          randomUUID(),
          this.config.leaseMs,
        );
        if (claimed.length === 0) return;
        // Held from the claim on, so that the batches waiting their turn keep their leases.
        for (const { id, claimToken } of claimed) this.running.set(id, claimToken);
        for (const batch of byConsumer(claimed)) await this.handle(batch);
        if (claimed.length < BATCH) {
          // What arrived meanwhile, or was held behind its subject's message just handled,
          // waits one nudge: under a stream of writes, one claim then takes many messages
          // rather than a claim running for every few.
          this.nudge();
          return;
        }
      }
    } catch (error) {
      // The database is unreachable, say: the next poll tries again.
      this.logger.warn(`Outbox not drained: ${messageOf(error)}`);
    }
  }

  /**
   * Writes the schedules once, then queues the runs that are due, looking again when the next
   * schedule is due (or at the next poll, if another instance held one): between runs, and in
   * a stream of nudges, no statement.
   */
  private async queueRecurringRuns(): Promise<void> {
    const { schedules } = this.handlers;
    if (schedules.length === 0 || Date.now() < this.nextRecurringCheck) return;
    if (!this.schedulesWritten) {
      await this.outbox.schedule([...schedules]);
      this.schedulesWritten = true;
    }
    const { msToNextRun } = await this.outbox.queueDueRuns(schedules.map((s) => s.queue));
    this.nextRecurringCheck = Date.now() + (msToNextRun ?? 0);
  }

  /** Hands one consumer its messages and records the outcome; never rejects. */
  private async handle(messages: ClaimedMessage[]): Promise<void> {
    const { consumer } = messages[0];
    const started = performance.now();
    let failure: unknown;
    this.metrics.countOutboxRunning(consumer, messages.length);
    try {
      await this.handlers.handlerOf(consumer)(
        messages.map((message) => message.event),
        messages.map((message) => message.id),
      );
    } catch (error) {
      failure = error;
    } finally {
      for (const { id } of messages) this.running.delete(id);
      this.metrics.countOutboxRunning(consumer, -messages.length);
    }
    this.metrics.observeOutboxHandler(consumer, (performance.now() - started) / 1000);
    try {
      if (failure === undefined) {
        const done = await this.outbox.complete(messages);
        this.metrics.countOutboxMessages(consumer, 'succeeded', done);
        return;
      }
      await this.recordFailure(messages, failure);
    } catch (error) {
      // The claims run out and another attempt follows.
      this.logger.warn(`Outbox messages of ${consumer}: outcome not recorded: ${messageOf(error)}`);
    }
  }

  /** Another attempt later for each message, or kept as failed after its last one. */
  private async recordFailure(messages: ClaimedMessage[], failure: unknown): Promise<void> {
    const { consumer } = messages[0];
    const error = messageOf(failure).slice(0, MAX_ERROR_LENGTH);
    const { retrying, failed } = await this.outbox.fail(messages, error, {
      ...this.config,
      retryForMs: this.handlers.retryForMsOf(consumer),
    });
    this.metrics.countOutboxMessages(consumer, 'retrying', retrying);
    this.metrics.countOutboxMessages(consumer, 'failed', failed);
    const about = `${consumer} failed on ${describe(messages)}: ${error}`;
    if (failed > 0) {
      this.logger.error(`${about}; ${failed} kept as failed, after their last attempt`);
    } else {
      this.logger.warn(`${about}; retried later`);
    }
  }

  /**
   * Runs a batch of a lane's jobs (one, for an `@EachJobHandler`) and records each job's own
   * outcome, the done ones in one statement (a throw's, for the whole batch); never rejects.
   */
  private async handleInLane(messages: ClaimedMessage[]): Promise<void> {
    const { consumer } = messages[0];
    const started = performance.now();
    let outcomes: BatchJobOutcome[] = [];
    let failure: unknown;
    for (const { id, claimToken } of messages) this.running.set(id, claimToken);
    this.metrics.countOutboxRunning(consumer, messages.length);
    try {
      outcomes = await this.handlers.laneHandlerOf(consumer)(
        messages.map((message) => message.event),
        messages.map((message) => message.id),
      );
      if (outcomes.length !== messages.length) {
        throw new Error(`${outcomes.length} outcomes for ${messages.length} jobs`);
      }
    } catch (error) {
      failure = error;
    } finally {
      for (const { id } of messages) this.running.delete(id);
      this.metrics.countOutboxRunning(consumer, -messages.length);
    }
    this.metrics.observeOutboxHandler(consumer, (performance.now() - started) / 1000);
    try {
      if (failure !== undefined) {
        await this.recordFailure(messages, failure);
        return;
      }
      const done: ClaimedMessage[] = [];
      for (const [i, message] of messages.entries()) {
        const outcome = outcomes[i];
        if (outcome && 'error' in outcome) {
          await this.recordFailure([message], outcome.error);
        } else if (outcome) {
          const recorded = await this.outbox.retryAt(message, outcome.retryAt);
          this.metrics.countOutboxMessages(consumer, 'retrying', recorded ? 1 : 0);
        } else {
          done.push(message);
        }
      }
      if (done.length > 0) {
        this.metrics.countOutboxMessages(consumer, 'succeeded', await this.outbox.complete(done));
      }
    } catch (error) {
      // The claims run out and another attempt follows.
      this.logger.warn(`Jobs of ${consumer}: outcomes not recorded: ${messageOf(error)}`);
    }
  }
}

/** The claimed messages of each consumer, in claim order. */
function byConsumer(messages: ClaimedMessage[]): ClaimedMessage[][] {
  const batches = new Map<string, ClaimedMessage[]>();
  for (const message of messages) {
    batches.set(message.consumer, [...(batches.get(message.consumer) ?? []), message]);
  }
  return [...batches.values()];
}

/** The first few messages, for a log line. */
function describe(messages: ClaimedMessage[]): string {
  const shown = messages
    .slice(0, 5)
    .map(({ event, attempts }) => `${event.type} (${event.subject}, attempt ${attempts})`);
  const more = messages.length - shown.length;
  return shown.join(', ') + (more > 0 ? ` and ${more} more` : '');
}
