import { Injectable } from '@nestjs/common';
import { paginationOf, type Pagination } from '../../common/dto/pagination-query.dto.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { webhookNotFound } from '../webhooks.service.js';
import type { ListDeliveriesQueryDto } from './dto/list-deliveries-query.dto.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRow,
  type DeliveryRow,
} from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** The attempts a delivery's detail lists, newest first. */
export const ATTEMPT_LOG_LENGTH = 50;

export const webhookDeliveryNotFound = (id: number | string) =>
  new ApiException('WEBHOOK_DELIVERY_NOT_FOUND', `Delivery ${id} not found`);

export interface DeliveryPage {
  deliveries: DeliveryRow[];
  pagination: Pagination;
}

/** The delivery log of a subscription, and re-sending one of its deliveries. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  async list(webhookId: number, query: ListDeliveriesQueryDto): Promise<DeliveryPage> {
    await this.assertWebhookExists(webhookId);
    const offset = query.offset ?? 0;
    const { deliveries, total } = await this.deliveries.findPage(
      webhookId,
      query.status,
      query.limit,
      offset,
    );
    return {
      deliveries,
      pagination: paginationOf(query.limit, offset, deliveries.length, total),
    };
  }

  async findOne(
    webhookId: number,
    deliveryId: number,
  ): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
    const delivery = await this.findDelivery(webhookId, deliveryId);
    const attempts = await this.deliveries.findAttempts(deliveryId, ATTEMPT_LOG_LENGTH);
    return { delivery, attempts };
  }

  /**
   * Makes the delivery pending and due now, whatever its state, and wakes this instance's
   * worker so that it goes out at once (after the pet's earlier pending events, if any).
   */
  async retry(webhookId: number, deliveryId: number): Promise<DeliveryRow> {
    if (!(await this.deliveries.makeDueNow(webhookId, deliveryId))) {
      await this.assertWebhookExists(webhookId);
      throw webhookDeliveryNotFound(deliveryId);
    }
    const delivery = await this.findDelivery(webhookId, deliveryId);
    this.dispatcher.nudge();
    return delivery;
  }

  private async findDelivery(webhookId: number, deliveryId: number): Promise<DeliveryRow> {
    const delivery = await this.deliveries.findOne(webhookId, deliveryId);
    if (delivery) return delivery;
    await this.assertWebhookExists(webhookId);
    throw webhookDeliveryNotFound(deliveryId);
  }

  private async assertWebhookExists(webhookId: number): Promise<void> {
    if (!(await this.deliveries.subscriptionExists(webhookId))) throw webhookNotFound(webhookId);
  }
}
