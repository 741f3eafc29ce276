import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  OutboxRepository,
  type ClaimedMessage,
  type RecurringRun,
  type RetryPolicy,
} from '../../../src/events/outbox.repository.js';
import { petSubject, type PetEvent, type PetEventType } from '../../../src/pets/pet-events.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';
import { waitFor } from '../../support/wait.js';

const LEASE_MS = 60_000;
/** The consumers this instance handles (`@OutboxHandler`), and one only another version knows. */
const CONSUMER = 'webhook-fan-out';
const OTHER_CONSUMER = 'search-index';
const UNKNOWN_CONSUMER = 'consumer-of-a-newer-version';
const KNOWN = [CONSUMER, OTHER_CONSUMER];
/** A first retry a minute after the failure; and a last attempt. */
const RETRY_IN_A_MINUTE: RetryPolicy = {
  retryBaseMs: 60_000,
  maxRetryMs: 600_000,
  maxAttempts: 12,
};
const LAST_ATTEMPT: RetryPolicy = { ...RETRY_IN_A_MINUTE, maxAttempts: 1 };
/** `offsetMs` from now, to the millisecond the columns keep. */
const at = (offsetMs = 0) => new Date(Date.now() + offsetMs);

let sequence = 0;
let petIds = 1_000;
const newPetId = () => (petIds += 1);

/** A pet's event as PetsService publishes it: the outbox keeps it as JSON and hands it back. */
function petEvent(petId: number, type: PetEventType = 'pet.updated'): PetEvent {
  sequence += 1;
  const occurredAt = new Date().toISOString();
  return {
    type,
    subject: petSubject(petId),
    sequence,
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    petId,
    occurredAt,
    actorUserId: 7,
    actorApiKeyPrefix: null,
    changedFields: type === 'pet.updated' ? ['name'] : null,
    statusFrom: null,
    statusTo: null,
    adoptionId: null,
    pet: {
      id: petId,
      name: `Pet ${petId}`,
      status: 'available',
      photoUrls: [],
      age: null,
      breed: null,
      description: null,
      createdAt: occurredAt,
      updatedAt: occurredAt,
      categoryId: 1,
      categoryName: 'Dogs',
      categoryDescription: null,
      tags: [{ id: 1, name: 'friendly' }],
      versionTag: '2.1',
    },
  };
}

interface MessageRow {
  id: number;
  consumer: string;
  subject: string;
  eventType: string;
  /** What this spec publishes: pets' events. */
  event: PetEvent;
  attempts: number;
  nextAttemptAt: Date;
  claimToken: string | null;
  claimedUntil: Date | null;
  lastError: string | null;
  failedAt: Date | null;
}

