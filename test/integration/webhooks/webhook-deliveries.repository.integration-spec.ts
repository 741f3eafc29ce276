import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { PetEventType } from '../../../src/pets/pet-events.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRow,
  type ClaimedDelivery,
  type PetEventFanOut,
} from '../../../src/webhooks/delivery/webhook-deliveries.repository.js';
import type { DeliveryStatus } from '../../../src/webhooks/delivery/webhook-delivery.entity.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/**
 * The body this spec fans out with a pet event: any body will do, as the repository keeps
 * it as given.
 */
const bodyOf = (event: PetEventFanOut['event']) =>
  JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: { id: event.petId } });

/**
 * Every delivery of this spec is made here: the fan-out of `events` in a transaction. How
 * many deliveries it added.
 */
function fanOut(harness: RepositoryHarness, events: PetEventFanOut['event'][]): Promise<number> {
  const sut = harness.get(WebhookDeliveriesRepository);
  return harness.transaction(() =>
    sut.insertForEvents(events.map((event) => ({ event, body: bodyOf(event) }))),
  );
}

let sequence = 0;
let petIds = 1_000;
const newPetId = () => (petIds += 1);

function newEvent(petId: number, type: PetEventType = 'pet.updated'): PetEventFanOut['event'] {
  sequence += 1;
  return {
    sequence,
    id: `evt_${randomUUID()}`,
    type,
    petId,
    occurredAt: new Date().toISOString(),
  };
}

const LEASE_MS = 60_000;
const DAY_MS = 24 * 3_600_000;
const disable = { afterMs: DAY_MS, reason: 'Every delivery failed for 24 hours (last: HTTP 500)' };
const ok = { statusCode: 204, durationMs: 12, error: null, responseBody: null };
const serverError = { statusCode: 500, durationMs: 7, error: 'HTTP 500', responseBody: 'oops' };
const succeeded = { status: 'succeeded' } as const;
const failed = { status: 'failed' } as const;
const retryAt = (nextAttemptAt: Date) => ({ status: 'pending', nextAttemptAt }) as const;
/** `offsetMs` from now, to the millisecond the columns keep. */
const at = (offsetMs = 0) => new Date(Date.now() + offsetMs);

interface DeliveryState {
  id: number;
  eventId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  leaseToken: string | null;
  leasedUntil: Date | null;
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  completedAt: Date | null;
}

interface SubscriptionState {
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  updatedAt: Date;
}

