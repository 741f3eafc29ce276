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
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxRepository, type ClaimedMessage } from './outbox.repository.js';

/** Messages one claim takes; each consumer gets its share in one call. */
const BATCH = 100;
/** Under a burst of writes, one drain takes them all rather than one drain per write. */
const NUDGE_DELAY_MS = 50;
const MAX_ERROR_LENGTH = 1000;

/**
 * Drains the outbox, the job engine, one worker per instance (docs/jobs.md): every poll
 * interval, or soon after a transaction that wrote messages commits, it queues the recurring
 * jobs' due runs (at most once a poll interval), claims due messages and hands them to their
 * consumers' handlers, a batch per consumer and claim, until none is due. One claim at a
 * time, and one handler at a time, so draining a backlog takes at most one of the database's
 * connections from the requests. The claim decides who handles what, so any number of
 * instances can run it.
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  private readonly drains: PollingWorker;
  /** The claim token of each message whose handler runs here, for its progress reports. */
  private readonly running = new Map<number, string>();
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
  }

  /** Drains soon rather than at the next poll. */
  nudge(): void {
    this.drains.nudge();
  }

  /** Stops claiming and waits for the handlers in progress; what is left waits for a start. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.drains.stop();
  }

  /** The claim under which message `id` runs on this instance; undefined if it does not. */
  claimTokenOf(id: number): string | undefined {
    return this.running.get(id);
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
    for (const { id, claimToken } of messages) this.running.set(id, claimToken);
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
    } catch (error) {
      // The claims run out and another attempt follows.
      this.logger.warn(`Outbox messages of ${consumer}: outcome not recorded: ${messageOf(error)}`);
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
