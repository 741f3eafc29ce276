import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { PetEventType } from '../../../src/pets/pet-events.js';
import {
  WebhookDeliveriesRepository,
  type AttemptRow,
  type DeliveryToSend,
  type EventFanOut,
  type FilteredPet,
  type QueuedDelivery,
} from '../../../src/webhooks/delivery/webhook-deliveries.repository.js';
import { WEBHOOK_OWNER_ROLES } from '../../../src/webhooks/webhook-event-types.js';
import type { DeliveryStatus } from '../../../src/webhooks/delivery/webhook-delivery.entity.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/**
 * The body this spec fans out with a pet event: any body will do, as the repository keeps
 * it as given.
 */
const bodyOf = (event: EventFanOut['event']) =>
  JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: { id: event.petId } });

/** An event as the fan-out hands it over: any staff owner may read it, unfiltered unless given a pet. */
const fanOutOf = (event: EventFanOut['event'], pet: FilteredPet | null = null): EventFanOut => ({
  event,
  body: bodyOf(event),
  readers: WEBHOOK_OWNER_ROLES,
  pet,
});

/**
 * Every delivery of this spec is made here: the fan-out of `events` in a transaction. The
 * deliveries it added.
 */
function fanOut(
  harness: RepositoryHarness,
  events: EventFanOut['event'][],
): Promise<QueuedDelivery[]> {
  const sut = harness.get(WebhookDeliveriesRepository);
  return harness.transaction(() => sut.insertForEvents(events.map((event) => fanOutOf(event))));
}

let sequence = 0;
let petIds = 1_000;
const newPetId = () => (petIds += 1);

