import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';
import type { DomainEvent } from './domain-event.js';

/** A message a worker holds, to hand to its consumer. */
export interface ClaimedMessage {
  id: number;
  consumer: string;
  event: DomainEvent;
  /** Attempts started, this one included. */
  attempts: number;
  /** The same for every message of one claim. */
  claimToken: string;
}

/** When a failed message is tried again, and how often at most. */
export interface RetryPolicy {
  retryBaseMs: number;
  maxRetryMs: number;
  maxAttempts: number;
  /** Past `maxAttempts`, retried still until this long after the message was written. */
  retryForMs?: number;
}

/** A failed message's last attempt: `maxAttempts` used, and `retryForMs` gone since it was written. */
const GIVEN_UP = `attempts >= $6 AND created_at + $7 * interval '1 millisecond' <= now()`;

/** The only door to `outbox_messages` (docs/events.md, "The outbox"). */
@Injectable()
export class OutboxRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  /** One message per (consumer, event), in the caller's transaction, due after `delayMs`. */
  async add(messages: { consumer: string; event: DomainEvent }[], delayMs = 0): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO outbox_messages (consumer, subject, event_type, event, next_attempt_at)
       SELECT m.*, now() + $5 * interval '1 millisecond'
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) AS m`,
      [
        messages.map((m) => m.consumer),
        messages.map((m) => m.event.subject),
        messages.map((m) => m.event.type),
        messages.map((m) => JSON.stringify(m.event)),
        delayMs,
      ],
    );
  }

  /**
   * Claims up to `limit` due messages of `consumers` for `leaseMs`, in one statement. A
   * message waits while an earlier one of its subject for its consumer is still there
   * (claimed, or waiting for a retry): a subject's events reach a consumer in order.
   * SKIP LOCKED lets instances claim at once without taking the same message.
   */
  async claim(
    consumers: string[],
    limit: number,
    claimToken: string,
    leaseMs: number,
  ): Promise<ClaimedMessage[]> {
    // An UPDATE answers its rows and their count.
    const [claimed] = await this.txHost.tx.query<[ClaimedMessage[], number]>(
      `WITH next AS (
         SELECT o.id FROM outbox_messages o
          WHERE o.failed_at IS NULL AND o.next_attempt_at <= now()
            AND (o.claimed_until IS NULL OR o.claimed_until <= now())
            AND o.consumer = ANY($1::text[])
            AND NOT EXISTS (SELECT 1 FROM outbox_messages earlier
                             WHERE earlier.consumer = o.consumer AND earlier.subject = o.subject
                               AND earlier.id < o.id AND earlier.failed_at IS NULL)
          ORDER BY o.next_attempt_at, o.id
          LIMIT $2
          FOR UPDATE SKIP LOCKED)
       UPDATE outbox_messages o
          SET attempts = o.attempts + 1, claim_token = $3,
              claimed_until = now() + $4 * interval '1 millisecond'
         FROM next WHERE o.id = next.id
       RETURNING o.id, o.consumer, o.event, o.attempts, o.claim_token AS "claimToken"`,
      [consumers, limit, claimToken, leaseMs],
    );
    return claimed;
  }

  /**
   * The handler returned: the messages go. How many did: fewer than given when a claim was
   * lost meanwhile (taken over once its lease ran out).
   */
  async complete(messages: ClaimedMessage[]): Promise<number> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      'DELETE FROM outbox_messages WHERE id = ANY($1::int8[]) AND claim_token = $2',
      [messages.map((m) => m.id), messages[0]?.claimToken],
    );
    return count;
  }

  /**
   * The handler threw: each message gets another attempt after `retryBaseMs` × 2^(attempts-1),
   * at most `maxRetryMs`, or, once it used `maxAttempts` and was written `retryForMs` ago, is
   * kept as failed. Only the messages whose claim is still this one are touched; which of them
   * failed for good.
   */
  async fail(
    messages: ClaimedMessage[],
    error: string,
    retries: RetryPolicy,
  ): Promise<{ retrying: number; failed: number }> {
    const [rows] = await this.txHost.tx.query<[{ failed: boolean }[], number]>(
      `UPDATE outbox_messages
          SET claim_token = NULL, claimed_until = NULL, last_error = $3,
              next_attempt_at = CASE WHEN ${GIVEN_UP} THEN next_attempt_at
                                     ELSE now() + least($4 * 2 ^ (attempts - 1), $5)
                                                  * interval '1 millisecond' END,
              failed_at = CASE WHEN ${GIVEN_UP} THEN now() END
        WHERE id = ANY($1::int8[]) AND claim_token = $2
       RETURNING failed_at IS NOT NULL AS failed`,
      [
        messages.map((m) => m.id),
        messages[0]?.claimToken,
        error,
        retries.retryBaseMs,
        retries.maxRetryMs,
        retries.maxAttempts,
        retries.retryForMs ?? 0,
      ],
    );
    const failed = rows.filter((row) => row.failed).length;
    return { retrying: rows.length - failed, failed };
  }
}
