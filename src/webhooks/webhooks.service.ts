import { Inject, Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { randomBytes } from 'node:crypto';
import {
  paginationOf,
  type LargePageQueryDto,
  type Pagination,
} from '../common/dto/pagination-query.dto.js';
import { AuthErrors } from '../auth/auth-errors.js';
import { ApiException } from '../common/errors/api-exception.js';
import type { Principal } from '../common/types/principal.js';
import { webhooksConfig, type WebhooksConfig } from '../config/webhooks.config.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import { UserLookupService } from '../users/user-lookup.service.js';
import type { CreateWebhookDto } from './dto/create-webhook.dto.js';
import type { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import type { WebhookFiltersDto } from './dto/webhook-filters.dto.js';
import { urlRefusal } from './outbound/address-policy.js';
import { webhookSubscriptionEvent } from './webhook-subscription-events.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';
import {
  WebhooksRepository,
  type OwnerScope,
  type WebhookSubscriptionChanges,
} from './webhooks.repository.js';

/** After a rotation, deliveries are signed with the old secret too for this long. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 60 * 60 * 1000;

export interface WebhookPage {
  subscriptions: WebhookSubscription[];
  pagination: Pagination;
}

/** Also ParseIdPipe's answer on the webhook routes, for ids that cannot exist. */
export const webhookNotFound = (id: number | string) =>
  new ApiException('WEBHOOK_NOT_FOUND', `Webhook ${id} not found`);

/**
 * The subscriptions a caller reaches: an admin every one, anyone else (staff: the routes let
 * no customer in) its own. Someone else's answers 404, as if it did not exist.
 */
export const ownerScopeOf = (caller: Principal): OwnerScope =>
  caller.role === 'admin' ? undefined : caller.userId;

/** The filter columns a DTO's filters set: null for each filter not given (null: none at all). */
function filterColumns(filters: WebhookFiltersDto | null) {
  return {
    filterCategoryIds: filters?.categoryIds ?? null,
    filterStatuses: filters?.statuses ?? null,
    filterTags: filters?.tags ?? null,
  };
}

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
    private readonly users: UserLookupService,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * The caller's new subscription with its secret, which the caller shows once and never
   * again. Each change publishes its event (webhook-subscription-events.ts) in its
   * transaction; the URL is checked before it opens, as DNS may take seconds. Concurrent
   * creations by one owner queue on its row, so the cap holds exactly.
   */
  async create(caller: Principal, dto: CreateWebhookDto): Promise<WebhookSubscription> {
    await this.assertUrlAllowed(dto.url);
    return this.txHost.withTransaction(async () => {
      await this.lockOwnerWithRoom(caller.userId);
      const subscription = await this.webhooks.insertSubscription({
        ownerId: caller.userId,
        url: dto.url,
        events: dto.events,
        description: dto.description ?? null,
        secret: generateWebhookSecret(),
        ...filterColumns(dto.filters ?? null),
      });
      await this.domainEvents.publish(
        webhookSubscriptionEvent('webhook.created', { before: null, after: subscription }),
      );
      return subscription;
    });
  }

  async list(caller: Principal, query: LargePageQueryDto): Promise<WebhookPage> {
    const offset = query.offset ?? 0;
    const { subscriptions, total } = await this.webhooks.findSubscriptionPage(
      ownerScopeOf(caller),
      query.limit,
      offset,
    );
    return {
      subscriptions,
      pagination: paginationOf(query.limit, offset, subscriptions.length, total),
    };
  }

  async findOne(caller: Principal, id: number): Promise<WebhookSubscription> {
    const subscription = await this.webhooks.findSubscription(id, ownerScopeOf(caller));
    if (!subscription) throw webhookNotFound(id);
    return subscription;
  }

  /** Re-enabling forgets why the service disabled it, and since when it was failing. */
  async update(caller: Principal, id: number, dto: UpdateWebhookDto): Promise<WebhookSubscription> {
    if (dto.url !== undefined) await this.assertUrlAllowed(dto.url);
    const changes: WebhookSubscriptionChanges = {
      url: dto.url,
      events: dto.events,
      description: dto.description,
      enabled: dto.enabled,
      // The filters are replaced as a whole: those left out of the new object are cleared.
      ...(dto.filters !== undefined && filterColumns(dto.filters)),
    };
    if (dto.enabled === true) {
      changes.disabledReason = null;
      changes.failingSince = null;
    }
    const defined = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as WebhookSubscriptionChanges;
    return this.txHost.withTransaction(async () => {
      const before = await this.lockedForChange(caller, id);
      const subscription = await this.webhooks.updateSubscription(id, defined);
      if (!subscription) throw webhookNotFound(id);
      await this.domainEvents.publish(
        webhookSubscriptionEvent('webhook.updated', { before, after: subscription }),
      );
      return subscription;
    });
  }

  remove(caller: Principal, id: number): Promise<void> {
    return this.txHost.withTransaction(async () => {
      const before = await this.lockedForChange(caller, id);
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
  rotateSecret(caller: Principal, id: number): Promise<WebhookSubscription> {
    return this.txHost.withTransaction(async () => {
      await this.lockedForChange(caller, id);
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

  /**
   * The subscription as the change starts from it, locked so that its event's `before` holds;
   * 404 when the caller cannot reach it.
   */
  private async lockedForChange(caller: Principal, id: number): Promise<WebhookSubscription> {
    const subscription = await this.webhooks.findSubscriptionForUpdate(id, ownerScopeOf(caller));
    if (!subscription) throw webhookNotFound(id);
    return subscription;
  }

  private async lockOwnerWithRoom(ownerId: number): Promise<void> {
    if (!(await this.users.lockForUpdate(ownerId))) {
      throw AuthErrors.invalidToken('its account no longer exists');
    }
    const limit = this.cfg.perUser;
    if ((await this.webhooks.countOfOwner(ownerId)) >= limit) {
      throw new ApiException(
        'WEBHOOK_LIMIT_REACHED',
        `An account owns at most ${limit} webhook subscriptions; delete one first`,
        { limit },
      );
    }
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
