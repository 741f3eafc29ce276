import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  WEBHOOK_RETRY_FOR_MS,
  webhooksConfig,
  type WebhooksConfig,
} from '../../config/webhooks.config.js';
import type { DomainEventBase } from '../../events/domain-event.js';
import { EachJobHandler, OnDomainEvent } from '../../events/event-handlers.decorator.js';
import { Jobs } from '../../events/jobs.js';
import type { JobOutcome } from '../../events/outbox-handlers.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { WebhookHttpClient, type AttemptResult } from '../outbound/webhook-http-client.js';
import type { WebhookSubscriptionEvent } from '../webhook-subscription-events.js';
import { nextAttemptAfterFailure } from './webhook-backoff.js';
import {
  WebhookDeliveriesRepository,
  type AttemptOutcome,
  type DeliveryToSend,
  type QueuedDelivery,
} from './webhook-deliveries.repository.js';
import { signatureHeaders } from './webhook-signature.js';

/** The job engine's queue of webhook deliveries: one job per delivery to send. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhooks.deliver';
/** Deliveries one instance sends at once. */
const CONCURRENCY = 16;
const MAX_ERROR_LENGTH = 1000;
const MAX_REASON_LENGTH = 500;

/** A delivery's job. Its subject is its (subscription, pet): a pet's deliveries go in order. */
export interface WebhookDeliveryJob extends DomainEventBase {
  type: 'webhook.deliver';
  deliveryId: number;
}

const subjectOf = (d: QueuedDelivery) => `webhook:${d.subscriptionId}:pet:${d.petId}`;

const jobOf = (d: QueuedDelivery): WebhookDeliveryJob => ({
  type: 'webhook.deliver',
  subject: subjectOf(d),
  deliveryId: d.id,
});

/**
 * Sends deliveries, as jobs of the one job engine (docs/events.md, "Webhooks"): a delivery's
 * row is the record the log shows, and its job sends it and records each attempt there, then
 * runs again at the retry the delivery's own back-off draws. A job whose delivery has ended,
 * was deleted with its subscription, or whose subscription is disabled, ends without
 * sending: re-enabling a subscription queues its pending deliveries again.
 */
@Injectable()
export class WebhookDeliveryJobs {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly client: WebhookHttpClient,
    private readonly metrics: MetricsService,
    private readonly jobs: Jobs,
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
  ) {}

  /** Queues a job per delivery, in the caller's transaction, in the order given. */
  async queue(deliveries: QueuedDelivery[]): Promise<void> {
    await this.jobs.enqueueAll(WEBHOOK_DELIVERY_QUEUE, deliveries.map(jobOf));
  }

  /** Runs the delivery's job now (a retry by hand), queuing one if it has none. */
  async queueNow(delivery: QueuedDelivery): Promise<void> {
    const jobs = await this.jobs.runNow(WEBHOOK_DELIVERY_QUEUE, subjectOf(delivery), {
      deliveryId: delivery.id,
    });
    if (jobs === 0) await this.queue([delivery]);
  }

  /** A subscription enabled again resumes its pending deliveries. */
  @OnDomainEvent('webhook.updated')
  async resume({ webhookId, before, after }: WebhookSubscriptionEvent): Promise<void> {
    if (before?.enabled || !after?.enabled) return;
    await this.queue(await this.deliveries.findPending(webhookId));
  }

  /**
   * Sends the delivery once, with no transaction open, and records the attempt; a throw (the
   * record not written) sends it again after the engine's back-off: at least once.
   */
  @EachJobHandler(WEBHOOK_DELIVERY_QUEUE, {
    concurrency: CONCURRENCY,
    // A record that could not be written (the database away) is tried as long as the delivery.
    retryForMs: WEBHOOK_RETRY_FOR_MS,
  })
  async deliver(job: WebhookDeliveryJob): Promise<JobOutcome> {
    const delivery = await this.deliveries.findToSend(job.deliveryId);
    if (!delivery || delivery.status !== 'pending' || !delivery.enabled) return;
    // Its retry is later than this job (a job queued again, or a pet's earlier one retried).
    if (delivery.notDueYet) return { retryAt: delivery.nextAttemptAt };
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
        `Webhook delivery ${delivery.id}: attempt not recorded, the delivery ended or was deleted meanwhile`,
      );
      return;
    }
    this.metrics.countWebhookDelivery(outcome.status === 'pending' ? 'retrying' : outcome.status);
    if (recorded.disabledSubscription) {
      this.logger.warn(
        `Webhook ${delivery.subscriptionId} disabled: every delivery failed for 24 hours`,
      );
    }
    if (outcome.status === 'pending') return { retryAt: outcome.nextAttemptAt };
  }

  private outcomeOf(
    delivery: DeliveryToSend,
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