describe(OutboxRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: OutboxRepository;

  const messages = () =>
    harness.query<MessageRow>(
      `SELECT id, consumer, subject, event_type AS "eventType", event, attempts,
              next_attempt_at AS "nextAttemptAt", claim_token AS "claimToken",
              claimed_until AS "claimedUntil", last_error AS "lastError", failed_at AS "failedAt"
         FROM outbox_messages ORDER BY id`,
    );
  const messageOf = async (event: PetEvent, consumer = CONSUMER) =>
    (await messages()).find((m) => m.consumer === consumer && m.event.id === event.id)!;
  const setMessage = (id: number, assignment: string, params: unknown[] = []) =>
    harness.query(`UPDATE outbox_messages SET ${assignment} WHERE id = $1`, [id, ...params]);
  const endLease = (message: { id: number }) =>
    setMessage(message.id, `claimed_until = now() - interval '1 second'`);
  /**
   * Adds a message of each event for each consumer, in a transaction as publish() does, made
   * due a second earlier: the default due time, now() rounded to the column's millisecond, can
   * lie up to half a millisecond after a claim that follows at once. Due in the order added.
   */
  const publish = async (events: PetEvent[], consumers = [CONSUMER]) => {
    await harness.transaction(() =>
      sut.add(events.flatMap((event) => consumers.map((consumer) => ({ consumer, event })))),
    );
    await harness.query(
      `UPDATE outbox_messages SET next_attempt_at = next_attempt_at - interval '1 second'
        WHERE event->>'id' = ANY($1::text[])`,
      [events.map((event) => event.id)],
    );
  };
  const claimAll = (token = randomUUID(), consumers = KNOWN) =>
    sut.claim(consumers, 100, token, LEASE_MS);
  /** What a claim took, as (consumer, event id) pairs in a stable order. */
  const taken = (claimed: ClaimedMessage[]) =>
    claimed.map((m) => [m.consumer, (m.event as PetEvent).id]).sort();
  const pairs = (...entries: [string, PetEvent][]) =>
    entries.map(([consumer, event]) => [consumer, event.id]).sort();

  beforeAll(async () => {
    harness = await createRepositoryHarness([OutboxRepository]);
    sut = harness.get(OutboxRepository);
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(async () => {
    await harness.query('DELETE FROM outbox_messages');
  });

  describe('add', () => {
    it('should write one message per consumer and event, due when written, unclaimed, with the event as published', async () => {
      const [rex, fido] = [petEvent(newPetId(), 'pet.created'), petEvent(newPetId())];

      await harness.transaction(() =>
        sut.add([
          { consumer: CONSUMER, event: rex },
          { consumer: OTHER_CONSUMER, event: rex },
          { consumer: CONSUMER, event: fido },
        ]),
      );

      const unclaimed = {
        attempts: 0,
        nextAttemptAt: expect.any(Date),
        claimToken: null,
        claimedUntil: null,
        lastError: null,
        failedAt: null,
      };
      expect(await messages()).toEqual([
        {
          ...unclaimed,
          id: expect.any(Number),
          consumer: CONSUMER,
          subject: rex.subject,
          eventType: 'pet.created',
          event: rex,
        },
        {
          ...unclaimed,
          id: expect.any(Number),
          consumer: OTHER_CONSUMER,
          subject: rex.subject,
          eventType: 'pet.created',
          event: rex,
        },
        {
          ...unclaimed,
          id: expect.any(Number),
          consumer: CONSUMER,
          subject: fido.subject,
          eventType: 'pet.updated',
          event: fido,
        },
      ]);
      const due = await harness.query<{ dueWhenWritten: boolean }>(
        'SELECT next_attempt_at = created_at AS "dueWhenWritten" FROM outbox_messages',
      );
      expect(due).toEqual(Array.from({ length: 3 }, () => ({ dueWhenWritten: true })));
    });

    it('should make each message due at its runAt, or delayMs after now, and answer which are due', async () => {
      const [later, delayed, now] = [
        petEvent(newPetId()),
        petEvent(newPetId()),
        petEvent(newPetId()),
      ];
      const runAt = at(3_600_000);

      const written = await harness.transaction(() =>
        sut.add([
          { consumer: CONSUMER, event: later, due: { runAt } },
          { consumer: OTHER_CONSUMER, event: delayed, due: { delayMs: 60_000 } },
          { consumer: OTHER_CONSUMER, event: now },
        ]),
      );

      expect(written).toEqual([
        { consumer: CONSUMER, due: false },
        { consumer: OTHER_CONSUMER, due: false },
        { consumer: OTHER_CONSUMER, due: true },
      ]);
      expect((await messageOf(later)).nextAttemptAt).toEqual(runAt);
      const [delay] = await harness.query<{ ms: number }>(
        `SELECT (extract(epoch FROM next_attempt_at - created_at) * 1000)::int AS ms
           FROM outbox_messages WHERE id = $1`,
        [(await messageOf(delayed, OTHER_CONSUMER)).id],
      );
      expect(delay.ms).toBe(60_000);
      expect((await claimAll()).map((message) => message.event)).toEqual([now]);
    });

    it('should write nothing when the caller’s transaction rolls back', async () => {
      const rolledBack = new Error('the change failed');

      await expect(
        harness.transaction(async () => {
          await sut.add([{ consumer: CONSUMER, event: petEvent(newPetId()) }]);
          throw rolledBack;
        }),
      ).rejects.toBe(rolledBack);

      expect(await messages()).toEqual([]);
    });
  });

  describe('claim', () => {
    it('should lease due messages to the token for the lease, counting the attempt', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const token = randomUUID();

      const claimed = await sut.claim([CONSUMER], 10, token, LEASE_MS);

      expect(claimed).toEqual([
        {
          id: (await messageOf(event)).id,
          consumer: CONSUMER,
          event,
          attempts: 1,
          claimToken: token,
        },
      ]);
      const [lease] = await harness.query<{ token: string; msLeft: number }>(
        `SELECT claim_token AS token,
                (extract(epoch FROM claimed_until - now()) * 1000)::int AS "msLeft"
           FROM outbox_messages`,
      );
      expect(lease.token).toBe(token);
      expect(lease.msLeft).toBeLessThanOrEqual(LEASE_MS);
      expect(lease.msLeft).toBeGreaterThan(LEASE_MS - 10_000);
    });

    it('should take neither a message not due yet nor one that failed', async () => {
      const [notDue, gaveUp] = [petEvent(newPetId()), petEvent(newPetId())];
      await publish([notDue, gaveUp]);
      await setMessage((await messageOf(notDue)).id, 'next_attempt_at = $2', [at(60_000)]);
      await setMessage((await messageOf(gaveUp)).id, 'failed_at = now()');

      expect(await claimAll()).toEqual([]);
    });

    it('should take only the messages of the consumers it is given', async () => {
      const event = petEvent(newPetId());
      await publish([event], [CONSUMER, OTHER_CONSUMER, UNKNOWN_CONSUMER]);

      expect(taken(await claimAll())).toEqual(pairs([CONSUMER, event], [OTHER_CONSUMER, event]));
      expect(taken(await claimAll(randomUUID(), [UNKNOWN_CONSUMER]))).toEqual(
        pairs([UNKNOWN_CONSUMER, event]),
      );
    });

    it('should not take a claimed message again until its lease has run out, then hand it over with the attempt counted', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [first] = await claimAll();

      expect(await claimAll()).toEqual([]);

      await endLease(first);
      const takeover = randomUUID();
      expect(await claimAll(takeover)).toEqual([{ ...first, attempts: 2, claimToken: takeover }]);
      expect((await messageOf(event)).claimToken).toBe(takeover);
    });

    it('should hold a subject’s later message for a consumer while the earlier one is claimed, and take it once that one is done', async () => {
      const rex = newPetId();
      const [rex1, rex2] = [petEvent(rex), petEvent(rex)];
      await publish([rex1, rex2]);

      const [first] = await claimAll();
      expect(first.event).toEqual(rex1);
      expect(await claimAll()).toEqual([]);

      expect(await sut.complete([first])).toBe(1);
      expect(taken(await claimAll())).toEqual(pairs([CONSUMER, rex2]));
    });

    it('should hold the later message while the earlier one waits for its retry', async () => {
      const rex = newPetId();
      const [rex1, rex2] = [petEvent(rex), petEvent(rex)];
      await publish([rex1, rex2]);
      const [first] = await claimAll();
      await sut.fail([first], 'HTTP 503', RETRY_IN_A_MINUTE);

      expect(await claimAll()).toEqual([]);

      await setMessage(first.id, `next_attempt_at = now() - interval '1 second'`);
      expect(await claimAll()).toEqual([{ ...first, attempts: 2, claimToken: expect.any(String) }]);
    });

    it('should let the later message go once the earlier one has failed for good', async () => {
      const rex = newPetId();
      const [rex1, rex2] = [petEvent(rex), petEvent(rex)];
      await publish([rex1, rex2]);
      const [first] = await claimAll();

      await sut.fail([first], 'HTTP 500', LAST_ATTEMPT);

      expect(taken(await claimAll())).toEqual(pairs([CONSUMER, rex2]));
    });

    it('should order each consumer’s subjects apart: another consumer or subject does not wait', async () => {
      const [rex, fido] = [newPetId(), newPetId()];
      const [rex1, rex2, fido1] = [petEvent(rex), petEvent(rex), petEvent(fido)];
      await publish([rex1, rex2], [CONSUMER, OTHER_CONSUMER]);
      await publish([fido1]);

      const claimed = await claimAll();
      expect(taken(claimed)).toEqual(
        pairs([CONSUMER, rex1], [OTHER_CONSUMER, rex1], [CONSUMER, fido1]),
      );

      const otherRex1 = claimed.find((m) => m.consumer === OTHER_CONSUMER)!;
      expect(await sut.complete([otherRex1])).toBe(1);
      expect(taken(await claimAll())).toEqual(pairs([OTHER_CONSUMER, rex2]));
    });

    it('should take at most `limit` messages, those due first, the older of two due at once first', async () => {
      const events = Array.from({ length: 4 }, () => petEvent(newPetId()));
      await publish(events);
      const [dueLast, dueFirst, dueSecond, dueSecondToo] = events;
      const dueAt = (due: PetEvent[], offsetMs: number) =>
        harness.query(
          `UPDATE outbox_messages SET next_attempt_at = $2 WHERE event->>'id' = ANY($1::text[])`,
          [due.map((event) => event.id), at(offsetMs)],
        );
      await dueAt([dueLast], -1_000);
      await dueAt([dueFirst], -3_000);
      await dueAt([dueSecond, dueSecondToo], -2_000);

      const claimed = await sut.claim(KNOWN, 2, randomUUID(), LEASE_MS);

      expect(taken(claimed)).toEqual(pairs([CONSUMER, dueFirst], [CONSUMER, dueSecond]));
    });

    it('should hand each due message to one of several claims made at once', async () => {
      await publish(Array.from({ length: 12 }, () => petEvent(newPetId())));

      const claims = await Promise.all(
        Array.from({ length: 4 }, () => sut.claim(KNOWN, 5, randomUUID(), LEASE_MS)),
      );

      const claimed = claims.flat();
      expect(new Set(claimed.map((m) => m.id)).size).toBe(claimed.length);
      // Every message taken, each leased to the claim that returned it.
      const leases = (rows: { id: number; claimToken: string | null }[]) =>
        rows.map(({ id, claimToken }) => ({ id, claimToken })).sort((a, b) => a.id - b.id);
      expect(leases(claimed)).toEqual(leases(await messages()));
    });

    // A session of its own holds the row: PGlite serves one session at a time.
    const onServer = process.env.DATABASE_URL ? it : it.skip;

    onServer(
      'should skip a message another session has locked, instead of waiting for it',
      async () => {
        const [held, free] = [petEvent(newPetId()), petEvent(newPetId())];
        await publish([held, free]);
        const other = new pg.Client({ connectionString: harness.database.env.DATABASE_URL });
        await other.connect();
        try {
          await other.query('BEGIN');
          await other.query('SELECT 1 FROM outbox_messages WHERE id = $1 FOR UPDATE', [
            (await messageOf(held)).id,
          ]);

          expect(taken(await claimAll())).toEqual(pairs([CONSUMER, free]));
        } finally {
          await other.query('ROLLBACK');
          await other.end();
        }
      },
    );
  });

  describe('recurring jobs', () => {
    const QUEUE = 'sweep';
    const schedules = () =>
      harness.query<{ queue: string; everyMs: number; msToNextRun: number }>(
        `SELECT queue, every_ms AS "everyMs",
                (extract(epoch FROM next_run_at - now()) * 1000)::int AS "msToNextRun"
           FROM job_schedules ORDER BY queue`,
      );
    const makeDue = () =>
      harness.query(
        `UPDATE job_schedules SET next_run_at = now() - interval '1 second' RETURNING next_run_at`,
      );

    beforeEach(async () => {
      await harness.query('DELETE FROM job_schedules');
    });

    it('should write a schedule due one period from now, keep its next run when written again, and bring it forward for a shorter period', async () => {
      await sut.schedule([{ queue: QUEUE, everyMs: 600_000 }]);
      const [first] = await schedules();
      expect(first).toEqual({ queue: QUEUE, everyMs: 600_000, msToNextRun: expect.any(Number) });
      expect(first.msToNextRun).toBeGreaterThan(590_000);

      await sut.schedule([{ queue: QUEUE, everyMs: 900_000 }]);
      const [kept] = await schedules();
      expect(kept.everyMs).toBe(900_000);
      expect(kept.msToNextRun).toBeLessThanOrEqual(first.msToNextRun);

      await sut.schedule([{ queue: QUEUE, everyMs: 60_000 }]);
      const [shorter] = await schedules();
      expect(shorter.msToNextRun).toBeLessThanOrEqual(60_000);
    });

    it('should queue one run of a due schedule, with its due time, and move its next run one period on', async () => {
      await sut.schedule([{ queue: QUEUE, everyMs: 600_000 }]);
      expect((await sut.queueDueRuns([QUEUE])).queued).toBe(0);
      const [{ next_run_at: dueAt }] = await makeDue();

      const { queued, msToNextRun } = await sut.queueDueRuns([QUEUE]);

      expect(queued).toBe(1);
      expect(msToNextRun).toBeGreaterThan(590_000);
      const [run] = await messages();
      expect(run).toMatchObject({ consumer: QUEUE, subject: `recurring:${QUEUE}` });
      expect(run.event as unknown as RecurringRun).toEqual({
        type: 'job.recurring',
        subject: `recurring:${QUEUE}`,
        dueAt: (dueAt as Date).toISOString(),
      });
      expect((await schedules())[0].msToNextRun).toBeGreaterThan(590_000);
      expect((await sut.queueDueRuns([QUEUE])).queued).toBe(0);
    });

    it('should queue no run while the earlier one is there, nor of a queue not asked for', async () => {
      await sut.schedule([
        { queue: QUEUE, everyMs: 600_000 },
        { queue: 'other', everyMs: 600_000 },
      ]);
      await makeDue();
      expect((await sut.queueDueRuns([QUEUE])).queued).toBe(1);
      await makeDue();

      expect((await sut.queueDueRuns([QUEUE])).queued).toBe(0);
      expect((await messages()).map((m) => m.consumer)).toEqual([QUEUE]);
    });
  });

  describe('recurring jobs on a server', () => {
    const onServer = process.env.DATABASE_URL ? it : it.skip;

    onServer(
      'should queue no run of a schedule another instance is moving on, neither while it holds it nor once it commits',
      async () => {
        await harness.query('DELETE FROM job_schedules');
        await sut.schedule([{ queue: 'sweep', everyMs: 600_000 }]);
        await harness.query(`UPDATE job_schedules SET next_run_at = now() - interval '1 second'`);
        const other = new pg.Client({ connectionString: harness.database.env.DATABASE_URL });
        await other.connect();
        try {
          await other.query('BEGIN');
          await other.query(`UPDATE job_schedules SET next_run_at = now() + interval '10 minutes'`);
          const looking = sut.queueDueRuns(['sweep']);
          let settled = false;
          void looking.finally(() => (settled = true));
          const waitsForTheLock = async () => {
            await other.query('SELECT pg_stat_clear_snapshot()');
            const { rows } = await other.query<{ waiting: number }>(
              `SELECT count(*)::int AS waiting FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND strpos(query, 'job_schedules') > 0`,
            );
            return rows[0].waiting > 0;
          };
          await waitFor(async () => settled || (await waitsForTheLock()));
          await other.query('COMMIT');

          expect((await looking).queued).toBe(0);
          expect(await messages()).toEqual([]);
        } finally {
          await other.end();
        }
      },
    );
  });

  describe('progress', () => {
    it('should keep what the claim’s holder reports, not another token’s, until the job is done', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [claimed] = await claimAll();
      expect(await sut.progressOf(claimed.id)).toBeNull();

      await sut.reportProgress(claimed.id, claimed.claimToken, { done: 2, total: 5 });
      await sut.reportProgress(claimed.id, randomUUID(), { done: 4, total: 5 });

      expect(await sut.progressOf(claimed.id)).toEqual({ done: 2, total: 5 });
      await sut.complete([claimed]);
      expect(await sut.progressOf(claimed.id)).toBeUndefined();
    });
  });

  describe('complete', () => {
    it('should delete the message its claim holds', async () => {
      const [done, kept] = [petEvent(newPetId()), petEvent(newPetId())];
      await publish([done, kept]);
      const claimed = (await claimAll()).find((m) => m.event.subject === done.subject)!;

      expect(await sut.complete([claimed])).toBe(1);

      expect((await messages()).map((m) => m.event)).toEqual([kept]);
    });

    it('should change nothing for a claim that was taken over, and leave the message to the new holder', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [lost] = await claimAll();
      await endLease(lost);
      const takeover = randomUUID();
      await claimAll(takeover);

      expect(await sut.complete([lost])).toBe(0);

      expect(await messageOf(event)).toEqual(
        expect.objectContaining({ attempts: 2, claimToken: takeover }),
      );
    });

    it('should delete a message whose lease ran out while no one took it over', async () => {
      await publish([petEvent(newPetId())]);
      const [claimed] = await claimAll();
      await endLease(claimed);

      expect(await sut.complete([claimed])).toBe(1);

      expect(await messages()).toEqual([]);
    });
  });

  describe('renew', () => {
    it('should move on the lease of the messages still held by their claims, and no other', async () => {
      const [held, lost] = [petEvent(newPetId()), petEvent(newPetId())];
      await publish([held, lost]);
      const [first, second] = await claimAll();
      const [kept, gone] = first.event.subject === held.subject ? [first, second] : [second, first];
      await endLease(gone);
      const takeover = randomUUID();
      await claimAll(takeover);
      const leaseOf = async (event: PetEvent) =>
        (
          await harness.query<{ msLeft: number }>(
            `SELECT (extract(epoch FROM claimed_until - now()) * 1000)::int AS "msLeft"
               FROM outbox_messages WHERE event->>'id' = $1`,
            [event.id],
          )
        )[0].msLeft;
      await endLease(kept);
      const takenOver = await messageOf(lost);

      expect(await sut.renew([kept, gone], 5 * LEASE_MS)).toBe(1);

      expect(await leaseOf(held)).toBeGreaterThan(4 * LEASE_MS);
      expect(await messageOf(held)).toEqual(
        expect.objectContaining({ claimToken: kept.claimToken }),
      );
      expect(await messageOf(lost)).toEqual(takenOver);
    });
  });

  describe('retryAt', () => {
    it('should unclaim the message, due at the time given, its attempt counted and no error kept', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [claimed] = await claimAll();
      const retry = at(60_000);

      expect(await sut.retryAt(claimed, retry)).toBe(true);

      expect(await messageOf(event)).toEqual(
        expect.objectContaining({
          attempts: 1,
          nextAttemptAt: retry,
          claimToken: null,
          claimedUntil: null,
          lastError: null,
          failedAt: null,
        }),
      );
      expect(await claimAll()).toEqual([]);
    });

    it('should hold the subject’s later messages for its consumer until then, and no others', async () => {
      const rex = newPetId();
      const [first, second, third] = [petEvent(rex), petEvent(rex), petEvent(rex)];
      await publish([first, second, third], KNOWN);
      const alreadyLater = at(120_000);
      await setMessage((await messageOf(third)).id, 'next_attempt_at = $2', [alreadyLater]);
      const before = (await messageOf(second, OTHER_CONSUMER)).nextAttemptAt;
      const claimed = (await claimAll()).find((m) => m.consumer === CONSUMER)!;
      const retry = at(60_000);

      await sut.retryAt(claimed, retry);

      expect((await messageOf(second)).nextAttemptAt).toEqual(retry);
      expect((await messageOf(third)).nextAttemptAt).toEqual(alreadyLater);
      expect((await messageOf(second, OTHER_CONSUMER)).nextAttemptAt).toEqual(before);
    });

    it('should change nothing for a claim that was taken over', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [lost] = await claimAll();
      await endLease(lost);
      const takeover = randomUUID();
      await claimAll(takeover);

      expect(await sut.retryAt(lost, at(60_000))).toBe(false);

      expect(await messageOf(event)).toEqual(expect.objectContaining({ claimToken: takeover }));
    });
  });

  describe('runNow', () => {
    it('should make the matching waiting messages of the consumer and subject due now, counting the running ones too', async () => {
      const rex = newPetId();
      const [waiting, running, otherSubject] = [
        petEvent(rex),
        petEvent(newPetId()),
        petEvent(newPetId()),
      ];
      await publish([waiting, running, otherSubject]);
      const later = `next_attempt_at = now() + interval '1 hour'`;
      await setMessage((await messageOf(waiting)).id, later);
      await setMessage((await messageOf(otherSubject)).id, later);
      await claimAll();

      expect(await sut.runNow(CONSUMER, waiting.subject, { id: waiting.id })).toBe(1);
      expect(await sut.runNow(CONSUMER, running.subject, { id: running.id })).toBe(1);
      expect(await sut.runNow(CONSUMER, waiting.subject, { id: 'evt_other' })).toBe(0);
      expect(await sut.runNow(OTHER_CONSUMER, waiting.subject, { id: waiting.id })).toBe(0);

      expect(taken(await claimAll())).toEqual(pairs([CONSUMER, waiting]));
      expect((await messageOf(otherSubject)).claimToken).toBeNull();
    });

    it('should make the later messages held for a retried one due with it, not those due later still', async () => {
      const rex = newPetId();
      const [first, second, third] = [petEvent(rex), petEvent(rex), petEvent(rex)];
      await publish([first, second, third]);
      const [claimed] = await claimAll();
      await sut.retryAt(claimed, at(60_000));
      const alreadyLater = at(120_000);
      await setMessage((await messageOf(third)).id, 'next_attempt_at = $2', [alreadyLater]);

      expect(await sut.runNow(CONSUMER, first.subject, { id: first.id })).toBe(1);

      expect(taken(await claimAll())).toEqual(pairs([CONSUMER, first]));
      const [{ secondDue }] = await harness.query<{ secondDue: boolean }>(
        `SELECT next_attempt_at <= now() AS "secondDue" FROM outbox_messages WHERE event->>'id' = $1`,
        [second.id],
      );
      expect(secondDue).toBe(true);
      expect((await messageOf(third)).nextAttemptAt).toEqual(alreadyLater);
    });
  });

  describe('fail', () => {
    it('should unclaim the message with its error, due again after the back-off, and hand it over then', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [claimed] = await claimAll();

      expect(await sut.fail([claimed], 'HTTP 503', RETRY_IN_A_MINUTE)).toEqual({
        retrying: 1,
        failed: 0,
      });

      expect(await messageOf(event)).toEqual(
        expect.objectContaining({
          attempts: 1,
          claimToken: null,
          claimedUntil: null,
          lastError: 'HTTP 503',
          failedAt: null,
        }),
      );
      const [{ inAMinute }] = await harness.query<{ inAMinute: boolean }>(
        `SELECT next_attempt_at BETWEEN now() + interval '59 seconds' AND now() + interval '61 seconds'
                AS "inAMinute" FROM outbox_messages`,
      );
      expect(inAMinute).toBe(true);
      expect(await claimAll()).toEqual([]);
      await setMessage(claimed.id, `next_attempt_at = now() - interval '1 second'`);
      const again = randomUUID();
      expect(await claimAll(again)).toEqual([{ ...claimed, attempts: 2, claimToken: again }]);
    });

    it('should double the wait with each attempt, up to the longest', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const waits: number[] = [];
      for (let attempt = 1; attempt <= 4; attempt++) {
        const [claimed] = await claimAll();
        await sut.fail([claimed], 'HTTP 503', { ...RETRY_IN_A_MINUTE, maxRetryMs: 180_000 });
        const [{ seconds }] = await harness.query<{ seconds: number }>(
          `SELECT round(extract(epoch FROM next_attempt_at - now()))::int AS seconds
             FROM outbox_messages`,
        );
        waits.push(seconds);
        await setMessage(claimed.id, `next_attempt_at = now() - interval '1 second'`);
      }
      expect(waits).toEqual([60, 120, 180, 180]);
    });

    it('should keep the message as failed, no longer due, once it used its last attempt', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const { nextAttemptAt } = await messageOf(event);
      const [claimed] = await claimAll();

      expect(await sut.fail([claimed], 'HTTP 500', LAST_ATTEMPT)).toEqual({
        retrying: 0,
        failed: 1,
      });

      expect(await messageOf(event)).toEqual(
        expect.objectContaining({
          attempts: 1,
          nextAttemptAt,
          claimToken: null,
          claimedUntil: null,
          lastError: 'HTTP 500',
          failedAt: expect.any(Date),
        }),
      );
      const [{ failedNow }] = await harness.query<{ failedNow: boolean }>(
        `SELECT failed_at BETWEEN now() - interval '1 minute' AND now() AS "failedNow"
           FROM outbox_messages`,
      );
      expect(failedNow).toBe(true);
      expect(await claimAll()).toEqual([]);
    });

    it('should retry past its last attempt until `retryForMs` has gone since the message was written, then keep it as failed', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const retryForADay = { ...LAST_ATTEMPT, retryForMs: 24 * 3_600_000 };
      const [first] = await claimAll();

      expect(await sut.fail([first], 'SMTP 451', retryForADay)).toEqual({
        retrying: 1,
        failed: 0,
      });

      await setMessage(
        first.id,
        `next_attempt_at = now() - interval '1 second', created_at = now() - interval '24 hours'`,
      );
      const [second] = await claimAll();
      expect(await sut.fail([second], 'SMTP 451', retryForADay)).toEqual({
        retrying: 0,
        failed: 1,
      });
      expect(await messageOf(event)).toEqual(
        expect.objectContaining({ attempts: 2, failedAt: expect.any(Date) }),
      );
    });

    it('should change nothing for a claim that was taken over', async () => {
      const event = petEvent(newPetId());
      await publish([event]);
      const [lost] = await claimAll();
      await endLease(lost);
      const takeover = randomUUID();
      await claimAll(takeover);
      const before = await messageOf(event);

      const nothing = { retrying: 0, failed: 0 };
      expect(await sut.fail([lost], 'HTTP 500', RETRY_IN_A_MINUTE)).toEqual(nothing);
      expect(await sut.fail([lost], 'HTTP 500', LAST_ATTEMPT)).toEqual(nothing);

      expect(await messageOf(event)).toEqual(before);
      expect(before).toEqual(
        expect.objectContaining({ claimToken: takeover, lastError: null, failedAt: null }),
      );
    });
  });
});
