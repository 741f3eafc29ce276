import { Inject, Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { randomBytes } from 'node:crypto';
import {
  paginationOf,
  type LargePageQueryDto,
  type Pagination,
} from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import { webhooksConfig, type WebhooksConfig } from '../config/webhooks.config.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import type { CreateWebhookDto } from './dto/create-webhook.dto.js';
import type { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import { urlRefusal } from './outbound/address-policy.js';
import { webhookSubscriptionEvent } from './webhook-subscription-events.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';
import { WebhooksRepository, type WebhookSubscriptionChanges } from './webhooks.repository.js';

/** After a rotation, deliveries are signed with the old secret too for this long. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 60 * 60 * 1000;

export interface WebhookPage {
  subscriptions: WebhookSubscription[];
  pagination: Pagination;
}

/** Also ParseIdPipe's answer on the webhook routes, for ids that cannot exist. */
export const webhookNotFound = (id: number | string) =>
  new ApiException('WEBHOOK_NOT_FOUND', `Webhook ${id} not found`);

/** Standard Webhooks' format: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    @Inject(webhooksConfig.KEY) private readonly cfg: WebhooksConfig,
    private readonly domainEvents: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * The subscription with its secret, which the caller shows once and never again. Each
   * change publishes its event (webhook-subscription-events.ts) in its transaction; the URL
   * is checked before it opens, as DNS may take seconds.
   */
  async create(dto: CreateWebhookDto): Promise<WebhookSubscription> {
    await this.assertUrlAllowed(dto.url);
    return this.txHost.withTransaction(async () => {
      const subscription = await this.webhooks.insertSubscription({
        url: dto.url,
        events: dto.events,
        description: dto.description ?? null,
        secret: generateWebhookSecret(),
      });
      await this.domainEvents.publish(
        webhookSubscriptionEvent('webhook.created', { before: null, after: subscription }),
      );
      return subscription;
    });
  }

  async list(query: LargePageQueryDto): Promise<WebhookPage> {
    const offset = query.offset ?? 0;
    const { subscriptions, total } = await this.webhooks.findSubscriptionPage(query.limit, offset);
    return {
      subscriptions,
      pagination: paginationOf(query.limit, offset, subscriptions.length, total),
    };
  }

  async findOne(id: number): Promise<WebhookSubscription> {
    const subscription = await this.webhooks.findSubscription(id);
    if (!subscription) throw webhookNotFound(id);
    return subscription;
  }

  /** Re-enabling forgets why the service disabled it, and since when it was failing. */
  async update(id: number, dto: UpdateWebhookDto): Promise<WebhookSubscription> {
    if (dto.url !== undefined) await this.assertUrlAllowed(dto.url);
    const changes: WebhookSubscriptionChanges = {
      url: dto.url,
      events: dto.events,
      description: dto.description,
      enabled: dto.enabled,
    };
    if (dto.enabled === true) {
      changes.disabledReason = null;
      changes.failingSince = null;
    }
    const defined = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as WebhookSubscriptionChanges;
    return this.txHost.withTransaction(async () => {
      const before = await this.lockedForChange(id);
      const subscription = await this.webhooks.updateSubscription(id, defined);
      if (!subscription) throw webhookNotFound(id);
      await this.domainEvents.publish(
        webhookSubscriptionEvent('webhook.updated', { before, after: subscription }),
      );
      return subscription;
    });
  }

  remove(id: number): Promise<void> {
    return this.txHost.withTransaction(async () => {
      const before = await this.lockedForChange(id);
      if (!(await this.webhooks.deleteSubscription(id))) throw webhookNotFound(id);
      await this.domainEvents.publish(
        webhookSubscriptionEvent('webhook.deleted', { before, after: null }),
      );
    });
  }

  /**
   * A new secret, returned once; the old one keeps signing alongside it for a day, so that
   * receivers can switch without dropping deliveries. A second rotation within that day
   * retires the first old secret at once.
   */
  rotateSecret(id: number): Promise<WebhookSubscription> {
    return this.txHost.withTransaction(async () => {
      const subscription = await this.webhooks.rotateSubscriptionSecret(
        id,
        generateWebhookSecret(),
        new Date(Date.now() + PREVIOUS_SECRET_VALIDITY_MS),
      );
      if (!subscription) throw webhookNotFound(id);
      await this.domainEvents.publish(
        webhookSubscriptionEvent('webhook.secret_rotated', {
          before: subscription,
          after: subscription,
        }),
      );
      return subscription;
    });
  }

  /** The subscription as the change starts from it, locked so that its event's `before` holds. */
  private async lockedForChange(id: number): Promise<WebhookSubscription> {
    const subscription = await this.webhooks.findSubscriptionForUpdate(id);
    if (!subscription) throw webhookNotFound(id);
    return subscription;
  }

  /**
   * The DTO checked the URL's form; here its host is resolved and every address checked, so
   * that a subscription cannot point at the service's own network. The connection is checked
   * again when a delivery is sent, since DNS answers change.
   */
  private async assertUrlAllowed(url: string): Promise<void> {
    const refusal = await urlRefusal(url, this.cfg.allowPrivateAddresses);
    if (refusal !== undefined) throw ApiException.validation([{ field: 'url', message: refusal }]);
  }
}
