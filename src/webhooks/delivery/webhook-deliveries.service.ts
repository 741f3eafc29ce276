import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { paginationOf, type Pagination } from '../../common/dto/pagination-query.dto.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { deleteInBatches } from '../../common/scheduling/delete-in-batches.js';
import { webhooksConfig, type WebhooksConfig } from '../../config/webhooks.config.js';
import type { TxHost } from '../../database/transactions.js';
import { RecurringJob } from '../../events/event-handlers.decorator.js';
import type { OwnerScope } from '../webhooks.repository.js';
import { webhookNotFound } from '../webhooks.service.js';
import { ATTEMPT_LOG_LENGTH } from './dto/delivery-response.dto.js';
import type { ListDeliveriesQueryDto } from './dto/list-deliveries-query.dto.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRow,
  type DeliveryDayCounts,
  type DeliveryRow,
} from './webhook-deliveries.repository.js';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;
// Deleted per statement, so that a large backlog never holds long locks.
const SWEEP_BATCH = 1_000;

export const webhookDeliveryNotFound = (id: number | string) =>
  new ApiException('WEBHOOK_DELIVERY_NOT_FOUND', `Delivery ${id} not found`);

export interface DeliveryPage {
  deliveries: DeliveryRow[];
  pagination: Pagination;
}

/**
 * The delivery log of a subscription, re-sending one of its deliveries, and the log's
 * retention: a recurring job deletes ended deliveries past it every 10 minutes, on one
 * instance at a time (docs/jobs.md).
 */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly deliveryJobs: WebhookDeliveryJobs,
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /** Deletes the deliveries that ended before the retention period; how many. */
  removeExpired(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.deliveryLogRetentionMs);
    return deleteInBatches(
      (limit) => this.deliveries.deleteEndedBefore(before, limit),
      SWEEP_BATCH,
    );
  }

  /**
   * Deliveries that ended, by outcome, per UTC day since `since` (the activity statistics):
   * only those the log still keeps.
   */
  countEndedPerDay(since: Date): Promise<DeliveryDayCounts[]> {
    return this.deliveries.countEndedPerDay(since);
  }

  /** A failure is logged and retried by the job engine. */
  @RecurringJob('webhooks.delivery-log-sweep', SWEEP_INTERVAL_MS)
  async sweep(): Promise<void> {
    const removed = await this.removeExpired();
    if (removed > 0) this.logger.debug(`Removed ${removed} ended webhook deliveries`);
  }

  /**
   * The log of subscription `webhookId` within the caller's scope (a user's own
   * subscriptions): someone else's subscription is not found, as in every method below.
   */
  async list(
    ownerId: OwnerScope,
    webhookId: number,
    query: ListDeliveriesQueryDto,
  ): Promise<DeliveryPage> {
    await this.assertOwnWebhook(ownerId, webhookId);
    const offset = query.offset ?? 0;
    const { deliveries, total } = await this.deliveries.findPage(
      webhookId,
      query.status,
      query.limit,
      offset,
    );
    // A subscription that has deliveries exists; only an empty log needs the check.
    if (total === 0) await this.assertWebhookExists(webhookId, undefined);
    return {
      deliveries,
      pagination: paginationOf(query.limit, offset, deliveries.length, total),
    };
  }

  async findOne(
    ownerId: OwnerScope,
    webhookId: number,
    deliveryId: number,
  ): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
    await this.assertOwnWebhook(ownerId, webhookId);
    const delivery = await this.findDelivery(webhookId, deliveryId);
    const attempts = await this.deliveries.findAttempts(deliveryId, ATTEMPT_LOG_LENGTH);
    return { delivery, attempts };
  }

  /**
   * Makes the delivery pending and due now, whatever its state, and runs its job now (queuing
   * one if it has none), which sends it soon after the commit: after the pet's earlier pending
   * deliveries, if any, and once the webhook is enabled.
   */
  async retry(ownerId: OwnerScope, webhookId: number, deliveryId: number): Promise<DeliveryRow> {
    await this.assertOwnWebhook(ownerId, webhookId);
    const retried = await this.txHost.withTransaction(async () => {
      const delivery = await this.deliveries.makeDueNow(webhookId, deliveryId);
      if (delivery) await this.deliveryJobs.queueNow(delivery);
      return delivery;
    });
    if (!retried) {
      await this.assertWebhookExists(webhookId, undefined);
      throw webhookDeliveryNotFound(deliveryId);
    }
    return this.findDelivery(webhookId, deliveryId);
  }

  private async findDelivery(webhookId: number, deliveryId: number): Promise<DeliveryRow> {
    const delivery = await this.deliveries.findOne(webhookId, deliveryId);
    if (delivery) return delivery;
    await this.assertWebhookExists(webhookId, undefined);
    throw webhookDeliveryNotFound(deliveryId);
  }

  /** A user's own subscription, checked first; an admin's reach is every one, checked after. */
  private async assertOwnWebhook(ownerId: OwnerScope, webhookId: number): Promise<void> {
    if (ownerId !== undefined) await this.assertWebhookExists(webhookId, ownerId);
  }

  private async assertWebhookExists(webhookId: number, ownerId: OwnerScope): Promise<void> {
    if (!(await this.deliveries.subscriptionExists(webhookId, ownerId))) {
      throw webhookNotFound(webhookId);
    }
  }
}