describe(WebhookDeliveriesRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: WebhookDeliveriesRepository;
  let hooks = 0;

  const subscribe = async (
    fields: {
      events?: PetEventType[];
      enabled?: boolean;
      createdAt?: Date;
      previousSecret?: { secret: string; expiresAt: Date };
    } = {},
  ): Promise<number> => {
    const [{ id }] = await harness.query<{ id: number }>(
      // Created a minute ago unless told: before any event of the test, on either clock.
      `INSERT INTO webhook_subscriptions
              (url, events, secret, previous_secret, previous_secret_expires_at, enabled, created_at)
       VALUES ($1, $2, 'whsec_c2VjcmV0', $3, $4, $5, coalesce($6, now() - interval '1 minute'))
       RETURNING id`,
      [
        `http://127.0.0.1:9/hook-${(hooks += 1)}`,
        fields.events ?? ['pet.created', 'pet.updated'],
        fields.previousSecret?.secret ?? null,
        fields.previousSecret?.expiresAt ?? null,
        fields.enabled ?? true,
        fields.createdAt ?? null,
      ],
    );
    return id;
  };
  const deliveriesOf = (subscriptionId: number) =>
    harness.query<DeliveryState>(
      `SELECT id, event_id AS "eventId", status, attempts, next_attempt_at AS "nextAttemptAt",
              lease_token AS "leaseToken", leased_until AS "leasedUntil",
              first_attempt_at AS "firstAttemptAt", last_attempt_at AS "lastAttemptAt",
              completed_at AS "completedAt"
         FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_sequence`,
      [subscriptionId],
    );
  const deliveryOf = async (subscriptionId: number, event: PetEventFanOut['event']) =>
    (await deliveriesOf(subscriptionId)).find((d) => d.eventId === event.id)!;
  const setDelivery = (id: number, assignment: string, params: unknown[] = []) =>
    harness.query(`UPDATE webhook_deliveries SET ${assignment} WHERE id = $1`, [id, ...params]);
  const subscriptionState = async (id: number) =>
    (
      await harness.query<SubscriptionState>(
        `SELECT enabled, disabled_reason AS "disabledReason", failing_since AS "failingSince",
                updated_at AS "updatedAt"
           FROM webhook_subscriptions WHERE id = $1`,
        [id],
      )
    )[0];
  const attemptsOf = (deliveryId: number) =>
    harness.query<AttemptRow>(
      `SELECT attempted_at AS "attemptedAt", status_code AS "statusCode",
              duration_ms AS "durationMs", error, response_body AS "responseBody"
         FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
      [deliveryId],
    );
  const claimAll = (token = randomUUID()) => sut.claim(100, token, LEASE_MS);
  /**
   * Claims the delivery of `event` (to `subscriptionId`, when given): the others the claim
   * took are handed back, as if their leases had passed.
   */
  const claimOf = async (
    event: PetEventFanOut['event'],
    subscriptionId?: number,
  ): Promise<ClaimedDelivery> => {
    const token = randomUUID();
    const claimed = (await claimAll(token)).find(
      (d) => d.eventId === event.id && (subscriptionId ?? d.subscriptionId) === d.subscriptionId,
    );
    if (!claimed) throw new Error(`${event.id} was not claimed`);
    await harness.query(
      `UPDATE webhook_deliveries SET lease_token = NULL, leased_until = NULL
        WHERE lease_token = $1 AND id <> $2`,
      [token, claimed.id],
    );
    return claimed;
  };
  /**
   * A delivery of `event` that has ended, with one attempt. Made a second ago: the pet's later
   * deliveries it releases are due at once.
   */
  const ended = async (
    event: PetEventFanOut['event'],
    outcome: typeof succeeded | typeof failed,
  ) => {
    const claimed = await claimOf(event);
    await sut.recordAttempt(claimed, { ...ok, attemptedAt: at(-1_000) }, outcome, disable);
    return claimed;
  };

  beforeAll(async () => {
    harness = await createRepositoryHarness([WebhookDeliveriesRepository]);
    sut = harness.get(WebhookDeliveriesRepository);
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(async () => {
    // Their deliveries and attempts go with them (ON DELETE CASCADE).
    await harness.query('DELETE FROM webhook_subscriptions');
  });

  describe('insertForEvents', () => {
    it('should add one delivery per enabled subscription that asked for the type and existed when it happened', async () => {
      const wanted = await subscribe({ events: ['pet.created'] });
      const otherType = await subscribe({ events: ['pet.deleted'] });
      const disabled = await subscribe({ events: ['pet.created'], enabled: false });
      const later = await subscribe({
        events: ['pet.created'],
        createdAt: new Date(Date.now() + 60_000),
      });
      const created = newEvent(newPetId(), 'pet.created');

      expect(await fanOut(harness, [created])).toBe(1);

      expect(await deliveriesOf(wanted)).toEqual([
        {
          id: expect.any(Number),
          eventId: created.id,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: expect.any(Date),
          leaseToken: null,
          leasedUntil: null,
          firstAttemptAt: null,
          lastAttemptAt: null,
          completedAt: null,
        },
      ]);
      for (const id of [otherType, disabled, later]) expect(await deliveriesOf(id)).toEqual([]);
      expect(
        await harness.query(
          `SELECT event_sequence AS "eventSequence", event_type AS "eventType", pet_id AS "petId",
                  body
             FROM webhook_deliveries WHERE subscription_id = $1`,
          [wanted],
        ),
      ).toEqual([
        {
          eventSequence: created.sequence,
          eventType: 'pet.created',
          petId: created.petId,
          body: bodyOf(created),
        },
      ]);
    });

    it('should add nothing for an event fanned out again', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);

      expect(await fanOut(harness, [event])).toBe(0);

      expect(await deliveriesOf(id)).toHaveLength(1);
    });

    it('should add nothing when the caller’s transaction rolls back', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());

      await expect(
        harness.transaction(async () => {
          await sut.insertForEvents([{ event, body: bodyOf(event) }]);
          throw new Error('the caller failed');
        }),
      ).rejects.toThrow('the caller failed');

      expect(await deliveriesOf(id)).toEqual([]);
    });

    it('should make a pet’s new delivery due no sooner than its earlier pending one', async () => {
      const id = await subscribe();
      const rex = newPetId();
      const rex1 = newEvent(rex);
      await fanOut(harness, [rex1]);
      const retry = at(60_000);
      await setDelivery((await deliveryOf(id, rex1)).id, 'next_attempt_at = $2', [retry]);
      const [rex2, fido1] = [newEvent(rex), newEvent(newPetId())];

      await fanOut(harness, [rex2, fido1]);

      expect((await deliveryOf(id, rex2)).nextAttemptAt).toEqual(retry);
      expect((await deliveryOf(id, fido1)).nextAttemptAt.getTime()).toBeLessThan(retry.getTime());
    });
  });

  describe('claim', () => {
    it('should lease due deliveries to the token for the lease, with the subscription’s URL and secrets', async () => {
      const previousSecret = { secret: 'whsec_b2xk', expiresAt: at(DAY_MS) };
      const id = await subscribe({ previousSecret });
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const token = randomUUID();

      const claimed = await sut.claim(10, token, LEASE_MS);

      const [{ url }] = await harness.query<{ url: string }>(
        'SELECT url FROM webhook_subscriptions WHERE id = $1',
        [id],
      );
      expect(claimed).toEqual([
        {
          id: (await deliveryOf(id, event)).id,
          subscriptionId: id,
          eventId: event.id,
          body: bodyOf(event),
          attempts: 0,
          firstAttemptAt: null,
          leaseToken: token,
          url,
          secret: 'whsec_c2VjcmV0',
          previousSecret: previousSecret.secret,
          previousSecretExpiresAt: previousSecret.expiresAt,
        },
      ]);
      const [lease] = await harness.query<{ token: string; msLeft: number }>(
        `SELECT lease_token AS token,
                (extract(epoch FROM leased_until - now()) * 1000)::int AS "msLeft"
           FROM webhook_deliveries WHERE subscription_id = $1`,
        [id],
      );
      expect(lease.token).toBe(token);
      expect(lease.msLeft).toBeLessThanOrEqual(LEASE_MS);
      expect(lease.msLeft).toBeGreaterThan(LEASE_MS - 10_000);
    });

    it('should take neither a delivery not due yet nor one that has ended', async () => {
      const id = await subscribe();
      const [notDue, done, gaveUp] = [1, 2, 3].map(() => newEvent(newPetId()));
      await fanOut(harness, [notDue, done, gaveUp]);
      await setDelivery((await deliveryOf(id, notDue)).id, 'next_attempt_at = $2', [at(60_000)]);
      await setDelivery((await deliveryOf(id, done)).id, `status = 'succeeded'`);
      await setDelivery((await deliveryOf(id, gaveUp)).id, `status = 'failed'`);

      expect(await claimAll()).toEqual([]);
    });

    it('should not take a delivery under a live lease, and take it over once the lease has passed', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const first = await claimOf(event);

      expect(await claimAll()).toEqual([]);

      await setDelivery(first.id, `leased_until = now() - interval '1 second'`);
      const takeover = randomUUID();
      const [second] = await claimAll(takeover);
      expect(second).toEqual({ ...first, leaseToken: takeover });
      expect((await deliveryOf(id, event)).leaseToken).toBe(takeover);
    });

    it('should leave a disabled subscription’s deliveries waiting, and take them once it is enabled again', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      await harness.query('UPDATE webhook_subscriptions SET enabled = false WHERE id = $1', [id]);

      expect(await claimAll()).toEqual([]);

      await harness.query('UPDATE webhook_subscriptions SET enabled = true WHERE id = $1', [id]);
      expect((await claimAll()).map((d) => d.eventId)).toEqual([event.id]);
    });

    it('should take only the oldest pending delivery of each subscription and pet', async () => {
      const [first, second] = [await subscribe(), await subscribe()];
      const [rex, fido] = [newPetId(), newPetId()];
      const [rex1, fido1, rex2] = [newEvent(rex), newEvent(fido), newEvent(rex)];
      await fanOut(harness, [rex1, fido1, rex2]);

      const claimed = await claimAll();

      expect(claimed.map((d) => [d.subscriptionId, d.eventId]).sort()).toEqual(
        [
          [first, rex1.id],
          [first, fido1.id],
          [second, rex1.id],
          [second, fido1.id],
        ].sort(),
      );
    });

    it('should keep a pet’s later delivery waiting while the earlier one waits for its retry, even when the later one is due first', async () => {
      const id = await subscribe();
      const rex = newPetId();
      const [rex1, rex2] = [newEvent(rex), newEvent(rex)];
      await fanOut(harness, [rex1, rex2]);
      const earlier = await claimOf(rex1);
      await sut.recordAttempt(
        earlier,
        { ...serverError, attemptedAt: at() },
        retryAt(at(60_000)),
        disable,
      );
      // Retried by hand: due now, behind rex1.
      expect(await sut.makeDueNow(id, (await deliveryOf(id, rex2)).id)).toBe(true);

      expect(await claimAll()).toEqual([]);

      await setDelivery(earlier.id, 'next_attempt_at = now()');
      const [again] = await claimAll();
      expect(again.eventId).toBe(rex1.id);
      await sut.recordAttempt(again, { ...ok, attemptedAt: at(-1_000) }, succeeded, disable);
      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex2.id]);
    });

    it('should take at most `limit` deliveries, those due first, across subscriptions', async () => {
      const [first, second] = [await subscribe(), await subscribe({ events: ['pet.deleted'] })];
      const [dueFirst, dueLast] = [newEvent(newPetId()), newEvent(newPetId())];
      const dueSecond = newEvent(newPetId(), 'pet.deleted');
      await fanOut(harness, [dueFirst, dueLast, dueSecond]);
      const dueAt = async (
        subscriptionId: number,
        event: PetEventFanOut['event'],
        offsetMs: number,
      ) =>
        setDelivery((await deliveryOf(subscriptionId, event)).id, 'next_attempt_at = $2', [
          at(offsetMs),
        ]);
      await dueAt(first, dueFirst, -3_000);
      await dueAt(second, dueSecond, -2_000);
      await dueAt(first, dueLast, -1_000);

      const claimed = await sut.claim(2, randomUUID(), LEASE_MS);

      expect(claimed.map((d) => d.eventId).sort()).toEqual([dueFirst.id, dueSecond.id].sort());
    });

    it('should hand each due delivery to one of several claims made at once', async () => {
      const subscriptionId = await subscribe();
      const events = Array.from({ length: 12 }, () => newEvent(newPetId()));
      await fanOut(harness, events);

      const claims = await Promise.all(
        Array.from({ length: 4 }, () => sut.claim(5, randomUUID(), LEASE_MS)),
      );

      const claimed = claims.flat();
      expect(new Set(claimed.map((d) => d.id)).size).toBe(claimed.length);
      // Every delivery taken, each leased to the claim that returned it.
      const leases = (rows: { id: number; leaseToken: string | null }[]) =>
        rows.map(({ id, leaseToken }) => ({ id, leaseToken })).sort((a, b) => a.id - b.id);
      expect(leases(claimed)).toEqual(leases(await deliveriesOf(subscriptionId)));
    });

    // A session of its own holds the row: PGlite serves one session at a time.
    const onServer = process.env.DATABASE_URL ? it : it.skip;

    onServer(
      'should skip a delivery another session has locked, instead of waiting for it',
      async () => {
        const id = await subscribe();
        const [held, free] = [newEvent(newPetId()), newEvent(newPetId())];
        await fanOut(harness, [held, free]);
        const other = new pg.Client({ connectionString: harness.database.env.DATABASE_URL });
        await other.connect();
        try {
          await other.query('BEGIN');
          await other.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [
            (await deliveryOf(id, held)).id,
          ]);

          expect((await claimAll()).map((d) => d.eventId)).toEqual([free.id]);
        } finally {
          await other.query('ROLLBACK');
          await other.end();
        }
      },
    );
  });

  describe('recordAttempt', () => {
    it('should record a success: the attempt kept, the delivery ended and unleased, the subscription’s failing streak over', async () => {
      const id = await subscribe();
      await harness.query('UPDATE webhook_subscriptions SET failing_since = $2 WHERE id = $1', [
        id,
        at(-3_600_000),
      ]);
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const due = (await deliveryOf(id, event)).nextAttemptAt;
      const claimed = await claimOf(event);
      const attemptedAt = at(-1_000);

      const recorded = await sut.recordAttempt(claimed, { ...ok, attemptedAt }, succeeded, disable);

      expect(recorded).toEqual({ disabledSubscription: false });
      expect(await deliveriesOf(id)).toEqual([
        {
          id: claimed.id,
          eventId: event.id,
          status: 'succeeded',
          attempts: 1,
          nextAttemptAt: due,
          leaseToken: null,
          leasedUntil: null,
          firstAttemptAt: attemptedAt,
          lastAttemptAt: attemptedAt,
          completedAt: new Date(attemptedAt.getTime() + ok.durationMs),
        },
      ]);
      expect(await attemptsOf(claimed.id)).toEqual([{ ...ok, attemptedAt }]);
      expect(await subscriptionState(id)).toEqual(
        expect.objectContaining({ enabled: true, failingSince: null }),
      );
    });

    it('should record a failure to retry: pending until the retry, unleased, and the subscription failing since the attempt', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await claimOf(event);
      const attemptedAt = at(-1_000);
      const nextAttemptAt = at(30_000);

      const recorded = await sut.recordAttempt(
        claimed,
        { ...serverError, attemptedAt },
        retryAt(nextAttemptAt),
        disable,
      );

      expect(recorded).toEqual({ disabledSubscription: false });
      expect(await deliveriesOf(id)).toEqual([
        {
          id: claimed.id,
          eventId: event.id,
          status: 'pending',
          attempts: 1,
          nextAttemptAt,
          leaseToken: null,
          leasedUntil: null,
          firstAttemptAt: attemptedAt,
          lastAttemptAt: attemptedAt,
          completedAt: null,
        },
      ]);
      expect(await attemptsOf(claimed.id)).toEqual([{ ...serverError, attemptedAt }]);
      expect(await subscriptionState(id)).toEqual(
        expect.objectContaining({ enabled: true, disabledReason: null, failingSince: attemptedAt }),
      );
    });

    it('should keep the first attempt’s time and the streak’s start across retries', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const [first, second] = [at(-2_000), at(-1_000)];
      await sut.recordAttempt(
        await claimOf(event),
        { ...serverError, attemptedAt: first },
        retryAt(first),
        disable,
      );
      const again = await claimOf(event);
      expect(again.attempts).toBe(1);
      expect(again.firstAttemptAt).toEqual(first);

      await sut.recordAttempt(again, { ...serverError, attemptedAt: second }, failed, disable);

      expect(await deliveryOf(id, event)).toEqual(
        expect.objectContaining({
          status: 'failed',
          attempts: 2,
          firstAttemptAt: first,
          lastAttemptAt: second,
          completedAt: new Date(second.getTime() + serverError.durationMs),
        }),
      );
      expect((await attemptsOf(again.id)).map((a) => a.attemptedAt)).toEqual([first, second]);
      expect((await subscriptionState(id)).failingSince).toEqual(first);
    });

    it('should hold the pet’s later pending deliveries of the subscription until the retry, and no others', async () => {
      const [id, otherId] = [await subscribe(), await subscribe()];
      const [rex, fido] = [newPetId(), newPetId()];
      const [rex1, rex2, rex3, fido1] = [
        newEvent(rex),
        newEvent(rex),
        newEvent(rex),
        newEvent(fido),
      ];
      await fanOut(harness, [rex1, rex2, rex3, fido1]);
      const nextAttemptAt = at(60_000);
      const alreadyLater = at(120_000);
      await setDelivery((await deliveryOf(id, rex3)).id, 'next_attempt_at = $2', [alreadyLater]);
      const before = {
        fido1: (await deliveryOf(id, fido1)).nextAttemptAt,
        otherRex2: (await deliveryOf(otherId, rex2)).nextAttemptAt,
      };
      const claimed = await claimOf(rex1, id);

      await sut.recordAttempt(
        claimed,
        { ...serverError, attemptedAt: at() },
        retryAt(nextAttemptAt),
        disable,
      );

      expect((await deliveryOf(id, rex2)).nextAttemptAt).toEqual(nextAttemptAt);
      expect((await deliveryOf(id, rex3)).nextAttemptAt).toEqual(alreadyLater);
      expect((await deliveryOf(id, fido1)).nextAttemptAt).toEqual(before.fido1);
      expect((await deliveryOf(otherId, rex2)).nextAttemptAt).toEqual(before.otherRex2);
    });

    it('should make the deliveries held for it due when it ends before its retry, except those already attempted', async () => {
      const id = await subscribe();
      const rex = newPetId();
      const [rex1, rex2, rex3] = [newEvent(rex), newEvent(rex), newEvent(rex)];
      await fanOut(harness, [rex1, rex2, rex3]);
      const claimed = await claimOf(rex1);
      const retry = at(60_000);
      await sut.recordAttempt(
        claimed,
        { ...serverError, attemptedAt: at() },
        retryAt(retry),
        disable,
      );
      // rex3 was sent once before (a retry by hand made an earlier delivery pending again).
      await setDelivery((await deliveryOf(id, rex3)).id, 'attempts = 1');
      expect(await sut.makeDueNow(id, claimed.id)).toBe(true);
      // A second ago, so that the delivery it releases is due at once.
      const attemptedAt = at(-1_000);

      await sut.recordAttempt(await claimOf(rex1), { ...ok, attemptedAt }, succeeded, disable);

      expect((await deliveryOf(id, rex2)).nextAttemptAt).toEqual(
        new Date(attemptedAt.getTime() + ok.durationMs),
      );
      expect((await deliveryOf(id, rex3)).nextAttemptAt).toEqual(retry);
      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex2.id]);
    });

    it('should let the pet’s next delivery go once the earlier one has failed for good', async () => {
      await subscribe();
      const rex = newPetId();
      const [rex1, rex2] = [newEvent(rex), newEvent(rex)];
      await fanOut(harness, [rex1, rex2]);

      await ended(rex1, failed);

      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex2.id]);
    });

    it('should write nothing for a worker whose lease was taken over', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const lost = await claimOf(event);
      await setDelivery(lost.id, `leased_until = now() - interval '1 second'`);
      const taken = await claimOf(event);

      expect(
        await sut.recordAttempt(lost, { ...serverError, attemptedAt: at() }, failed, disable),
      ).toBeUndefined();

      expect(await deliveryOf(id, event)).toEqual(
        expect.objectContaining({ status: 'pending', attempts: 0, leaseToken: taken.leaseToken }),
      );
      expect(await attemptsOf(lost.id)).toEqual([]);
      expect((await subscriptionState(id)).failingSince).toBeNull();
    });

    it('should record the attempt of a lease that passed while no other worker took the delivery', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await claimOf(event);
      await setDelivery(claimed.id, `leased_until = now() - interval '1 second'`);

      expect(
        await sut.recordAttempt(claimed, { ...ok, attemptedAt: at() }, succeeded, disable),
      ).toEqual({ disabledSubscription: false });

      expect(await deliveryOf(id, event)).toEqual(
        expect.objectContaining({ status: 'succeeded', attempts: 1, leaseToken: null }),
      );
    });

    it('should write nothing for a delivery deleted with its subscription meanwhile', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await claimOf(event);
      await harness.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);

      expect(
        await sut.recordAttempt(claimed, { ...ok, attemptedAt: at() }, succeeded, disable),
      ).toBeUndefined();

      expect(await attemptsOf(claimed.id)).toEqual([]);
    });

    describe('disabling a failing subscription', () => {
      const attemptedAt = at(-60_000);
      const finishedAt = new Date(attemptedAt.getTime() + serverError.durationMs);

      const failingSince = async (id: number, since: Date) => {
        await harness.query('UPDATE webhook_subscriptions SET failing_since = $2 WHERE id = $1', [
          id,
          since,
        ]);
      };
      const failOnce = async (id: number) => {
        const event = newEvent(newPetId());
        await fanOut(harness, [event]);
        return sut.recordAttempt(
          await claimOf(event, id),
          { ...serverError, attemptedAt },
          failed,
          disable,
        );
      };

      it('should disable it, saying why, once its failures have lasted the period at the attempt’s end', async () => {
        const id = await subscribe();
        await failingSince(id, new Date(finishedAt.getTime() - disable.afterMs));

        expect(await failOnce(id)).toEqual({ disabledSubscription: true });

        expect(await subscriptionState(id)).toEqual({
          enabled: false,
          disabledReason: disable.reason,
          failingSince: new Date(finishedAt.getTime() - disable.afterMs),
          updatedAt: finishedAt,
        });
      });

      it('should keep it enabled a millisecond short of the period', async () => {
        const id = await subscribe();
        await failingSince(id, new Date(finishedAt.getTime() - disable.afterMs + 1));

        expect(await failOnce(id)).toEqual({ disabledSubscription: false });

        expect(await subscriptionState(id)).toEqual(
          expect.objectContaining({ enabled: true, disabledReason: null }),
        );
      });

      it('should neither report nor rewrite a subscription disabled while the attempt ran', async () => {
        const id = await subscribe();
        const event = newEvent(newPetId());
        await fanOut(harness, [event]);
        const claimed = await claimOf(event);
        await failingSince(id, new Date(finishedAt.getTime() - 2 * disable.afterMs));
        await harness.query(
          `UPDATE webhook_subscriptions SET enabled = false, disabled_reason = 'Disabled by an admin'
            WHERE id = $1`,
          [id],
        );

        expect(
          await sut.recordAttempt(claimed, { ...serverError, attemptedAt }, failed, disable),
        ).toEqual({ disabledSubscription: false });

        expect(await subscriptionState(id)).toEqual(
          expect.objectContaining({ enabled: false, disabledReason: 'Disabled by an admin' }),
        );
      });

      it('should leave a disabled subscription disabled on a success, its streak over', async () => {
        const id = await subscribe();
        const event = newEvent(newPetId());
        await fanOut(harness, [event]);
        const claimed = await claimOf(event);
        await failingSince(id, attemptedAt);
        await harness.query(
          `UPDATE webhook_subscriptions SET enabled = false, disabled_reason = 'Disabled by an admin'
            WHERE id = $1`,
          [id],
        );

        await sut.recordAttempt(claimed, { ...ok, attemptedAt }, succeeded, disable);

        expect(await subscriptionState(id)).toEqual(
          expect.objectContaining({
            enabled: false,
            disabledReason: 'Disabled by an admin',
            failingSince: null,
          }),
        );
      });
    });
  });

  describe('the delivery log', () => {
    describe('findPage', () => {
      it('should list the subscription’s deliveries newest first, a page at a time, with the total', async () => {
        const [id, otherId] = [await subscribe(), await subscribe({ events: ['pet.deleted'] })];
        const events = Array.from({ length: 5 }, () => newEvent(newPetId()));
        await fanOut(harness, [...events, newEvent(newPetId(), 'pet.deleted')]);
        const newestFirst = (await deliveriesOf(id)).map((d) => d.id).reverse();
        const page = async (limit: number, offset: number) => {
          const { deliveries, total } = await sut.findPage(id, undefined, limit, offset);
          return { ids: deliveries.map((d) => d.id), total };
        };

        expect(await page(2, 0)).toEqual({ ids: newestFirst.slice(0, 2), total: 5 });
        expect(await page(2, 2)).toEqual({ ids: newestFirst.slice(2, 4), total: 5 });
        expect(await page(2, 4)).toEqual({ ids: newestFirst.slice(4), total: 5 });
        expect(await page(2, 6)).toEqual({ ids: [], total: 5 });
        expect((await sut.findPage(otherId, undefined, 10, 0)).total).toBe(1);
      });

      it('should filter by status, the total too', async () => {
        const id = await subscribe();
        const [pending, done, gaveUp, doneToo] = [1, 2, 3, 4].map(() => newEvent(newPetId()));
        await fanOut(harness, [pending, done, gaveUp, doneToo]);
        await ended(done, succeeded);
        await ended(gaveUp, failed);
        await ended(doneToo, succeeded);
        const eventsWith = async (status: DeliveryStatus) => {
          const { deliveries, total } = await sut.findPage(id, status, 10, 0);
          return { eventIds: deliveries.map((d) => d.eventId), total };
        };

        expect(await eventsWith('succeeded')).toEqual({
          eventIds: [doneToo.id, done.id],
          total: 2,
        });
        expect(await eventsWith('failed')).toEqual({ eventIds: [gaveUp.id], total: 1 });
        expect(await eventsWith('pending')).toEqual({ eventIds: [pending.id], total: 1 });
      });

      it('should show each delivery with its latest attempt, without the response body', async () => {
        const id = await subscribe();
        const rex = newPetId();
        const [tried, untried] = [newEvent(rex, 'pet.created'), newEvent(newPetId())];
        await fanOut(harness, [tried, untried]);
        const first = await claimOf(tried);
        const [firstAt, latestAt] = [at(-2_000), at(-1_000)];
        await sut.recordAttempt(
          first,
          { ...serverError, attemptedAt: firstAt },
          retryAt(firstAt),
          disable,
        );
        await sut.recordAttempt(
          await claimOf(tried),
          { ...ok, statusCode: 200, attemptedAt: latestAt },
          succeeded,
          disable,
        );
        const rows = await deliveriesOf(id);

        const { deliveries } = await sut.findPage(id, undefined, 10, 0);

        expect(deliveries).toEqual([
          {
            id: rows[1].id,
            subscriptionId: id,
            eventId: untried.id,
            eventType: 'pet.updated',
            petId: untried.petId,
            status: 'pending',
            attempts: 0,
            nextAttemptAt: rows[1].nextAttemptAt,
            createdAt: expect.any(Date),
            completedAt: null,
            lastAttempt: null,
          },
          {
            id: rows[0].id,
            subscriptionId: id,
            eventId: tried.id,
            eventType: 'pet.created',
            petId: rex,
            status: 'succeeded',
            attempts: 2,
            nextAttemptAt: firstAt,
            createdAt: expect.any(Date),
            completedAt: new Date(latestAt.getTime() + ok.durationMs),
            lastAttempt: { attemptedAt: latestAt, statusCode: 200, durationMs: 12, error: null },
          },
        ]);
      });

      it('should answer an empty page for a subscription without deliveries, or one that does not exist', async () => {
        const id = await subscribe();

        expect(await sut.findPage(id, undefined, 10, 0)).toEqual({ deliveries: [], total: 0 });
        expect(await sut.findPage(id + 1_000, undefined, 10, 0)).toEqual({
          deliveries: [],
          total: 0,
        });
      });
    });

    describe('findOne', () => {
      it('should find the subscription’s delivery as the page shows it', async () => {
        const id = await subscribe();
        const event = newEvent(newPetId());
        await fanOut(harness, [event]);
        await ended(event, failed);
        const {
          deliveries: [listed],
        } = await sut.findPage(id, undefined, 1, 0);

        expect(await sut.findOne(id, listed.id)).toEqual(listed);
      });

      it('should find nothing under another subscription, nor an unknown delivery', async () => {
        const [id, otherId] = [await subscribe(), await subscribe({ events: ['pet.deleted'] })];
        const event = newEvent(newPetId());
        await fanOut(harness, [event]);
        const delivery = await deliveryOf(id, event);

        expect(await sut.findOne(otherId, delivery.id)).toBeUndefined();
        expect(await sut.findOne(id, delivery.id + 1_000)).toBeUndefined();
      });
    });

    describe('findAttempts', () => {
      it('should list the latest attempts first, up to the limit, with their response bodies', async () => {
        const subscriptionId = await subscribe();
        const event = newEvent(newPetId());
        await fanOut(harness, [event]);
        const times = [at(-3_000), at(-2_000), at(-1_000)];
        for (const attemptedAt of times) {
          await sut.recordAttempt(
            await claimOf(event),
            { ...serverError, responseBody: `oops at ${attemptedAt.toISOString()}`, attemptedAt },
            retryAt(at(-1_000)),
            disable,
          );
        }
        const { id } = await deliveryOf(subscriptionId, event);

        expect(await sut.findAttempts(id, 2)).toEqual(
          [times[2], times[1]].map((attemptedAt) => ({
            ...serverError,
            responseBody: `oops at ${attemptedAt.toISOString()}`,
            attemptedAt,
          })),
        );
        expect(await sut.findAttempts(id + 1_000, 2)).toEqual([]);
      });
    });

    describe('subscriptionExists', () => {
      it('should tell a subscription that exists from one deleted', async () => {
        const id = await subscribe();
        const deleted = await subscribe();
        await harness.query('DELETE FROM webhook_subscriptions WHERE id = $1', [deleted]);

        expect(await sut.subscriptionExists(id)).toBe(true);
        expect(await sut.subscriptionExists(deleted)).toBe(false);
      });
    });
  });

  describe('deleteEndedBefore', () => {
    it('should delete up to `limit` deliveries that ended before the time, with their attempts, and keep the rest', async () => {
      const id = await subscribe();
      const events = Array.from({ length: 5 }, () => newEvent(newPetId()));
      await fanOut(harness, events);
      const [oldDone, oldFailed, olderDone, atTheLimit, pending] = events;
      const before = at(-DAY_MS);
      for (const [event, outcome, completedAt] of [
        [oldDone, succeeded, at(-DAY_MS - 3_000)],
        [oldFailed, failed, at(-DAY_MS - 2_000)],
        [olderDone, succeeded, at(-DAY_MS - 1_000)],
        [atTheLimit, succeeded, before],
      ] as const) {
        const { id: deliveryId } = await ended(event, outcome);
        await setDelivery(deliveryId, 'completed_at = $2', [completedAt]);
      }
      const oldIds = await Promise.all(
        [oldDone, oldFailed, olderDone].map(async (event) => (await deliveryOf(id, event)).id),
      );

      expect(await sut.deleteEndedBefore(before, 2)).toBe(2);
      expect(await sut.deleteEndedBefore(before, 2)).toBe(1);
      expect(await sut.deleteEndedBefore(before, 2)).toBe(0);

      expect((await deliveriesOf(id)).map((d) => d.eventId)).toEqual([atTheLimit.id, pending.id]);
      const [{ left }] = await harness.query<{ left: number }>(
        'SELECT count(*)::int AS left FROM webhook_delivery_attempts WHERE delivery_id = ANY ($1)',
        [oldIds],
      );
      expect(left).toBe(0);
    });
  });

  describe('makeDueNow (retry by hand)', () => {
    it('should make an ended delivery pending and due now, forgetting its first attempt and keeping its count', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const { id: deliveryId } = await ended(event, failed);

      expect(await sut.makeDueNow(id, deliveryId)).toBe(true);

      expect(await deliveryOf(id, event)).toEqual(
        expect.objectContaining({
          status: 'pending',
          attempts: 1,
          firstAttemptAt: null,
          completedAt: null,
          leaseToken: null,
        }),
      );
      const [again] = await claimAll();
      expect(again).toEqual(expect.objectContaining({ id: deliveryId, attempts: 1 }));
    });

    it('should make a pending delivery waiting for its retry due now', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await claimOf(event);
      await sut.recordAttempt(
        claimed,
        { ...serverError, attemptedAt: at() },
        retryAt(at(60_000)),
        disable,
      );

      expect(await sut.makeDueNow(id, claimed.id)).toBe(true);

      expect((await claimAll()).map((d) => d.id)).toEqual([claimed.id]);
    });

    it('should leave a delivery being sent to its worker, who records the attempt', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await claimOf(event);

      expect(await sut.makeDueNow(id, claimed.id)).toBe(true);

      expect(await claimAll()).toEqual([]);
      expect(
        await sut.recordAttempt(claimed, { ...ok, attemptedAt: at() }, succeeded, disable),
      ).toEqual({ disabledSubscription: false });
      expect((await deliveryOf(id, event)).status).toBe('succeeded');
    });

    it('should make the pet’s later pending deliveries wait for the delivery retried', async () => {
      const id = await subscribe();
      const rex = newPetId();
      const [rex1, rex2] = [newEvent(rex), newEvent(rex)];
      await fanOut(harness, [rex1, rex2]);
      const { id: deliveryId } = await ended(rex1, succeeded);

      expect(await sut.makeDueNow(id, deliveryId)).toBe(true);

      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex1.id]);
    });

    it('should change nothing for another subscription’s delivery or an unknown one', async () => {
      const [id, otherId] = [await subscribe(), await subscribe({ events: ['pet.deleted'] })];
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const { id: deliveryId } = await ended(event, failed);

      expect(await sut.makeDueNow(otherId, deliveryId)).toBe(false);
      expect(await sut.makeDueNow(id, deliveryId + 1_000)).toBe(false);

      expect((await deliveryOf(id, event)).status).toBe('failed');
    });
  });
});