function newEvent(petId: number, type: PetEventType = 'pet.updated'): EventFanOut['event'] {
  sequence += 1;
  return {
    sequence,
    id: `evt_${randomUUID()}`,
    type,
    petId,
    occurredAt: new Date().toISOString(),
  };
}

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
      ownerId?: number;
      filters?: { categoryIds?: number[]; statuses?: string[]; tags?: string[] };
    } = {},
  ): Promise<number> => {
    const [{ id }] = await harness.query<{ id: number }>(
      // Created a minute ago unless told: before any event of the test, on either clock.
      `INSERT INTO webhook_subscriptions
              (url, events, secret, previous_secret, previous_secret_expires_at, enabled, created_at,
               owner_id, filter_category_ids, filter_statuses, filter_tags)
       VALUES ($1, $2, 'whsec_c2VjcmV0', $3, $4, $5, coalesce($6, now() - interval '1 minute'),
               $7, $8, $9, $10)
       RETURNING id`,
      [
        `http://127.0.0.1:9/hook-${(hooks += 1)}`,
        fields.events ?? ['pet.created', 'pet.updated'],
        fields.previousSecret?.secret ?? null,
        fields.previousSecret?.expiresAt ?? null,
        fields.enabled ?? true,
        fields.createdAt ?? null,
        fields.ownerId ?? null,
        fields.filters?.categoryIds ?? null,
        fields.filters?.statuses ?? null,
        fields.filters?.tags ?? null,
      ],
    );
    return id;
  };
  let users = 0;
  /** A user of this role and status, to own subscriptions. */
  const newUser = async (role: 'admin' | 'user' | 'customer', userStatus = 0): Promise<number> => {
    users += 1;
    const [{ id }] = await harness.query<{ id: number }>(
      `INSERT INTO users (username, email, password_hash, role, user_status)
       VALUES ($1, $2, 'not a hash', $3, $4) RETURNING id`,
      [`owner${users}`, `owner${users}.${randomUUID()}@example.com`, role, userStatus],
    );
    return id;
  };
  const deliveriesOf = (subscriptionId: number) =>
    harness.query<DeliveryState>(
      `SELECT id, event_id AS "eventId", status, attempts, next_attempt_at AS "nextAttemptAt",
              first_attempt_at AS "firstAttemptAt", last_attempt_at AS "lastAttemptAt",
              completed_at AS "completedAt"
         FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_sequence`,
      [subscriptionId],
    );
  const deliveryOf = async (subscriptionId: number, event: EventFanOut['event']) =>
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
  /** The delivery of `event` (to `subscriptionId`, when given) as its job finds it. */
  const toSend = async (
    event: EventFanOut['event'],
    subscriptionId?: number,
  ): Promise<DeliveryToSend> => {
    const [row] = await harness.query<{ id: number }>(
      `SELECT id FROM webhook_deliveries
        WHERE event_id = $1 AND ($2::bigint IS NULL OR subscription_id = $2)`,
      [event.id, subscriptionId ?? null],
    );
    const delivery = row && (await sut.findToSend(row.id));
    if (!delivery) throw new Error(`${event.id} has no delivery`);
    return delivery;
  };
  /**
   * A delivery of `event` that has ended, with one attempt. Made a second ago: the pet's later
   * deliveries it releases are due at once.
   */
  const ended = async (
    event: EventFanOut['event'],
    outcome: typeof succeeded | typeof failed,
    subscriptionId?: number,
  ) => {
    const claimed = await toSend(event, subscriptionId);
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

      expect(await fanOut(harness, [created])).toEqual([
        { id: expect.any(Number), subscriptionId: wanted, petId: created.petId },
      ]);

      expect(await deliveriesOf(wanted)).toEqual([
        {
          id: expect.any(Number),
          eventId: created.id,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: expect.any(Date),
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

    it('should add deliveries only to subscriptions of active owners whose role reads the event, and to the store’s own', async () => {
      const byUser = await subscribe({ ownerId: await newUser('user') });
      const byAdmin = await subscribe({ ownerId: await newUser('admin') });
      const stores = await subscribe();
      const byCustomer = await subscribe({ ownerId: await newUser('customer') });
      const byDisabled = await subscribe({ ownerId: await newUser('user', 1) });
      const event = newEvent(newPetId());
      const adminsOnly = newEvent(newPetId());

      await harness.transaction(() =>
        sut.insertForEvents([fanOutOf(event), { ...fanOutOf(adminsOnly), readers: ['admin'] }]),
      );

      const eventsOf = async (id: number) => (await deliveriesOf(id)).map((d) => d.eventId);
      expect(await eventsOf(byUser)).toEqual([event.id]);
      expect(await eventsOf(byAdmin)).toEqual([event.id, adminsOnly.id]);
      expect(await eventsOf(stores)).toEqual([event.id, adminsOnly.id]);
      expect(await eventsOf(byCustomer)).toEqual([]);
      expect(await eventsOf(byDisabled)).toEqual([]);
    });

    it('should add a pet event only where every filter set matches its pet, tags case-insensitively', async () => {
      const pet: FilteredPet = { categoryId: 4, status: 'sold', tags: ['Calm', 'small'] };
      const matching = [
        await subscribe(),
        await subscribe({ filters: { categoryIds: [3, 4] } }),
        await subscribe({ filters: { statuses: ['sold'] } }),
        await subscribe({ filters: { tags: ['calm'] } }),
        await subscribe({ filters: { tags: ['loud', 'SMALL'] } }),
        await subscribe({
          filters: { categoryIds: [4], statuses: ['available', 'sold'], tags: ['calm'] },
        }),
      ];
      const filteredOut = [
        await subscribe({ filters: { categoryIds: [3] } }),
        await subscribe({ filters: { statuses: ['available'] } }),
        await subscribe({ filters: { tags: ['loud'] } }),
        await subscribe({ filters: { categoryIds: [4], statuses: ['pending'] } }),
      ];
      const event = newEvent(newPetId());

      await harness.transaction(() => sut.insertForEvents([fanOutOf(event, pet)]));

      for (const id of matching) expect(await deliveriesOf(id)).toHaveLength(1);
      for (const id of filteredOut) expect(await deliveriesOf(id)).toEqual([]);
    });

    it('should match a tag filter against no tag at all with nothing', async () => {
      const tagged = await subscribe({ filters: { tags: ['calm'] } });
      const event = newEvent(newPetId());

      await harness.transaction(() =>
        sut.insertForEvents([fanOutOf(event, { categoryId: 1, status: 'available', tags: [] })]),
      );

      expect(await deliveriesOf(tagged)).toEqual([]);
    });

    it('should not filter an event without a pet to match (an adoption’s)', async () => {
      const filtered = await subscribe({
        filters: { categoryIds: [3], statuses: ['available'], tags: ['calm'] },
      });
      const event = newEvent(newPetId());

      await fanOut(harness, [event]);

      expect(await deliveriesOf(filtered)).toHaveLength(1);
    });

    it('should add nothing for an event fanned out again', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);

      expect(await fanOut(harness, [event])).toEqual([]);

      expect(await deliveriesOf(id)).toHaveLength(1);
    });

    it('should answer the deliveries added in the order of their events', async () => {
      const [first, second] = [await subscribe(), await subscribe()];
      const [rex, fido] = [newPetId(), newPetId()];
      const events = [newEvent(rex), newEvent(fido), newEvent(rex)];

      const added = await fanOut(harness, events);

      expect(added.map((d) => [d.subscriptionId, d.petId])).toEqual([
        [first, rex],
        [second, rex],
        [first, fido],
        [second, fido],
        [first, rex],
        [second, rex],
      ]);
      const ids = await Promise.all(
        events.map(async (event) => (await deliveryOf(first, event)).id),
      );
      expect(added.filter((d) => d.subscriptionId === first).map((d) => d.id)).toEqual(ids);
    });

    it('should add nothing when the caller’s transaction rolls back', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());

      await expect(
        harness.transaction(async () => {
          await sut.insertForEvents([fanOutOf(event)]);
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

  describe('findToSend', () => {
    it('should find the delivery with the subscription’s URL and secrets, due', async () => {
      const previousSecret = { secret: 'whsec_b2xk', expiresAt: at(DAY_MS) };
      const id = await subscribe({ previousSecret });
      const event = newEvent(newPetId());
      const [{ id: deliveryId }] = await fanOut(harness, [event]);

      const found = await sut.findToSend(deliveryId);

      const [{ url }] = await harness.query<{ url: string }>(
        'SELECT url FROM webhook_subscriptions WHERE id = $1',
        [id],
      );
      expect(found).toEqual({
        id: deliveryId,
        subscriptionId: id,
        status: 'pending',
        enabled: true,
        nextAttemptAt: (await deliveryOf(id, event)).nextAttemptAt,
        notDueYet: false,
        eventId: event.id,
        body: bodyOf(event),
        attempts: 0,
        firstAttemptAt: null,
        url,
        secret: 'whsec_c2VjcmV0',
        previousSecret: previousSecret.secret,
        previousSecretExpiresAt: previousSecret.expiresAt,
      });
    });

    it('should say when its next attempt is still ahead, its subscription disabled, or it ended', async () => {
      const id = await subscribe();
      const [waiting, done] = [newEvent(newPetId()), newEvent(newPetId())];
      await fanOut(harness, [waiting, done]);
      await setDelivery((await deliveryOf(id, waiting)).id, 'next_attempt_at = $2', [at(60_000)]);
      await ended(done, succeeded);
      await harness.query('UPDATE webhook_subscriptions SET enabled = false WHERE id = $1', [id]);

      expect(await toSend(waiting)).toEqual(
        expect.objectContaining({ status: 'pending', notDueYet: true, enabled: false }),
      );
      expect(await toSend(done)).toEqual(expect.objectContaining({ status: 'succeeded' }));
    });

    it('should find nothing once the subscription is deleted', async () => {
      const id = await subscribe();
      const [{ id: deliveryId }] = await fanOut(harness, [newEvent(newPetId())]);
      await harness.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);

      expect(await sut.findToSend(deliveryId)).toBeUndefined();
    });
  });

  describe('findPending', () => {
    it('should list the subscription’s pending deliveries in event order, and no others', async () => {
      const [id, otherId] = [await subscribe(), await subscribe()];
      const [rex, fido] = [newPetId(), newPetId()];
      const [rex1, fido1, rex2] = [newEvent(rex), newEvent(fido), newEvent(rex)];
      await fanOut(harness, [rex1, fido1, rex2]);
      await ended(rex1, succeeded, id);

      const pending = await sut.findPending(id);

      expect(pending).toEqual([
        { id: (await deliveryOf(id, fido1)).id, subscriptionId: id, petId: fido },
        { id: (await deliveryOf(id, rex2)).id, subscriptionId: id, petId: rex },
      ]);
      expect(await sut.findPending(otherId)).toHaveLength(3);
    });
  });

  describe('recordAttempt', () => {
    it('should record a success: the attempt kept, the delivery ended, the subscription’s failing streak over', async () => {
      const id = await subscribe();
      await harness.query('UPDATE webhook_subscriptions SET failing_since = $2 WHERE id = $1', [
        id,
        at(-3_600_000),
      ]);
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const due = (await deliveryOf(id, event)).nextAttemptAt;
      const claimed = await toSend(event);
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

    it('should record a failure to retry: pending until the retry, and the subscription failing since the attempt', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await toSend(event);
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
        await toSend(event),
        { ...serverError, attemptedAt: first },
        retryAt(first),
        disable,
      );
      const again = await toSend(event);
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
      const claimed = await toSend(rex1, id);

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
      const claimed = await toSend(rex1);
      const retry = at(60_000);
      await sut.recordAttempt(
        claimed,
        { ...serverError, attemptedAt: at() },
        retryAt(retry),
        disable,
      );
      // rex3 was sent once before (a retry by hand made an earlier delivery pending again).
      await setDelivery((await deliveryOf(id, rex3)).id, 'attempts = 1');
      expect(await sut.makeDueNow(id, claimed.id)).toBeDefined();
      // A second ago, so that the delivery it releases is due at once.
      const attemptedAt = at(-1_000);

      await sut.recordAttempt(await toSend(rex1), { ...ok, attemptedAt }, succeeded, disable);

      expect((await deliveryOf(id, rex2)).nextAttemptAt).toEqual(
        new Date(attemptedAt.getTime() + ok.durationMs),
      );
      expect((await deliveryOf(id, rex3)).nextAttemptAt).toEqual(retry);
      expect((await toSend(rex2)).notDueYet).toBe(false);
    });

    it('should write nothing for a delivery that ended meanwhile (sent by another job)', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const [first, second] = [await toSend(event), await toSend(event)];
      await sut.recordAttempt(first, { ...ok, attemptedAt: at() }, succeeded, disable);

      expect(
        await sut.recordAttempt(second, { ...serverError, attemptedAt: at() }, failed, disable),
      ).toBeUndefined();

      expect(await deliveryOf(id, event)).toEqual(
        expect.objectContaining({ status: 'succeeded', attempts: 1 }),
      );
      expect(await attemptsOf(first.id)).toHaveLength(1);
      expect((await subscriptionState(id)).failingSince).toBeNull();
    });

    it('should write nothing for a delivery deleted with its subscription meanwhile', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await toSend(event);
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
          await toSend(event, id),
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
        const claimed = await toSend(event);
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
        const claimed = await toSend(event);
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
        const first = await toSend(tried);
        const [firstAt, latestAt] = [at(-2_000), at(-1_000)];
        await sut.recordAttempt(
          first,
          { ...serverError, attemptedAt: firstAt },
          retryAt(firstAt),
          disable,
        );
        await sut.recordAttempt(
          await toSend(tried),
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
            await toSend(event),
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

        expect(await sut.subscriptionExists(id, undefined)).toBe(true);
        expect(await sut.subscriptionExists(deleted, undefined)).toBe(false);
      });

      it('should tell an owner’s subscription from someone else’s and the store’s own', async () => {
        const owner = await newUser('user');
        const own = await subscribe({ ownerId: owner });
        const others = await subscribe({ ownerId: await newUser('user') });
        const stores = await subscribe();

        expect(await sut.subscriptionExists(own, owner)).toBe(true);
        expect(await sut.subscriptionExists(others, owner)).toBe(false);
        expect(await sut.subscriptionExists(stores, owner)).toBe(false);
        expect(await sut.subscriptionExists(others, undefined)).toBe(true);
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

      expect(await sut.makeDueNow(id, deliveryId)).toEqual({
        id: deliveryId,
        subscriptionId: id,
        petId: event.petId,
      });

      expect(await deliveryOf(id, event)).toEqual(
        expect.objectContaining({
          status: 'pending',
          attempts: 1,
          firstAttemptAt: null,
          completedAt: null,
        }),
      );
      expect(await toSend(event)).toEqual(
        expect.objectContaining({ id: deliveryId, attempts: 1, notDueYet: false }),
      );
    });

    it('should make a pending delivery waiting for its retry due now', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await toSend(event);
      await sut.recordAttempt(
        claimed,
        { ...serverError, attemptedAt: at() },
        retryAt(at(60_000)),
        disable,
      );

      expect(await sut.makeDueNow(id, claimed.id)).toBeDefined();

      expect((await toSend(event)).notDueYet).toBe(false);
    });

    it('should leave a delivery being sent to its job, which records the attempt', async () => {
      const id = await subscribe();
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const claimed = await toSend(event);

      expect(await sut.makeDueNow(id, claimed.id)).toBeDefined();

      expect(
        await sut.recordAttempt(claimed, { ...ok, attemptedAt: at() }, succeeded, disable),
      ).toEqual({ disabledSubscription: false });
      expect((await deliveryOf(id, event)).status).toBe('succeeded');
    });

    it('should change nothing for another subscription’s delivery or an unknown one', async () => {
      const [id, otherId] = [await subscribe(), await subscribe({ events: ['pet.deleted'] })];
      const event = newEvent(newPetId());
      await fanOut(harness, [event]);
      const { id: deliveryId } = await ended(event, failed);

      expect(await sut.makeDueNow(otherId, deliveryId)).toBeUndefined();
      expect(await sut.makeDueNow(id, deliveryId + 1_000)).toBeUndefined();

      expect((await deliveryOf(id, event)).status).toBe('failed');
    });
  });
});
