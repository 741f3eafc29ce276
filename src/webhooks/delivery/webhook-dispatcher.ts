import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { messageOf } from '../../common/errors/message-of.js';
import { PollingWorker } from '../../common/scheduling/polling-worker.js';
import { webhooksConfig, type WebhooksConfig } from '../../config/webhooks.config.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { WebhookHttpClient, type AttemptResult } from '../outbound/webhook-http-client.js';
import { nextAttemptAfterFailure } from './webhook-backoff.js';
import {
  WebhookDeliveriesRepository,
  type AttemptOutcome,
  type ClaimedDelivery,
} from './webhook-deliveries.repository.js';
import { signatureHeaders } from './webhook-signature.js';

/** Deliveries one instance sends at once. */
const MAX_IN_FLIGHT = 16;
/**
 * How long a claim holds a delivery before another instance may take it (its holder is then
 * presumed dead): well above an attempt's 10 s bound plus the time to record it.
 */
export const LEASE_MS = 60_000;
/**
 * How long a nudge waits for others: under a burst of fanned-out events, one claim takes
 * them all rather than one claim running after every event.
 */
const NUDGE_DELAY_MS = 50;
const MAX_ERROR_LENGTH = 1000;
const MAX_REASON_LENGTH = 500;

/**
 * The delivery worker, one per instance. A cycle (every poll interval, or sooner when nudged
 * by the fan-out) claims due deliveries up to MAX_IN_FLIGHT and sends each
 * with no transaction open; each finished send records its attempt and frees its slot for
 * the next claim. The database decides who sends what (see the repository's claim), so any
 * number of instances can run it.
 */
@Injectable()
export class WebhookDispatcher
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('Webhooks');
  private readonly sending = new Set<Promise<void>>();
  private readonly cycles: PollingWorker;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly client: WebhookHttpClient,
    private readonly metrics: MetricsService,
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
  ) {
    this.cycles = new PollingWorker(() => this.dispatch(), config.pollIntervalMs, NUDGE_DELAY_MS);
  }

  onApplicationBootstrap(): void {
    this.cycles.start();
  }

  /** Runs a cycle soon (NUDGE_DELAY_MS) rather than at the next poll. */
  nudge(): void {
    this.cycles.nudge();
  }

  /**
   * Stops claiming at once, so that the HTTP server's drain (ShutdownService, next) is not
   * delayed: what is still due waits for another instance, or the next start.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.cycles.stop();
  }

  /**
   * Waits for the sends in flight, each bounded by the attempt's timeout, and for their records:
   * the database closes after this (its module is global, and global modules close last).
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.sending]);
  }

  private async dispatch(): Promise<void> {
    try {
      while (!this.cycles.stopping && this.sending.size < MAX_IN_FLIGHT) {
        const free = MAX_IN_FLIGHT - this.sending.size;
        const claimed = await this.deliveries.claim(free, randomUUID(), LEASE_MS);
        for (const delivery of claimed) this.track(this.deliver(delivery));
        if (claimed.length < free) break;
      }
    } catch (error) {
      // The database is unreachable, say: the next poll tries again.
      this.logger.warn(`Webhook deliveries not dispatched: ${messageOf(error)}`);
    }
  }

  private track(send: Promise<void>): void {
    this.sending.add(send);
    void send.finally(() => {
      this.sending.delete(send);
      // A slot is free: claim what else is due.
      this.cycles.run();
    });
  }

  /** Sends once and records the attempt; never rejects. */
  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    try {
      const attemptedAt = new Date();
      const headers = signatureHeaders(delivery.eventId, delivery.body, delivery, attemptedAt);
      const result = await this.client.post(delivery.url, delivery.body, { ...headers });
      this.metrics.observeWebhookDelivery(result.durationMs / 1000);
      const outcome = this.outcomeOf(delivery, result, attemptedAt);
      const error = result.error?.slice(0, MAX_ERROR_LENGTH);
      const recorded = await this.deliveries.recordAttempt(
        delivery,
        {
          attemptedAt,
          statusCode: result.statusCode ?? null,
          durationMs: result.durationMs,
          error: error ?? null,
          responseBody: result.responseBody ?? null,
        },
        outcome,
        {
          afterMs: this.config.retryForMs,
          reason: `Every delivery failed for 24 hours (last: ${error})`.slice(0, MAX_REASON_LENGTH),
        },
      );
      if (!recorded) {
        this.logger.warn(
          `Webhook delivery ${delivery.id}: attempt not recorded, its lease was lost (taken over, or the delivery deleted)`,
        );
        return;
      }
      this.metrics.countWebhookDelivery(outcome.status === 'pending' ? 'retrying' : outcome.status);
      if (recorded.disabledSubscription) {
        this.logger.warn(
          `Webhook ${delivery.subscriptionId} disabled: every delivery failed for 24 hours`,
        );
      }
    } catch (failure) {
      // At least once: the lease runs out and the delivery is sent again.
      this.logger.warn(
        `Webhook delivery ${delivery.id}: attempt not recorded, to be sent again: ${messageOf(failure)}`,
      );
    }
  }

  private outcomeOf(
    delivery: ClaimedDelivery,
    result: AttemptResult,
    attemptedAt: Date,
  ): AttemptOutcome {
    if (result.error === undefined) return { status: 'succeeded' };
    const now = new Date(attemptedAt.getTime() + result.durationMs);
    const nextAttemptAt = nextAttemptAfterFailure(
      { attempts: delivery.attempts + 1, firstAttemptAt: delivery.firstAttemptAt ?? attemptedAt },
      now,
      this.config,
    );
    return nextAttemptAt ? { status: 'pending', nextAttemptAt } : { status: 'failed' };
  }
}
