import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { PreparedStatements } from '../database/prepared-statements.js';
import type { Statement, TxHost } from '../database/transactions.js';
import type { DomainEventBase } from './domain-event.js';

/** A message a worker holds, to hand to its consumer. */
export interface ClaimedMessage {
  id: number;
  consumer: string;
  /** A domain event, or a job's payload. */
  event: DomainEventBase;
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

/** When a message is first due: at `runAt`, else `delayMs` after now (0 by default). */
export interface Due {
  delayMs?: number;
  runAt?: Date;
}

/** A message to write: for `consumer`, due as `due` says (now by default). */
export interface NewMessage {
  consumer: string;
  /** A domain event, or a job's payload. */
  event: DomainEventBase;
  /** Written only while a subscriber of the consumer wants the event's type. */
  gated?: boolean;
  due?: Due;
}

/**
 * A message written: its consumer, and whether it is due already (compared at the column's
 * millisecond precision, which may round now() up).
 */
export interface WrittenMessage {
  consumer: string;
  due: boolean;
}

/** What a long job last said of its progress: `done` of `total`, when it knows the total. */
export interface JobProgress {
  done: number;
  total?: number;
}

/** A recurring job: a run of `queue` every `everyMs`. */
export interface Schedule {
  queue: string;
  everyMs: number;
}

/** What a recurring run's message carries. */
export interface RecurringRun extends DomainEventBase {
  type: 'job.recurring';
  /** The period's start: its schedule's next run when this run was queued. */
  dueAt: string;
}

/** A failed message's last attempt: `maxAttempts` used, and `retryForMs` gone since it was written. */
const GIVEN_UP = `attempts >= $6 AND created_at + $7 * interval '1 millisecond' <= now()`;

/**
 * The only door to `outbox_messages` and `job_schedules` (docs/jobs.md), and the reader of
 * `outbox_interests`, which triggers write.
 */
@Injectable()
export class OutboxRepository {
  constructor(
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly prepared: PreparedStatements,
  ) {}

  /**
   * Writes the messages now, in the caller's transaction, in one statement (`addStatement`);
   * those written. A named statement: every change that publishes runs it, and its plan, with
   * the interest's look-up, cost more than its run.
   */
  add(messages: NewMessage[]): Promise<WrittenMessage[]> {
    const { sql, params } = this.addStatement(messages);
    return this.prepared.query<WrittenMessage[]>(this.txHost.tx, sql, params);
  }

  /**
   * The statement that writes the messages, in order; a `gated` one only when
   * `outbox_interests` counts a subscriber of its consumer for its event's type
   * (docs/events.md, "Interest"). It answers a `WrittenMessage` per message written.
   */
  addStatement(messages: NewMessage[]): Statement {
    return {
      sql: `INSERT INTO outbox_messages (consumer, subject, event_type, event, next_attempt_at)
       SELECT m.consumer, m.subject, m.event_type, m.event,
              coalesce(m.run_at, now() + m.delay_ms * interval '1 millisecond')
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::float8[],
                     $6::timestamptz[], $7::bool[])
              AS m(consumer, subject, event_type, event, delay_ms, run_at, gated)
        WHERE NOT m.gated
           OR EXISTS (SELECT 1 FROM outbox_interests i
                       WHERE i.consumer = m.consumer AND i.event_type = m.event_type
                         AND i.subscribers > 0)
       RETURNING consumer, next_attempt_at <= now()::timestamptz(3) AS due`,
      params: [
        messages.map((m) => m.consumer),
        messages.map((m) => m.event.subject),
        messages.map((m) => m.event.type),
        messages.map((m) => JSON.stringify(m.event)),
        messages.map((m) => m.due?.delayMs ?? 0),
        messages.map((m) => m.due?.runAt ?? null),
        messages.map((m) => m.gated ?? false),
      ],
    };
  }

