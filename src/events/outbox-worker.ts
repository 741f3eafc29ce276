import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { messageOf } from '../common/errors/message-of.js';
import { outboxConfig, type OutboxConfig } from '../config/outbox.config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxRepository, type ClaimedMessage } from './outbox.repository.js';

/** Messages one instance hands over at once. */
const BATCH = 16;
/** Under a burst of writes, one drain takes them all rather than one drain per write. */
const NUDGE_DELAY_MS = 20;
const MAX_ERROR_LENGTH = 1000;

/**
 * Drains the outbox, one worker per instance (docs/events.md, "The outbox"): every poll
 * interval, or soon after a transaction that wrote messages commits, it claims due messages
 * and hands each to its consumer's handler, until none is due. The claim decides who handles
 * what, so any number of instances can run it.
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  private timer?: NodeJS.Timeout;
  private nudged?: NodeJS.Timeout;
  private draining?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly handlers: OutboxHandlers,
    private readonly metrics: MetricsService,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.handlers.consumers.length === 0) return;
    this.timer = setInterval(() => this.drain(), this.config.pollIntervalMs).unref();
    this.nudge();
  }

  /** Drains soon rather than at the next poll. */
  nudge(): void {
    this.nudged ??= setTimeout(() => {
      this.nudged = undefined;
      this.drain();
    }, NUDGE_DELAY_MS).unref();
  }

  /** Stops claiming and waits for the handlers in progress; what is left waits for a start. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.nudged);
    await this.draining;
  }

  private drain(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drainAll().finally(() => {
      this.draining = undefined;
      if (this.again) {
        this.again = false;
        this.drain();
      }
    });
  }

  private async drainAll(): Promise<void> {
    try {
      while (!this.stopped) {
        const claimed = await this.outbox.claim(
          this.handlers.consumers,
          BATCH,
          randomUUID(),
          this.config.leaseMs,
        );
        if (claimed.length === 0) return;
        await Promise.all(claimed.map((message) => this.handle(message)));
      }
    } catch (error) {
      // The database is unreachable, say: the next poll tries again.
      this.logger.warn(`Outbox not drained: ${messageOf(error)}`);
    }
  }

  /** Hands one message to its handler and records the outcome; never rejects. */
  private async handle(message: ClaimedMessage): Promise<void> {
    const started = performance.now();
    let failure: unknown;
    try {
      await this.handlers.handlerOf(message.consumer)(message.event);
    } catch (error) {
      failure = error;
    }
    const seconds = (performance.now() - started) / 1000;
    try {
      if (failure === undefined) {
        if (await this.outbox.complete(message)) {
          this.metrics.countOutboxMessage(message.consumer, 'succeeded', seconds);
        }
        return;
      }
      const retryAt = this.retryAt(message.attempts);
      const error = messageOf(failure).slice(0, MAX_ERROR_LENGTH);
      if (!(await this.outbox.fail(message, error, retryAt))) return;
      this.metrics.countOutboxMessage(message.consumer, retryAt ? 'retrying' : 'failed', seconds);
      const about = `${message.consumer} failed on ${message.event.type} (${message.event.subject}), attempt ${message.attempts}`;
      if (retryAt) this.logger.warn(`${about}, retried at ${retryAt.toISOString()}: ${error}`);
      else this.logger.error(`${about}, the last: kept as failed: ${error}`);
    } catch (error) {
      // The claim runs out and another attempt follows.
      this.logger.warn(`Outbox message ${message.id}: outcome not recorded: ${messageOf(error)}`);
    }
  }

  /** Undefined once `attempts` used the last one. */
  private retryAt(attempts: number): Date | undefined {
    if (attempts >= this.config.maxAttempts) return undefined;
    const delay = Math.min(this.config.retryBaseMs * 2 ** (attempts - 1), this.config.maxRetryMs);
    return new Date(Date.now() + delay);
  }
}
