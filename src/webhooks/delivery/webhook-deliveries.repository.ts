import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Role } from '../../common/types/principal.js';
import type { TxHost } from '../../database/transactions.js';
import type { PetStatus } from '../../pets/pet-status.js';
import type { WebhookEventType } from '../webhook-event-types.js';
import type { DeliveryStatus } from './webhook-delivery.entity.js';

/** Deliveries that ended on one UTC day (`YYYY-MM-DD`), by outcome. */
export interface DeliveryDayCounts {
  date: string;
  deliveriesSucceeded: number;
  deliveriesFailed: number;
}

/**
 * An event to fan out, with the body sent for it, serialized once: the same bytes for every
 * receiver and every attempt. `petId` is the pet it is about (an adoption's pet); `sequence`
 * orders it among the events of its own subject (a pet's log, or an adoption's outbox rows).
 */
export interface EventFanOut {
  event: {
    sequence: number;
    id: string;
    type: WebhookEventType;
    petId: number;
    occurredAt: string;
  };
  body: string;
  /** The owners' roles that may receive it (webhookReadersOf). */
  readers: readonly Role[];
  /** What a pet event's subscription filters match; null for an event that is not filtered. */
  pet: FilteredPet | null;
}

/** A pet event's pet as the filters see it: after the change (before it, for a deletion). */
export interface FilteredPet {
  categoryId: number;
  status: PetStatus;
  tags: string[];
}

/** A delivery to send: which one, and the (subscription, pet) whose order it keeps. */
export interface QueuedDelivery {
  id: number;
  subscriptionId: number;
  petId: number;
}

/**
 * A delivery as its job finds it: whether it is still to send (pending, of an enabled
 * subscription) and when, what it sends, and to whom, signed with which secrets.
 */