  /**
   * Writes each schedule, its first run one period from now; a schedule already there keeps
   * its next run, brought forward when its period became shorter.
   */
  async schedule(schedules: Schedule[]): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO job_schedules (queue, every_ms, next_run_at)
       SELECT s.*, now() + s.every_ms * interval '1 millisecond'
         FROM unnest($1::text[], $2::int[]) AS s(queue, every_ms)
       ON CONFLICT (queue) DO UPDATE
          SET every_ms = excluded.every_ms,
              next_run_at = least(job_schedules.next_run_at, excluded.next_run_at)`,
      [schedules.map((s) => s.queue), schedules.map((s) => s.everyMs)],
    );
  }

  /**
   * Queues a run of each of `queues` whose schedule is due and moves its next run one period
   * from now, in one statement: of instances doing this at once, one takes a schedule (SKIP
   * LOCKED, and a locked row read again once its lock is gone no longer matches), so a period
   * has one run. A queue whose earlier run is still there (running, or waiting for a retry)
   * gets none: the runs of a recurring job never pile up. How many were queued, and how long
   * until the next of these schedules is due (negative for one another instance holds).
   */
  async queueDueRuns(queues: string[]): Promise<{ queued: number; msToNextRun: number | null }> {
    const [row] = await this.txHost.tx.query<{ queued: number; msToNextRun: number | null }[]>(
      `WITH due AS (
         SELECT queue, next_run_at AS due_at FROM job_schedules
          WHERE queue = ANY($1::text[]) AND next_run_at <= now()
          FOR UPDATE SKIP LOCKED),
       moved AS (
         UPDATE job_schedules s
            SET next_run_at = now() + s.every_ms * interval '1 millisecond'
           FROM due WHERE s.queue = due.queue
         RETURNING s.queue, 'recurring:' || s.queue AS subject, due.due_at, s.next_run_at),
       queued AS (
         INSERT INTO outbox_messages (consumer, subject, event_type, event)
         SELECT queue, subject, 'job.recurring',
                jsonb_build_object('type', 'job.recurring', 'subject', subject,
                                   'dueAt', to_char(due_at AT TIME ZONE 'UTC',
                                                    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           FROM moved
          WHERE NOT EXISTS (SELECT 1 FROM outbox_messages o
                             WHERE o.consumer = moved.queue AND o.failed_at IS NULL)
         RETURNING id)
       SELECT (SELECT count(*) FROM queued)::int AS queued,
              (extract(epoch FROM min(coalesce(moved.next_run_at, s.next_run_at)) - now())
                 * 1000)::int AS "msToNextRun"
         FROM job_schedules s LEFT JOIN moved ON moved.queue = s.queue
        WHERE s.queue = ANY($1::text[])`,
      [queues],
    );
    return row;
  }

  /** Keeps what a job said of its progress on its message, while its claim is `claimToken`. */
  async reportProgress(id: number, claimToken: string, progress: JobProgress): Promise<void> {
    await this.txHost.tx.query(
      'UPDATE outbox_messages SET progress = $3 WHERE id = $1 AND claim_token = $2',
      [id, claimToken, JSON.stringify(progress)],
    );
  }

  /** What the job of message `id` last said of its progress; undefined once it is gone. */
  async progressOf(id: number): Promise<JobProgress | null | undefined> {
    const rows = await this.txHost.tx.query<{ progress: JobProgress | null }[]>(
      'SELECT progress FROM outbox_messages WHERE id = $1',
      [id],
    );
    return rows[0]?.progress;
  }

  /**
   * Deletes the messages of `subject` for `consumer` not yet done nor failed, running ones
   * included (their completion then finds nothing to delete), in the caller's transaction;
   * how many.
   */
  async cancel(consumer: string, subject: string): Promise<number> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `DELETE FROM outbox_messages
        WHERE consumer = $1 AND subject = $2 AND failed_at IS NULL`,
      [consumer, subject],
    );
    return count;
  }

  /** The messages of each consumer still to hand over (due or not, failed ones left out). */
  async queuedByConsumer(): Promise<{ consumer: string; count: number }[]> {
    return this.txHost.tx.query<{ consumer: string; count: number }[]>(
      `SELECT consumer, count(*)::int AS count FROM outbox_messages
        WHERE failed_at IS NULL GROUP BY consumer`,
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
   * Moves on the lease of each message still held by its claim, to `leaseMs` from now: a job
   * that runs longer than a lease is not taken over while its instance lives. How many.
   */
  async renew(held: { id: number; claimToken: string }[], leaseMs: number): Promise<number> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `UPDATE outbox_messages o
          SET claimed_until = now() + $3 * interval '1 millisecond'
         FROM unnest($1::int8[], $2::uuid[]) AS h(id, claim_token)
        WHERE o.id = h.id AND o.claim_token = h.claim_token`,
      [held.map((h) => h.id), held.map((h) => h.claimToken), leaseMs],
    );
    return count;
  }

  /**
   * The handler said when to try again: the message is unclaimed, due at `at`, its attempt
   * counted but no error kept. Its subject's later messages for its consumer, which cannot go
   * before it, are held until then too, so that claims do not read them meanwhile. False when
   * its claim was lost meanwhile.
   */
  async retryAt(message: ClaimedMessage, at: Date): Promise<boolean> {
    const [{ count }] = await this.txHost.tx.query<{ count: number }[]>(
      `WITH retried AS (
         UPDATE outbox_messages
            SET claim_token = NULL, claimed_until = NULL, next_attempt_at = $3
          WHERE id = $1 AND claim_token = $2
         RETURNING id, consumer, subject),
       held AS (
         UPDATE outbox_messages later SET next_attempt_at = $3
           FROM retried
          WHERE later.consumer = retried.consumer AND later.subject = retried.subject
            AND later.id > retried.id AND later.failed_at IS NULL AND later.next_attempt_at < $3)
       SELECT count(*)::int AS count FROM retried`,
      [message.id, message.claimToken, at],
    );
    return count === 1;
  }

  /**
   * Makes the waiting messages of `consumer` and `subject` whose event contains `match` due
   * now, with the subject's later messages held until their time (see retryAt); how many
   * such messages are there, waiting or running (failed ones left out).
   */
  async runNow(consumer: string, subject: string, match: object): Promise<number> {
    const [{ count }] = await this.txHost.tx.query<{ count: number }[]>(
      `WITH matching AS (
         SELECT id, next_attempt_at FROM outbox_messages
          WHERE consumer = $1 AND subject = $2 AND event @> $3::jsonb AND failed_at IS NULL),
       moved AS (
         UPDATE outbox_messages o SET next_attempt_at = now()
           FROM matching m
          WHERE o.consumer = $1 AND o.subject = $2 AND o.failed_at IS NULL
            AND o.next_attempt_at > now()
            AND (o.id = m.id OR (o.id > m.id AND o.next_attempt_at <= m.next_attempt_at)))
       SELECT count(*)::int AS count FROM matching`,
      [consumer, subject, JSON.stringify(match)],
    );
    return count;
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
