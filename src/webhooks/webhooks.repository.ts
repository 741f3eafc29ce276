import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { FindOptionsWhere, Repository } from 'typeorm';
import type { TxHost } from '../database/transactions.js';
import { WebhookSubscription } from './webhook-subscription.entity.js';

type FilterColumns = 'filterCategoryIds' | 'filterStatuses' | 'filterTags';

/** What a create records; the id and the times come from the database. */
type NewWebhookSubscription = Pick<
  WebhookSubscription,
  'ownerId' | 'url' | 'events' | 'description' | 'secret' | FilterColumns
>;

/** The columns an update may set, and those that re-enabling clears. */
export type WebhookSubscriptionChanges = Partial<
  Pick<
    WebhookSubscription,
    'url' | 'events' | 'description' | 'enabled' | 'disabledReason' | 'failingSince' | FilterColumns
  >
>;

/**
 * Whose subscriptions a read or change may reach: one owner's (a user's own), or, with
 * `undefined`, every subscription (an admin).
 */
export type OwnerScope = number | undefined;

const scoped = (id: number, ownerId: OwnerScope): FindOptionsWhere<WebhookSubscription> =>
  ownerId === undefined ? { id } : { id, ownerId };

/**
 * The subscriptions' door to the database (the delivery worker has its own,
 * delivery/webhook-deliveries.repository.ts): the `webhook_subscriptions` rows; deleting one
 * deletes its deliveries and their attempts (ON DELETE CASCADE).
 */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  private get subscriptions(): Repository<WebhookSubscription> {
    return this.txHost.tx.getRepository(WebhookSubscription);
  }

  async insertSubscription(subscription: NewWebhookSubscription): Promise<WebhookSubscription> {
    const { id } = await this.subscriptions.save(this.subscriptions.create(subscription));
    return (await this.findSubscription(id, undefined))!;
  }

  /** How many subscriptions the user owns (its cap, WEBHOOKS_PER_USER). */
  countOfOwner(ownerId: number): Promise<number> {
    return this.subscriptions.countBy({ ownerId });
  }

  /** Newest first, with their owners. */
  async findSubscriptionPage(
    ownerId: OwnerScope,
    limit: number,
    offset: number,
  ): Promise<{ subscriptions: WebhookSubscription[]; total: number }> {
    const [subscriptions, total] = await this.subscriptions.findAndCount({
      where: ownerId === undefined ? {} : { ownerId },
      relations: { owner: true },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { subscriptions, total };
  }

  /** With its owner; null when there is none of this id within the scope. */
  findSubscription(id: number, ownerId: OwnerScope): Promise<WebhookSubscription | null> {
    return this.subscriptions.findOne({
      where: scoped(id, ownerId),
      relations: { owner: true },
    });
  }

  /**
   * Inside a transaction: the row within the scope (null otherwise), locked until the
   * transaction ends, as a change starts from it.
   */
  findSubscriptionForUpdate(id: number, ownerId: OwnerScope): Promise<WebhookSubscription | null> {
    return this.subscriptions.findOne({
      where: scoped(id, ownerId),
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * The subscription as updated; null when there is none of this id. `disabledReason` and
   * `failingSince` are cleared only on a subscription that was disabled: one enabled already
   * keeps its failure streak, or a client that PUTs `enabled: true` with every edit would
   * keep a dead receiver from ever being disabled.
   */
  async updateSubscription(
    id: number,
    { disabledReason, failingSince, ...changes }: WebhookSubscriptionChanges,
  ): Promise<WebhookSubscription | null> {
    const clearedIfDisabled = (column: string) => () => `CASE WHEN "enabled" THEN "${column}" END`;
    const result = await this.subscriptions
      .createQueryBuilder()
      .update()
      .set({
        ...changes,
        ...(disabledReason === null && { disabledReason: clearedIfDisabled('disabled_reason') }),
        ...(failingSince === null && { failingSince: clearedIfDisabled('failing_since') }),
      })
      .where('id = :id', { id })
      .execute();
    return result.affected ? this.findSubscription(id, undefined) : null;
  }

  /**
   * The current secret becomes the previous one, until `previousSecretExpiresAt`, in one
   * statement, so that concurrent rotations cannot both keep the same previous secret; read
   * back under the row lock that statement holds, so the answer is this rotation's.
   */
  rotateSubscriptionSecret(
    id: number,
    secret: string,
    previousSecretExpiresAt: Date,
  ): Promise<WebhookSubscription | null> {
    return this.txHost.withTransaction(async () => {
      const result = await this.subscriptions
        .createQueryBuilder()
        .update()
        .set({ secret, previousSecret: () => '"secret"', previousSecretExpiresAt })
        .where('id = :id', { id })
        .execute();
      return result.affected ? this.findSubscription(id, undefined) : null;
    });
  }

  /** False when there is none of this id. */
  async deleteSubscription(id: number): Promise<boolean> {
    const result = await this.subscriptions.delete({ id });
    return Boolean(result.affected);
  }
}