export interface DeliveryToSend {
  id: number;
  subscriptionId: number;
  status: DeliveryStatus;
  enabled: boolean;
  nextAttemptAt: Date;
  /** Its next attempt is still ahead, by the database's clock. */
  notDueYet: boolean;
  eventId: string;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  /** Null before the first attempt (and again after a retry by hand). */
  firstAttemptAt: Date | null;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** One attempt as the log keeps it. */
export interface AttemptRow {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/** What an attempt leads to: done, another attempt at `nextAttemptAt`, or given up. */
export type AttemptOutcome =
  { status: 'succeeded' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

/** The failing subscription's rule: disabled once every attempt failed for `afterMs`. */
interface DisableRule {
  afterMs: number;
  reason: string;
}

interface RecordedAttempt {
  /** The subscription was disabled by this attempt's failure. */
  disabledSubscription: boolean;
}

/** A delivery as its log shows it, with its latest attempt. */
export interface DeliveryRow {
  id: number;
  subscriptionId: number;
  eventId: string;
  eventType: WebhookEventType;
  petId: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  completedAt: Date | null;
  lastAttempt: Omit<AttemptRow, 'responseBody'> | null;
}

const DELIVERY_COLUMNS = `
  d.id, d.subscription_id AS "subscriptionId", d.event_id AS "eventId",
  d.event_type AS "eventType", d.pet_id AS "petId", d.status, d.attempts,
  d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt",
  d.completed_at AS "completedAt",
  (SELECT json_build_object('attemptedAt', a.attempted_at, 'statusCode', a.status_code,
                            'durationMs', a.duration_ms, 'error', a.error)
     FROM webhook_delivery_attempts a
    WHERE a.delivery_id = d.id
    ORDER BY a.id DESC
    LIMIT 1) AS "lastAttempt"`;

type DeliveryRecord = Omit<DeliveryRow, 'lastAttempt'> & {
  lastAttempt: (Omit<AttemptRow, 'attemptedAt' | 'responseBody'> & { attemptedAt: string }) | null;
};

// json_build_object leaves the timestamp as text.
const toDeliveryRow = ({ lastAttempt, ...row }: DeliveryRecord): DeliveryRow => ({
  ...row,
  lastAttempt: lastAttempt && { ...lastAttempt, attemptedAt: new Date(lastAttempt.attemptedAt) },
});

/** Sets to $2 the due time of the pet's pending deliveries after delivery $1 (`f`). */
const MOVE_FOLLOWERS = `
  UPDATE webhook_deliveries f SET next_attempt_at = $2
    FROM webhook_deliveries d
   WHERE d.id = $1 AND f.subscription_id = d.subscription_id AND f.pet_id = d.pet_id
     AND f.status = 'pending' AND f.event_sequence > d.event_sequence`;

/**
 * The only door to `webhook_deliveries` and `webhook_delivery_attempts`, and to the
 * subscription fields a delivery's job reads (URL, secrets) and keeps (failing since,
 * disabled). Each read and each record is one short statement or transaction; nothing is held
 * while a delivery is sent.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  /**
   * One delivery per event and enabled subscription that asked for the event's type, existed
   * when it happened, belongs to an active owner of a role among the event's readers (or to
   * the store, with no owner), and whose filters match the event's pet (a pet event: each
   * filter set matches; tags case-insensitively, any one of them). In the caller's transaction
   * if there is one. An event fanned out twice adds nothing. The deliveries added, in event
   * order.
   */
  async insertForEvents(fanOuts: EventFanOut[]): Promise<QueuedDelivery[]> {
    if (fanOuts.length === 0) return [];
    const rows = await this.txHost.tx.query<(QueuedDelivery & { eventSequence: number })[]>(
      // Not due before the pet's earlier delivery is (see holdFollowers). A list travels as
      // its JSON text (readers, tags): unnest cannot take arrays of unequal lengths.
      `INSERT INTO webhook_deliveries
              (subscription_id, event_sequence, event_id, event_type, pet_id, body, next_attempt_at)
       SELECT s.id, e.sequence, e.id, e.type, e.pet_id, e.body,
              greatest(now(), (SELECT max(earlier.next_attempt_at) FROM webhook_deliveries earlier
                                WHERE earlier.subscription_id = s.id AND earlier.pet_id = e.pet_id
                                  AND earlier.status = 'pending'))
         FROM unnest($1::bigint[], $2::varchar[], $3::varchar[], $4::bigint[],
                     $5::timestamptz[], $6::text[], $7::text[], $8::bigint[], $9::text[],
                     $10::text[])
              AS e(sequence, id, type, pet_id, occurred_at, body, readers, category_id, status,
                   tags)
         JOIN webhook_subscriptions s
           ON s.enabled AND e.type = ANY (s.events) AND s.created_at <= e.occurred_at
        WHERE (s.owner_id IS NULL
               OR EXISTS (SELECT 1 FROM users u
                           WHERE u.id = s.owner_id AND u.user_status = 0
                             AND u.role::text IN (SELECT jsonb_array_elements_text(e.readers::jsonb))))
          AND (e.category_id IS NULL OR s.filter_category_ids IS NULL
               OR e.category_id = ANY (s.filter_category_ids))
          AND (e.status IS NULL OR s.filter_statuses IS NULL OR e.status = ANY (s.filter_statuses))
          AND (e.tags IS NULL OR s.filter_tags IS NULL
               OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.tags::jsonb) AS tag(name)
                           JOIN unnest(s.filter_tags) AS wanted(name)
                             ON lower(wanted.name) = lower(tag.name)))
        ORDER BY e.sequence, s.id
       ON CONFLICT (subscription_id, event_id) DO NOTHING
       RETURNING id, subscription_id AS "subscriptionId", pet_id AS "petId",
                 event_sequence AS "eventSequence"`,
      [
        fanOuts.map(({ event }) => event.sequence),
        fanOuts.map(({ event }) => event.id),
        fanOuts.map(({ event }) => event.type),
        fanOuts.map(({ event }) => event.petId),
        fanOuts.map(({ event }) => event.occurredAt),
        fanOuts.map(({ body }) => body),
        fanOuts.map(({ readers }) => JSON.stringify(readers)),
        fanOuts.map(({ pet }) => pet?.categoryId ?? null),
        fanOuts.map(({ pet }) => pet?.status ?? null),
        fanOuts.map(({ pet }) => (pet ? JSON.stringify(pet.tags) : null)),
      ],
    );
    // RETURNING promises no order; a pet's deliveries are queued in the order of its events.
    return rows
      .sort((a, b) => a.eventSequence - b.eventSequence || a.id - b.id)
      .map(({ id, subscriptionId, petId }) => ({ id, subscriptionId, petId }));
  }

  /** Delivery `id` with its subscription's address and secrets; undefined once deleted. */
  async findToSend(id: number): Promise<DeliveryToSend | undefined> {
    const [row] = await this.txHost.tx.query<DeliveryToSend[]>(
      `SELECT d.id, d.subscription_id AS "subscriptionId", d.status, s.enabled,
              d.next_attempt_at AS "nextAttemptAt", d.next_attempt_at > now() AS "notDueYet",
              d.event_id AS "eventId", d.body, d.attempts, d.first_attempt_at AS "firstAttemptAt",
              s.url, s.secret, s.previous_secret AS "previousSecret",
              s.previous_secret_expires_at AS "previousSecretExpiresAt"
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = $1`,
      [id],
    );
    return row;
  }

  /** The subscription's pending deliveries, in event order: to queue again once re-enabled. */
  findPending(subscriptionId: number): Promise<QueuedDelivery[]> {
    return this.txHost.tx.query<QueuedDelivery[]>(
      `SELECT id, subscription_id AS "subscriptionId", pet_id AS "petId"
         FROM webhook_deliveries
        WHERE subscription_id = $1 AND status = 'pending'
        ORDER BY event_sequence, id`,
      [subscriptionId],
    );
  }

  /**
   * Records an attempt of a pending delivery, and what it leads to; undefined (nothing
   * written) when it is no longer pending (ended meanwhile) or was deleted with its
   * subscription. Keeps the subscription's failure streak: cleared by a success, started by a
   * failure, and the subscription disabled once it has lasted `disable.afterMs`.
   */
  recordAttempt(
    delivery: Pick<DeliveryToSend, 'id' | 'subscriptionId'>,
    attempt: Omit<AttemptRow, 'attemptedAt'> & { attemptedAt: Date },
    outcome: AttemptOutcome,
    disable: DisableRule,
  ): Promise<RecordedAttempt | undefined> {
    return this.txHost.withTransaction(async () => {
      // The subscription first, as its DELETE locks it before cascading to the deliveries.
      await this.txHost.tx.query(
        `SELECT 1 FROM webhook_subscriptions WHERE id = $1 FOR NO KEY UPDATE`,
        [delivery.subscriptionId],
      );
      const finishedAt = new Date(attempt.attemptedAt.getTime() + attempt.durationMs);
      const [, updated] = await this.txHost.tx.query<[unknown[], number]>(
        `UPDATE webhook_deliveries
            SET attempts = attempts + 1, status = $3::varchar,
                first_attempt_at = coalesce(first_attempt_at, $2), last_attempt_at = $2,
                next_attempt_at = coalesce($4, next_attempt_at),
                completed_at = CASE WHEN $3::varchar = 'pending' THEN NULL ELSE $5::timestamptz END
          WHERE id = $1 AND status = 'pending'`,
        [
          delivery.id,
          attempt.attemptedAt,
          outcome.status,
          outcome.status === 'pending' ? outcome.nextAttemptAt : null,
          finishedAt,
        ],
      );
      if (updated !== 1) return undefined;
      if (outcome.status === 'pending') {
        await this.holdFollowers(delivery.id, outcome.nextAttemptAt);
      } else {
        await this.releaseFollowers(delivery.id, finishedAt);
      }
      await this.txHost.tx.query(
        `INSERT INTO webhook_delivery_attempts
                (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          delivery.id,
          attempt.attemptedAt,
          attempt.statusCode,
          attempt.durationMs,
          attempt.error,
          attempt.responseBody,
        ],
      );
      if (outcome.status === 'succeeded') {
        await this.txHost.tx.query(
          `UPDATE webhook_subscriptions SET failing_since = NULL
            WHERE id = $1 AND failing_since IS NOT NULL`,
          [delivery.subscriptionId],
        );
        return { disabledSubscription: false };
      }
      await this.txHost.tx.query(
        `UPDATE webhook_subscriptions SET failing_since = $2
          WHERE id = $1 AND failing_since IS NULL`,
        [delivery.subscriptionId, attempt.attemptedAt],
      );
      const [, disabled] = await this.txHost.tx.query<[unknown[], number]>(
        `UPDATE webhook_subscriptions
            SET enabled = false, disabled_reason = $4, updated_at = $2
          WHERE id = $1 AND enabled
            AND failing_since <= $2::timestamptz - $3 * interval '1 millisecond'`,
        [delivery.subscriptionId, finishedAt, disable.afterMs, disable.reason],
      );
      return { disabledSubscription: disabled === 1 };
    });
  }

  /**
   * A pet's later pending deliveries cannot go before its delivery `id` has (their jobs wait
   * behind its job): the log shows them due no sooner than its next attempt.
   */
  private async holdFollowers(id: number, until: Date): Promise<void> {
    await this.txHost.tx.query(`${MOVE_FOLLOWERS} AND f.next_attempt_at < $2`, [id, until]);
  }

  /**
   * Once delivery `id` has ended, the pet's later deliveries that were only held for it
   * (never attempted) are due: it may have ended before the time they were held until (a
   * retry by hand).
   */
  private async releaseFollowers(id: number, at: Date): Promise<void> {
    await this.txHost.tx.query(`${MOVE_FOLLOWERS} AND f.attempts = 0 AND f.next_attempt_at > $2`, [
      id,
      at,
    ]);
  }

  /**
   * Whether the subscription exists, and belongs to `ownerId` when one is given (the delivery
   * log's routes answer 404 otherwise).
   */
  async subscriptionExists(subscriptionId: number, ownerId: number | undefined): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      `SELECT 1 FROM webhook_subscriptions WHERE id = $1 AND ($2::int8 IS NULL OR owner_id = $2)`,
      [subscriptionId, ownerId ?? null],
    );
    return rows.length === 1;
  }

  /** One page of a subscription's deliveries, newest first, and how many there are in all. */
  async findPage(
    subscriptionId: number,
    status: DeliveryStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<{ deliveries: DeliveryRow[]; total: number }> {
    const filter = `d.subscription_id = $1 AND ($2::varchar IS NULL OR d.status = $2)`;
    const [records, [{ total }]] = await Promise.all([
      this.txHost.tx.query<DeliveryRecord[]>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
          WHERE ${filter}
          ORDER BY d.id DESC
          LIMIT $3 OFFSET $4`,
        [subscriptionId, status ?? null, limit, offset],
      ),
      this.txHost.tx.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${filter}`,
        [subscriptionId, status ?? null],
      ),
    ]);
    return { deliveries: records.map(toDeliveryRow), total };
  }

  /** The subscription's delivery, or undefined (also when it is another subscription's). */
  async findOne(subscriptionId: number, deliveryId: number): Promise<DeliveryRow | undefined> {
    const [record] = await this.txHost.tx.query<DeliveryRecord[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d
        WHERE d.id = $2 AND d.subscription_id = $1`,
      [subscriptionId, deliveryId],
    );
    return record && toDeliveryRow(record);
  }

  /** The delivery's latest `limit` attempts, newest first. */
  findAttempts(deliveryId: number, limit: number): Promise<AttemptRow[]> {
    return this.txHost.tx.query<AttemptRow[]>(
      `SELECT attempted_at AS "attemptedAt", status_code AS "statusCode",
              duration_ms AS "durationMs", error, response_body AS "responseBody"
         FROM webhook_delivery_attempts
        WHERE delivery_id = $1
        ORDER BY id DESC
        LIMIT $2`,
      [deliveryId, limit],
    );
  }

  /**
   * Deletes up to `limit` deliveries that ended (succeeded or failed) before `before`, with
   * their attempts; returns how many.
   */
  /** Deliveries that ended, by outcome, per UTC day since `since`, for the days that had any. */
  countEndedPerDay(since: Date): Promise<DeliveryDayCounts[]> {
    return this.txHost.tx.query<DeliveryDayCounts[]>(
      `SELECT to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date,
              count(*) FILTER (WHERE status = 'succeeded')::int AS "deliveriesSucceeded",
              count(*) FILTER (WHERE status = 'failed')::int AS "deliveriesFailed"
         FROM webhook_deliveries
        WHERE status <> 'pending' AND completed_at >= $1
        GROUP BY 1`,
      [since],
    );
  }

  async deleteEndedBefore(before: Date, limit: number): Promise<number> {
    const [, deleted] = await this.txHost.tx.query<[unknown[], number]>(
      // Checked again outside: a retry may have made one pending while the DELETE waited.
      `DELETE FROM webhook_deliveries
        WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE status <> 'pending' AND completed_at < $1
                      LIMIT $2)
          AND status <> 'pending' AND completed_at < $1`,
      [before, limit],
    );
    return deleted;
  }

  /**
   * Makes the delivery pending and due now, whatever its state (a delivery being sent is
   * recorded by its job when the attempt ends). The delivery, or undefined when the
   * subscription has no such delivery.
   */
  async makeDueNow(
    subscriptionId: number,
    deliveryId: number,
  ): Promise<QueuedDelivery | undefined> {
    const [rows] = await this.txHost.tx.query<[QueuedDelivery[], number]>(
      `UPDATE webhook_deliveries
          SET status = 'pending', next_attempt_at = now(), completed_at = NULL,
              first_attempt_at = NULL
        WHERE id = $2 AND subscription_id = $1
       RETURNING id, subscription_id AS "subscriptionId", pet_id AS "petId"`,
      [subscriptionId, deliveryId],
    );
    return rows[0];
  }
}
